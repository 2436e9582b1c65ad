import type { PutItemCommandInput, UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { marshallItem } from '../store/flatItems.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { OUTBOX_FIELDS } from '../store/outbox.js';
import { incidentDueKeys, incidentKey } from './incidentUpdate.js';

/**
 * An opening's writes as plain requests, in exactly the form ElectroDB writes them
 * (incidentItems.test.ts holds the two together): the incident's put with every index key the
 * entity derives and its identity fields, and the episode's claim (and, at the recovery, its
 * release). In a mass outage each opening
 * built these (and its gets) through ElectroDB's chains, which cost about as much CPU as the
 * embedded store's work on them.
 */

const INCIDENT_SK = '$incident_1';

/**
 * The incident as the table stores it (what the entity's create puts). The workspace, check and
 * project indexes are written even without their attribute: ElectroDB writes a key as far as its
 * composite attributes go (`$vigil#checkid_` for a declared incident), and the escalation-due
 * index only with its due time.
 */
export function storedIncident(item: IncidentItem): Record<string, unknown> {
  const stored: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    if (name === 'outboxDue') stored[OUTBOX_FIELDS.due] = value;
    else if (name === 'outboxDueAt') stored[OUTBOX_FIELDS.dueAt] = value;
    else stored[name] = value;
  }
  const sk = `${INCIDENT_SK}#incidentid_${item.incidentId}`;
  Object.assign(stored, incidentKey(item.incidentId), {
    gsi1pk: `$vigil#workspaceid_${item.workspaceId}`,
    gsi1sk: sk,
    gsi2pk: `$vigil#checkid_${item.checkId ?? ''}`,
    gsi2sk: sk,
    gsi3pk: `$vigil#projectid_${item.projectId ?? ''}`,
    gsi3sk: sk,
  });
  if ((item.dueShard === undefined) !== (item.dueAt === undefined)) throw new Error('the escalation-due index needs both dueShard and dueAt');
  if (item.dueShard !== undefined && item.dueAt !== undefined) Object.assign(stored, incidentDueKeys(item.dueShard, item.dueAt));
  stored.__edb_e__ = 'incident';
  stored.__edb_v__ = '1';
  return stored;
}

/** The put of a new incident (as `storedIncident` makes it), refused when the id is taken (the entity's create). */
export function incidentPutInput(table: string, stored: Record<string, unknown>): PutItemCommandInput {
  return {
    TableName: table,
    Item: marshallItem(stored),
    ConditionExpression: 'attribute_not_exists(#pk) AND attribute_not_exists(#sk)',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
  };
}

export type EpisodeRef = { checkId: number; episodeKey: string };

/** An episode's table key (the incidentEpisode entity's byCheck index). */
export const episodeTableKey = (episode: EpisodeRef): { pk: string; sk: string } => ({
  pk: `$vigil#checkid_${episode.checkId}`,
  sk: `$incidentepisode_1#episodekey_${episode.episodeKey.toLowerCase()}`,
});

/**
 * The claim of an episode for `incidentId` (the entity's update, an upsert that also sets the
 * episode's key attributes and identity): only with no incident claimed, no wait for recovery,
 * and no recovery at or after `at`.
 */
export function episodeClaimInput(table: string, episode: EpisodeRef, incidentId: number, workspaceId: number, at: string): UpdateItemCommandInput {
  return {
    TableName: table,
    Key: marshallItem(episodeTableKey(episode)),
    UpdateExpression: 'SET #open = :open, #ws = :ws, #check = :check, #key = :key, #e = :e, #v = :v',
    ConditionExpression: 'attribute_not_exists(#open) AND attribute_not_exists(#waiting) AND (attribute_not_exists(#closed) OR #closed < :at)',
    ExpressionAttributeNames: {
      '#open': 'openIncidentId',
      '#waiting': 'awaitingRecoverySince',
      '#closed': 'closedAt',
      '#ws': 'workspaceId',
      '#check': 'checkId',
      '#key': 'episodeKey',
      '#e': '__edb_e__',
      '#v': '__edb_v__',
    },
    ExpressionAttributeValues: marshallItem({
      ':at': at,
      ':open': incidentId,
      ':ws': workspaceId,
      ':check': episode.checkId,
      ':key': episode.episodeKey,
      ':e': 'incidentEpisode',
      ':v': '1',
    }),
  };
}

/**
 * An episode let go of `incidentId` once it is resolved (the entity's update): closed at
 * `closedAt`, awaiting recovery since `heldSince` when given, only while it still names that
 * incident. Every recovery of a mass outage makes one.
 */
export function episodeReleaseInput(table: string, episode: EpisodeRef, incidentId: number, closedAt: string, heldSince?: string): UpdateItemCommandInput {
  const held = heldSince !== undefined;
  return {
    TableName: table,
    Key: marshallItem(episodeTableKey(episode)),
    UpdateExpression: `SET #closed = :closed, ${held ? '#waiting = :waiting, ' : ''}#check = :check, #key = :key, #e = :e, #v = :v REMOVE #open`,
    ConditionExpression: '#open = :open',
    ExpressionAttributeNames: {
      '#open': 'openIncidentId',
      '#closed': 'closedAt',
      ...(held ? { '#waiting': 'awaitingRecoverySince' } : {}),
      '#check': 'checkId',
      '#key': 'episodeKey',
      '#e': '__edb_e__',
      '#v': '__edb_v__',
    },
    ExpressionAttributeValues: marshallItem({
      ':open': incidentId,
      ':closed': closedAt,
      ...(held ? { ':waiting': heldSince } : {}),
      ':check': episode.checkId,
      ':key': episode.episodeKey,
      ':e': 'incidentEpisode',
      ':v': '1',
    }),
  };
}
