import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { newUlid } from '../ids.js';
import type { Deps } from '../deps.js';
import { conflict, notFound } from '../http/errors.js';
import type { IncidentItem } from '../store/entities/incident.js';
import type { IncidentEventItem } from '../store/entities/incidentEvent.js';
import { isConditionalFailure, retryOnConflict } from '../store/conditional.js';
import { outboxWrite, type OutboxWrite } from '../outbox/index.js';
import type { OutboxClear, OutboxEntry } from '../store/outbox.js';
import { dueFields } from '../store/escalationDue.js';
import { getStoredItem, storedItemOf } from '../store/storedItems.js';
import { storeMemo } from '../store/storeMemo.js';
import { broadcast, incidentEvent, type IncidentChange, type IncidentStamp } from '../signals/streamEvents.js';
import { relayOrHandOff } from './handOff.js';
import { alertMessagesFor, integrationMessagesFor, stepMessagesFor, type IncidentTimelineOwed } from './events.js';
import { transitionIncident, type FiredStep, type IncidentInput, type TimelineEffect, type TransitionResult } from './transition.js';
import { incidentKey, incidentUpdateInput } from './incidentUpdate.js';
import { incidentEventPutInput, queryIncidentEvents } from './timelineItems.js';
import { incidentPutInput, storedIncident } from './incidentItems.js';
import { incidentWrite, toState } from './write.js';

/** The incident, read consistently: a plain get, returned as the entity's get returns it (incidentItems.test.ts). */
export async function readIncident(deps: Deps, incidentId: number): Promise<IncidentItem | undefined> {
  return getStoredItem<IncidentItem>(deps.store, deps.store.entities.incident, incidentKey(incidentId));
}

/**
 * Each incident as this process's last write of it left it (its put or its transition's write),
 * while it is open: a DOWN's raise starts from it unread (core/incidents/episodes.ts), its write
 * conditional on the revision remembered, so a write by anyone else since (every change of an
 * incident moves its revision: `applyIncidentInput`, the put at revision 1) refuses it and the
 * raise reads as before. The outbox is left out: nothing reads it from here (what a write owes is
 * read back from that write), and it is most of an item's size. Forgotten at the resolution; at
 * most 10,000, about 10 MB of items, a mass outage of the bench's size (4,000 to 8,000 checks)
 * whole; past that the memo starts again (core/store/storeMemo.ts) and the forgotten read.
 */
const lastWritten = storeMemo<number, IncidentItem>(10_000);

function rememberWritten(deps: Deps, incident: IncidentItem): void {
  if (incident.state === 'RESOLVED') return lastWritten.delete(deps.store, incident.incidentId);
  const { outbox: _owed, ...item } = incident;
  lastWritten.set(deps.store, incident.incidentId, item);
}

/** The incident as this process last wrote it, if it did and it was open then: a hint, checked by the next write's revision. */
export const writtenIncident = (deps: Deps, incidentId: number): IncidentItem | undefined => lastWritten.get(deps.store, incidentId);

/** Forgets a remembered incident that its next write found changed or gone. */
export const forgetWrittenIncident = (deps: Deps, incidentId: number): void => lastWritten.delete(deps.store, incidentId);

export type NewIncident = {
  workspaceId: number;
  projectId?: number | undefined;
  checkId?: number | undefined;
  dependencyId?: number | undefined;
  dependencyName?: string | undefined;
  integrationId?: number | undefined;
  title: string;
  summary?: string | undefined;
  reason: IncidentItem['reason'];
  declared: boolean;
};

/**
 * Writes a new incident under `incidentId` (attribute_not_exists) with its OPENED event.
 * Returns undefined when that id already exists: another worker got there first.
 */
export async function insertIncident(
  deps: Deps,
  incidentId: number,
  fields: NewIncident,
  open: Extract<IncidentInput, { type: 'open' }>,
  now: Date,
): Promise<IncidentItem | undefined> {
  const result = transitionIncident(null, open, now);
  if (!result.ok) throw new Error('opening an incident cannot be refused');
  const iso = now.toISOString();
  const owed = effectsOwed({ incidentId, ...fields, severity: result.state.severity }, result.effects, [], now);
  const escalation = result.state.escalation;
  if (!escalation?.dueAt) throw new Error('an incident opens due for escalation');
  const opened: IncidentItem = {
    incidentId,
    publicId: newUlid(now.getTime()).toLowerCase(),
    ...fields,
    state: result.state.state,
    severity: result.state.severity,
    startedAt: result.state.startedAt,
    revision: 1,
    escalationEpoch: escalation.cursor.epoch,
    escalationCycle: escalation.cursor.cycle,
    escalationStep: escalation.cursor.step,
    escalationAnchor: escalation.cursor.anchor,
    ...dueFields(incidentId, new Date(escalation.dueAt)),
    ...(owed ? { outbox: owed.entries, ...owed.set } : {}),
    createdAt: iso,
    updatedAt: iso,
  };
  // The entity's create as a plain put (core/incidents/incidentItems.ts): the same item, index keys
  // and identity, refused when the id exists; what it returns is the item put, as ElectroDB's did.
  const stored = storedIncident(opened);
  try {
    await deps.store.hot.send(new PutItemCommand(incidentPutInput(deps.store.table, stored)));
  } catch (err) {
    if (isConditionalFailure(err)) return undefined;
    throw err;
  }
  const created = storedItemOf<IncidentItem>(deps.store.entities.incident, stored);
  if (!created) throw new Error('an incident put reads back as an incident');
  rememberWritten(deps, created);
  await recordEffects(deps, created, result.effects, now, created.outbox, owed, 'opened');
  return created;
}

