import type { UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { outboxFields, type OutboxWrite } from '../outbox/owe.js';
import { OUTBOX_FIELDS } from '../store/outbox.js';
import type { IncidentWrite } from './write.js';

/**
 * The write of one incident transition as a plain request, in the form ElectroDB's patch writes
 * it (incidentUpdate.test.ts holds the two together): the same key, the same attributes set and
 * removed, the escalation-due index keys derived from `dueShard` and `dueAt` as the entity's
 * `byDue` index derives them, the outbox appended in its table fields, on the revision read. Built
 * through ElectroDB's chain, each of these writes cost about as much CPU again as the store's own
 * work, and a flip makes three (the raise, the escalation plan, the resolution).
 */

/** The incident's table key (the entity's `byId` index). */
export const incidentKey = (incidentId: number): { pk: string; sk: string } => ({ pk: `$vigil#incidentid_${incidentId}`, sk: '$incident_1' });

/** The escalation-due index keys (the entity's `byDue` index, core/store/escalationDue.ts). */
export const incidentDueKeys = (dueShard: string, dueAt: string): { gsi5pk: string; gsi5sk: string } => ({
  gsi5pk: `$vigil#dueshard_${dueShard.toLowerCase()}`,
  gsi5sk: `$incident_1#dueat_${dueAt.toLowerCase()}`,
});

/** `clearsOutbox`: the id of the outbox's last entry, when the write also clears the outbox whole (and owes nothing itself). */
export function incidentUpdateInput(
  table: string,
  incidentId: number,
  write: Pick<IncidentWrite, 'set' | 'remove'>,
  owed: OutboxWrite | undefined,
  revision: number,
  clearsOutbox?: string,
): UpdateItemCommandInput {
  if (clearsOutbox !== undefined && owed) throw new Error('a write that owes messages cannot also clear the outbox');
  const names: Record<string, string> = { '#pk': 'pk', '#revision': 'revision' };
  const values: Record<string, unknown> = { ':was': revision };
  const sets: string[] = [];
  const removes: string[] = [];
  let n = 0;
  const set = (field: string, value: unknown, expression?: (name: string, placeholder: string) => string) => {
    const name = `#${n.toString(36)}`;
    const placeholder = `:${(n++).toString(36)}`;
    names[name] = field;
    values[placeholder] = value;
    sets.push(expression ? expression(name, placeholder) : `${name} = ${placeholder}`);
  };
  const remove = (field: string) => {
    const name = `#${(n++).toString(36)}`;
    names[name] = field;
    removes.push(name);
  };
  const fields = owed ? outboxFields(owed) : undefined;
  for (const [field, value] of Object.entries({ ...write.set, ...fields?.set })) if (value !== undefined) set(field, value);
  const { dueShard, dueAt } = write.set;
  if ((dueShard === undefined) !== (dueAt === undefined)) throw new Error('the escalation-due index needs both dueShard and dueAt');
  if (dueShard !== undefined && dueAt !== undefined) for (const [field, value] of Object.entries(incidentDueKeys(dueShard, dueAt))) set(field, value);
  for (const [field, entries] of Object.entries(fields?.append ?? {})) {
    values[':none'] = [];
    set(field, entries, (name, placeholder) => `${name} = list_append(if_not_exists(${name}, :none), ${placeholder})`);
  }
  const removed = write.remove.filter((field) => !(field in write.set));
  for (const field of removed) remove(field);
  if (removed.some((field) => field === 'dueShard' || field === 'dueAt')) for (const field of ['gsi5pk', 'gsi5sk']) remove(field);
  // `clearsOutbox`: the relay's clear (core/outbox/relay.ts) folded in, on its own condition: the
  // outbox still ends with the entry the writer saw last, so nothing appended since is removed.
  let cleared = '';
  if (clearsOutbox !== undefined) {
    for (const field of Object.values(OUTBOX_FIELDS)) remove(field);
    names['#oid'] = OUTBOX_FIELDS.lastId;
    values[':last'] = clearsOutbox;
    cleared = ' AND #oid = :last';
  }
  return {
    TableName: table,
    Key: marshall(incidentKey(incidentId)),
    UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' '),
    ConditionExpression: `attribute_exists(#pk) AND #revision = :was${cleared}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: marshall(values, { removeUndefinedValues: true }),
    // Its caller reads only the outbox as it now stands (what the relay publishes and clears),
    // entries an earlier write left unrelayed included, so the whole item, as the patch returned.
    ReturnValues: 'ALL_NEW',
  };
}
