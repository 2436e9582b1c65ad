import { readCheckEvenDeleted } from '../alerting/delivery.js';
import type { Deps } from '../deps.js';
import type { OutboxClear } from '../store/outbox.js';
import { sweepDue, type DueSweepReport } from '../store/dueSweep.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { dueKey, ESCALATION_SHARDS } from '../store/escalationDue.js';
import { windowEffects } from '../windows/holds.js';
import { advanceEscalation } from './advance.js';
import type { Plan } from './engine.js';
import { planOf, routeIncident } from './plan.js';

export type EscalationSweepReport = DueSweepReport & { fired: number; written: number };

const PAGE_SIZE = 100;
const CONCURRENCY = 16;

/**
 * The escalation sweep step: reads only the incidents whose escalation is due (the sparse
 * `byDue` index, O(due)) and advances each (core/escalation/advance.ts): the engine decides,
 * the incident's state machine moves the cursor with one conditional write that owes the fired
 * steps' messages. Each step message then delivers once per recipient (ALERT_SENT keys and
 * claims). The index entry is handled as read, without a second read: the write is conditional
 * on the revision it holds, and a lost race reads the incident again (applyIncidentInput).
 */
export async function sweepEscalations(deps: Deps, now: Date): Promise<EscalationSweepReport> {
  const caches = sweepCaches(deps, now);
  let fired = 0;
  let written = 0;
  const report = await sweepDue({
    name: 'escalation sweep',
    shards: ESCALATION_SHARDS,
    page: (dueShard, cursor, limit) =>
      deps.store.entities.incident.query
        .byDue({ dueShard })
        .lte({ dueAt: dueKey(now) })
        .go({ cursor, limit }),
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
    plan: (i: IncidentItem) => memo(plans, `${i.workspaceId}:${i.projectId ?? '-'}:${i.integrationId ?? '-'}`, async () => planOf(await routeIncident(deps, i))),
    muted: (i: IncidentItem) =>
      i.checkId === undefined ? Promise.resolve(false) : memo(mutes, String(i.checkId), async () => (await readCheckEvenDeleted(deps, i.checkId ?? 0))?.muteNotifications === true),
    suppressed: (i: IncidentItem) =>
      memo(
        holds,
        `${i.workspaceId}:${i.projectId ?? '-'}`,
        async () => (await windowEffects(deps, { workspaceId: i.workspaceId, projectId: i.projectId ?? null }, now)).suppressAlerts,
      ),
  };
}

/**
 * The first planning of an incident's escalation, by the handler of its opening alert, which has
 * just read the routing, the check's mute and the windows to send step 0. Every incident opens due
 * at its opening instant; without this the next sweep read each one again with all of that only
 * to plan the steps after step 0 (in a mass outage, one visit per opening; the bench counts the
 * sweep's reads per due check). The same engine and the same conditional write as the sweep: of
 * the two, one moves the cursor, and a crash before it leaves the incident due for the sweep.
 * `clearing`: the opening's outbox clear, which this write takes in where it can
 * (core/incidents/handOff.ts).
 */
export async function planOpenedEscalation(
  deps: Deps,
  incident: IncidentItem,
  now: Date,
  known: { plan: Plan | null; muted: boolean; suppressed: boolean },
  clearing?: OutboxClear,
): Promise<void> {
  await advanceEscalation(deps, incident, now, known, clearing);
}

async function advance(
  deps: Deps,
  incident: IncidentItem,
  now: Date,
  caches: Pick<ReturnType<typeof sweepCaches>, 'plan' | 'muted' | 'suppressed'>,
): Promise<{ fired: number; written: boolean }> {
  const [plan, muted, suppressed] = await Promise.all([caches.plan(incident), caches.muted(incident), caches.suppressed(incident)]);
  return advanceEscalation(deps, incident, now, { plan, muted, suppressed });
}
