import { readCheckEvenDeleted } from '../alerting/delivery.js';
import type { Deps } from '../deps.js';
import type { IncidentTimelineOwed } from '../incidents/events.js';
import { appendIncidentEvent, readIncident } from '../incidents/repository.js';
import type { TimelineEffect } from '../incidents/transition.js';
import { itemKey, outboxWrite, relayAfterWrite, type Owed } from '../outbox/index.js';
import { retryOnConflict } from '../store/conditional.js';
import { sweepDue, type DueSweepReport } from '../store/dueSweep.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { dueKey, ESCALATION_SHARDS } from '../store/escalationDue.js';
import { windowEffects } from '../windows/holds.js';
import { cursorFields, cursorOf, sameCursor } from './cursor.js';
import type { EscalationStepMessage } from './stepMessage.js';
import { planEscalation, type DueStep, type EngineResult, type Plan } from './engine.js';
import { planOf, routeIncident } from './plan.js';
import { targetLabel } from './recipients.js';

export type EscalationSweepReport = DueSweepReport & { fired: number; written: number };

const PAGE_SIZE = 100;
const CONCURRENCY = 16;
const ATTEMPTS = 4;
const SYSTEM = { kind: 'system' } as const;

/**
 * The escalation sweep step: reads only the incidents whose escalation is due (the sparse
 * `byDue` index, O(due)), runs the engine for each and moves its cursor with one
 * conditional write on the incident's revision. That write owes the fired steps' messages (the
 * outbox), so a crash after it loses nothing and a lost race sends nothing: of two sweeps, one
 * write wins. Each step message then delivers once per recipient (ALERT_SENT keys and claims).
 * The index entry is handled as read, without a second read: the write is conditional on the
 * revision it holds, and a lost race reads the incident again (`advance`).
 */
export async function sweepEscalations(deps: Deps, now: Date): Promise<EscalationSweepReport> {
  const caches = sweepCaches(deps, now);
  let fired = 0;
  let written = 0;
  const report = await sweepDue({
    name: 'escalation sweep',
    shards: ESCALATION_SHARDS,
    page: (dueShard, cursor, limit) => deps.store.entities.incident.query.byDue({ dueShard }).lte({ dueAt: dueKey(now) }).go({ cursor, limit }),
    handle: async (incident) => {
      const outcome = await advance(deps, incident, now, caches);
      fired += outcome.fired;
      if (outcome.written) written++;
    },
    label: (incident) => `incident ${incident.incidentId}`,
    concurrency: CONCURRENCY,
    pageSize: PAGE_SIZE,
  });
  return { ...report, fired, written };
}

/** Routing, mutes and windows are read once per sweep per project / check. */
function sweepCaches(deps: Deps, now: Date) {
  const memo = <T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> => {
    let value = map.get(key);
    if (!value) map.set(key, (value = load()));
    return value;
  };
  const plans = new Map<string, Promise<Plan | null>>();
  const mutes = new Map<string, Promise<boolean>>();
  const holds = new Map<string, Promise<boolean>>();
  return {
    plan: (i: IncidentItem) => memo(plans, `${i.workspaceId}:${i.projectId ?? '-'}`, async () => planOf(await routeIncident(deps, i))),
    muted: (i: IncidentItem) =>
      i.checkId === undefined ? Promise.resolve(false) : memo(mutes, String(i.checkId), async () => (await readCheckEvenDeleted(deps, i.checkId ?? 0))?.muteNotifications === true),
    suppressed: (i: IncidentItem) =>
      memo(holds, `${i.workspaceId}:${i.projectId ?? '-'}`, async () => (await windowEffects(deps, { workspaceId: i.workspaceId, projectId: i.projectId ?? null }, now)).suppressAlerts),
  };
}

/**
 * The first planning of an incident's escalation, by the handler of its opening alert, which has
 * just read the routing, the check's mute and the windows to send step 0. Every incident opens due
 * at its opening instant; without this the next sweep read each one again with all of that only
 * to plan the steps after step 0 (in a mass outage, one visit per opening;
 * docs/adr/0009-escalation-planned-at-opening.md). The same engine and the same conditional write as the sweep: of
 * the two, one moves the cursor, and a crash before it leaves the incident due for the sweep.
 */
export async function planOpenedEscalation(deps: Deps, incident: IncidentItem, now: Date, known: { plan: Plan | null; muted: boolean; suppressed: boolean }): Promise<void> {
  await advance(deps, incident, now, { plan: async () => known.plan, muted: async () => known.muted, suppressed: async () => known.suppressed });
}