const MAX_ATTEMPTS = 6;

/**
 * Applies one input to a stored incident, the one way its item changes: read, transition,
 * conditional write on the revision read, and on a lost race read again. Then appends the timeline
 * events and publishes what the write owes. `read`: the item as the caller has just read it (the
 * escalation sweep's index page), used for the first attempt; the condition catches it if stale.
 * `clearing`: an outbox clear its caller owes before this write (core/incidents/handOff.ts), folded
 * into the write when it owes nothing itself, on the clear's own condition; otherwise, or when the
 * write is refused, done on its own first, as the caller would have done it.
 */
export async function applyIncidentInput(
  deps: Deps,
  incidentId: number,
  input: IncidentInput,
  now: Date,
  read?: IncidentItem,
  clearing?: OutboxClear,
): Promise<{ incident: IncidentItem; result: TransitionResult }> {
  type Outcome = {
    incident: IncidentItem;
    result: TransitionResult;
    effects: readonly TimelineEffect[] | null;
    pending?: OutboxEntry[] | undefined;
    owed?: OutboxWrite | undefined;
  };
  // The outbox clear this write was offered: folded into it, or done on its own before any write.
  let unclear = clearing;
  const clearFirst = async (): Promise<void> => {
    const pending = unclear;
    unclear = undefined;
    await pending?.separately();
  };
  const outcome: Outcome = await retryOnConflict(
    async (attempt): Promise<Outcome> => {
      const current = attempt === 1 && read ? read : await readIncident(deps, incidentId);
      if (!current) throw notFound('Incident');
      const result = transitionIncident(toState(current), input, now);
      const title = retitled(current, input);
      if (!result.ok || (!result.changed && title === undefined)) {
        await clearFirst();
        return { incident: current, result, effects: null };
      }
      const write = incidentWrite(current, result.state, title, now);
      // What the change owes is recorded by the change's own write (core/outbox).
      const owed = effectsOwed(write.item, result.effects, result.steps ?? [], now);
      // A write that owes messages appends to the outbox, which a clear in the same write cannot.
      if (owed) await clearFirst();
      const folded = unclear;
      let written;
      try {
        written = await deps.store.hot.send(new UpdateItemCommand(incidentUpdateInput(deps.store.table, incidentId, write, owed, current.revision, folded?.lastId)));
      } catch (err) {
        // Refused (the revision moved, or the outbox is not as the writer left it): the clear goes
        // on its own, as before it was folded in, and the next attempt reads the incident again.
        if (folded && isConditionalFailure(err)) await clearFirst();
        throw err;
      }
      unclear = undefined;
      const outbox = written.Attributes?.outbox;
      const pending = outbox ? (unmarshall({ outbox }).outbox as OutboxEntry[]) : undefined;
      return { incident: write.item, result, effects: result.effects, pending, owed };
    },
    { attempts: MAX_ATTEMPTS, onExhausted: () => conflict('The incident changed while it was being updated; try again') },
  );
  // Outside the loop: the effects follow the one write that won, and run once. A move of the
  // escalation is not shown on its own: only the timeline entries it writes are announced.
  if (outcome.effects) rememberWritten(deps, outcome.incident);
  const escalationOnly = input.type === 'advance' || input.type === 'hold';
  if (outcome.effects) await recordEffects(deps, outcome.incident, outcome.effects, now, outcome.pending, outcome.owed, escalationOnly ? 'timeline' : 'updated');
  return { incident: outcome.incident, result: outcome.result };
}

/**
 * The new title a raise brings ("x is late" -> "x is down"), if any. Apart from the severity: a
 * check whose late and down severities are equal still goes from late to down. Not on a resolved
 * incident, nor from a stale message older than the incident.
 */
function retitled(current: IncidentItem, input: IncidentInput): string | undefined {
  if (input.type !== 'raise' || input.title === undefined || input.title === current.title) return undefined;
  return current.state !== 'RESOLVED' && input.at >= current.startedAt ? input.title : undefined;
}

/**
 * What a change owes, recorded in the incident's own write (core/outbox): its timeline events and
 * its alerts. A crash after the write leaves them owed, and the sweep delivers them.
 */