async function advance(deps: Deps, first: IncidentItem, now: Date, caches: Pick<ReturnType<typeof sweepCaches>, 'plan' | 'muted' | 'suppressed'>): Promise<{ fired: number; written: boolean }> {
  return retryOnConflict(
    async (attempt) => {
      // After a lost race someone moved it first (another sweep, an acknowledgement): read again and decide again.
      const incident = attempt === 1 ? first : await readIncident(deps, first.incidentId);
      if (!incident) return { fired: 0, written: false };
      const cursor = cursorOf(incident);
      const [plan, muted, suppressed] = await Promise.all([caches.plan(incident), caches.muted(incident), caches.suppressed(incident)]);
      const result: EngineResult = cursor
        ? planEscalation({ plan, incident: { state: incident.state, acknowledgedAt: incident.acknowledgedAt ?? null }, cursor, now, suppressed, muted })
        : { fire: [], cursor: { epoch: 0, cycle: 0, step: 0, anchor: incident.startedAt, held: false, afterAck: false }, dueAt: null, reescalatedAt: null };
      const unchanged = cursor && sameCursor(cursor, result.cursor) && result.fire.length === 0 && !result.reescalatedAt && result.dueAt && dueKey(result.dueAt) === incident.dueAt;
      if (unchanged) return { fired: 0, written: false };
      await writeAdvance(deps, incident, result, now);
      return { fired: result.fire.length, written: true };
    },
    { attempts: ATTEMPTS, what: `advancing the escalation of incident ${first.incidentId}` },
  );
}

function stepMessage(incident: IncidentItem, due: DueStep): EscalationStepMessage {
  return { type: 'incident.escalation_step', incidentId: incident.incidentId, workspaceId: incident.workspaceId, epoch: due.epoch, cycle: due.cycle, step: due.step, escalated: due.escalated, at: due.at.toISOString() };
}

function effectsOf(result: EngineResult, ackTimeoutMinutes: string): TimelineEffect[] {
  const effects: TimelineEffect[] = [];
  if (result.reescalatedAt) {
    effects.push({
      key: `reescalated#${result.cursor.epoch}`,
      type: 'ESCALATED',
      message: `Still unresolved ${ackTimeoutMinutes} after the acknowledgement: the acknowledgement is cleared and escalation starts again from step 0`,
      occurredAt: result.reescalatedAt.toISOString(),
      actor: SYSTEM,
    });
  }
  for (const due of result.fire.filter((d) => d.escalated)) {
    effects.push({
      key: `escalated#${due.epoch}.${due.cycle}.${due.step}`,
      type: 'ESCALATED',
      message: `Escalated to step ${due.step} (cycle ${due.cycle}): ${due.targets.map(targetLabel).join(', ')}`,
      occurredAt: due.at.toISOString(),
      actor: SYSTEM,
    });
  }
  return effects;
}

/** One conditional write: the cursor, the due instant, a cleared acknowledgement, and what it owes. */
async function writeAdvance(deps: Deps, incident: IncidentItem, result: EngineResult, now: Date): Promise<void> {
  const fields = cursorFields(incident.incidentId, result.cursor, result.dueAt);
  const ackAt = incident.acknowledgedAt;
  const effects = effectsOf(result, ackAt && result.reescalatedAt ? `${Math.round((result.reescalatedAt.getTime() - Date.parse(ackAt)) / 60_000)} minutes` : '');
  const owed: Owed[] = [
    ...(effects.length > 0 ? [{ queue: 'incidents' as const, body: { type: 'incident.timeline', incidentId: incident.incidentId, workspaceId: incident.workspaceId, effects } satisfies IncidentTimelineOwed }] : []),
    ...result.fire.map((due) => ({ queue: 'alerts' as const, body: stepMessage(incident, due) })),
  ];
  const write = owed.length > 0 ? outboxWrite(owed, now) : undefined;
  let update = deps.store.entities.incident
    .patch({ incidentId: incident.incidentId })
    .set({ ...fields.set, revision: incident.revision + 1, ...(result.reescalatedAt ? { updatedAt: now.toISOString() } : {}), ...write?.set });
  if (write) update = update.append({ outbox: write.entries });
  const removals = [...fields.remove, ...(result.reescalatedAt ? (['acknowledgedAt', 'acknowledgedBy', 'acknowledgedByKeyId'] as const) : [])];
  if (removals.length > 0) update = update.remove(removals);
  const written = await update
    .where((attr, op) => op.eq(attr.revision, incident.revision))
    .go({ response: 'all_new' });
  for (const effect of effects) await appendIncidentEvent(deps, incident, effect, now);
  const appended = new Set(write?.entries.filter((e) => e.queue === 'incidents').map((e) => e.id));
  await relayAfterWrite(deps, itemKey(deps.store.entities.incident.get({ incidentId: incident.incidentId })), written.data.outbox, appended);
}