function effectsOwed(
  incident: Parameters<typeof alertMessagesFor>[0] & { integrationId?: number | undefined },
  effects: readonly TimelineEffect[],
  steps: readonly FiredStep[],
  now: Date,
): OutboxWrite | undefined {
  if (effects.length === 0 && steps.length === 0) return undefined;
  const timeline: IncidentTimelineOwed = { type: 'incident.timeline', incidentId: incident.incidentId, workspaceId: incident.workspaceId, effects: [...effects] };
  const alerts = [...alertMessagesFor(incident, effects), ...stepMessagesFor(incident, steps)].map((body) => ({ queue: 'alerts' as const, body }));
  const pages = integrationMessagesFor(incident, effects).map((body) => ({ queue: 'incidents' as const, body }));
  return outboxWrite([...(effects.length > 0 ? [{ queue: 'incidents' as const, body: timeline }] : []), ...alerts, ...pages], now);
}

/** The owed timeline copy is what the writer appends itself; anything else on the queue still has to go out. */
const isTimelineEntry = (entry: OutboxEntry): boolean => entry.queue === 'incidents' && (JSON.parse(entry.body) as { type?: unknown }).type === 'incident.timeline';

/**
 * After the write: the timeline (appended here, so it reads back at once; the owed copy of this
 * write is then cleared unpublished), one stream event for the write and its timeline together
 * (for `timeline`: one per entry this call wrote), then the owed alerts through the relay's fast
 * path, or sent here where the runtime hands them off (core/incidents/handOff.ts; their
 * ALERT_SENT entries announce themselves).
 */
async function recordEffects(
  deps: Deps,
  incident: IncidentItem,
  effects: readonly TimelineEffect[],
  now: Date,
  pending: OutboxEntry[] | undefined,
  owed: OutboxWrite | undefined,
  change: IncidentChange,
): Promise<void> {
  for (const effect of effects) {
    const written = await writeIncidentEvent(deps, incident, effect, now);
    if (written && change === 'timeline') await broadcast(deps, [incidentEvent(incident, 'timeline')]);
  }
  if (change !== 'timeline') await broadcast(deps, [incidentEvent(incident, change)]);
  const appended = new Set(owed?.entries.filter(isTimelineEntry).map((entry) => entry.id));
  await relayOrHandOff(deps, incident, incidentKey(incident.incidentId), pending, owed?.entries ?? [], appended);
}

/**
 * Appends one timeline event, once: the key names the logical event (for alert dispatch use
 * `alert#<dispatch id>`), and a second write of the same key is refused by the store.
 * Returns whether this call wrote it; only then is it announced on the workspace's stream.
 */
export async function appendIncidentEvent(deps: Deps, incident: IncidentStamp, effect: TimelineEffect, now: Date): Promise<boolean> {
  const written = await writeIncidentEvent(deps, incident, effect, now);
  if (written) await broadcast(deps, [incidentEvent(incident, 'timeline')]);
  return written;
}

/** The write of `appendIncidentEvent` alone, for callers that announce a batch of entries once. */
export async function writeIncidentEvent(deps: Deps, incident: { incidentId: number; workspaceId: number }, effect: TimelineEffect, now: Date): Promise<boolean> {
  // Unique is enough: the timeline is ordered by time, the id only breaks ties (core/store/counters.ts idBlocks).
  const eventId = await deps.store.nextIdFromBlock('incidentEvent');
  try {
    await deps.store.hot.send(
      new PutItemCommand(
        incidentEventPutInput(deps.store.table, {
          incidentId: incident.incidentId,
          eventKey: effect.key,
          eventId,
          workspaceId: incident.workspaceId,
          type: effect.type,
          message: effect.message,
          occurredAt: effect.occurredAt,
          actorUserId: effect.actor.kind === 'user' ? effect.actor.userId : undefined,
          actorApiKeyId: effect.actor.kind === 'apiKey' ? effect.actor.apiKeyId : undefined,
          actorLink: effect.actor.kind === 'link' ? effect.actor.recipient : undefined,
          createdAt: now.toISOString(),
        }),
      ),
    );
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

const TYPE_ORDER: Record<IncidentEventItem['type'], number> = {
  OPENED: 0,
  SEVERITY_CHANGED: 1,
  ALERT_SENT: 2,
  ESCALATED: 3,
  ACKNOWLEDGED: 4,
  MONITORING: 5,
  RESOLVED: 6,
};

/**
 * The timeline in the order things happened (ties broken by the natural order of the types). An
 * ALERT_SENT entry still claimed is a send under way, not yet on it (core/alerting/recordClaim.ts).
 */
export async function listIncidentEvents(deps: Deps, incidentId: number): Promise<IncidentEventItem[]> {
  const events = (await queryIncidentEvents(deps.store, incidentId)).filter((event) => event.claim === undefined);
  return events.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt) || TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || a.eventId - b.eventId);
}

/** Open (ACTIVE or MONITORING) incidents of a check, through the check index. */
export async function openIncidentsOfCheck(deps: Deps, checkId: number): Promise<IncidentItem[]> {
  const result = await deps.store.entities.incident.query
    .byCheck({ checkId })
    .where((attr, op) => op.ne(attr.state, 'RESOLVED'))
    .go({ pages: 'all' });
  return result.data;
}
