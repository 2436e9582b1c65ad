import { statusChangeOwed } from '../checks/events.js';
import { causeOf, nextCheckStatus, type StatusChanges, type SweepObservation } from '../checks/status.js';
import { DUE_SHARDS } from '../checks/timing.js';
import type { Deps } from '../deps.js';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { checkFromItem } from '../signals/pingStore.js';
import { checkKey } from '../store/checkKeys.js';
import { checkUpdateInput, compactPlaceholders, lowLevelUpdate, type Guard } from '../signals/rawItems.js';
import { putSignal, signalItem } from '../signals/record.js';
import { broadcast, checkEvent, signalEvent, type StreamEvent } from '../signals/streamEvents.js';
import type { CheckItem } from '../store/entities/check.js';
import { handOffAfterWrite, outboxFields, type OutboxWrite } from '../outbox/index.js';
import { isConditionalFailure } from '../store/conditional.js';
import { windowEffects } from '../windows/holds.js';
import { dueWakes, isSuperseded, readChecksById, settleSuperseded, type IndexedCheck } from './wakes.js';

export type HeartbeatSweepReport = { read: number; moved: number; held: number; woken: number; armed: number; dropped: number };

const PAGE_SIZE = 200;
const CONCURRENCY = 16;

/**
 * Missed heartbeats: reads only what is due, never every check: the checks whose own `dueAt` entry
 * has passed (the sparse `byDue` index; every ping moves it to the instant the check would turn
 * LATE, so a check that keeps pinging is never read). Wake entries (`byWake`, core/sweep/wakes.ts)
 * are written no more since 2026-11-26; the ones steady pings wrote before are still read until
 * they have all fallen due (one query a sweep that finds nothing afterwards). Each move is a
 * conditional write on the status and dueAt that were read: two sweeps at once make one flip, one
 * signal, one message. A check whose due time lies ahead of the entry that brought it keeps an
 * entry at that time.
 */
export async function sweepHeartbeats(deps: Deps, now: Date): Promise<HeartbeatSweepReport> {
  const report: HeartbeatSweepReport = { read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 };
  const holds = new Map<string, Promise<boolean>>();
  // Windows are per project: ask once per project per sweep.
  const isHeld = (check: CheckItem): Promise<boolean> => {
    const key = `${check.workspaceId}:${check.projectId ?? '-'}`;
    let held = holds.get(key);
    if (!held) {
      held = windowEffects(deps, { workspaceId: check.workspaceId, projectId: check.projectId ?? null }, now).then(
        (effects) => effects.deploymentActive || effects.suppressIncidents,
      );
      holds.set(key, held);
    }
    return held;
  };

  for (const dueShard of DUE_SHARDS) {
    const wakes = await dueWakes(deps, dueShard, now);
    const superseded: IndexedCheck[] = [];
    const look = async ({ check, own }: IndexedCheck): Promise<void> => {
      if (isSuperseded(check, now)) {
        superseded.push({ check, own });
        return;
      }
      const result = await sweepCheck(deps, check, now, isHeld);
      if (result === 'moved') report.moved++;
      if (result === 'held') report.held++;
      // A ping got there first: what it left must still be covered (its signal may never land).
      if (result === 'conflict') for (const again of await readChecksById(deps, [check.checkId])) if (isSuperseded(again.check, now)) superseded.push(again);
    };
    const seen = new Set<number>();
    let cursor: string | null = null;
    do {
      const page: { data: CheckItem[]; cursor: string | null } = await deps.store.entities.check.query
        .byDue({ dueShard })
        .lte({ dueAt: now.toISOString() })
        .go({ cursor, limit: PAGE_SIZE });
      report.read += page.data.length;
      for (const check of page.data) seen.add(check.checkId);
      // Found by an entry at or before now: one whose check is due later was left behind by a steady ping.
      await inBatches(page.data, CONCURRENCY, (check) => look({ check, own: isSuperseded(check, now) ? 'elsewhere' : 'at-due' }));
      cursor = page.cursor;
    } while (cursor);
    const woken = await readChecksById(
      deps,
      wakes.checkIds.filter((id) => !seen.has(id)),
    );
    report.woken += woken.length;
    await inBatches(woken, CONCURRENCY, look);
    const settled = await settleSuperseded(deps, superseded);
    report.armed += settled.armed;
    report.dropped += settled.dropped;
    await wakes.commit();
  }
  return report;
}

const SWEEP: SweepObservation = { type: 'sweep', held: false };
const HELD_SWEEP: SweepObservation = { type: 'sweep', held: true };

async function sweepCheck(deps: Deps, check: CheckItem, now: Date, isHeld: (check: CheckItem) => Promise<boolean>): Promise<'moved' | 'held' | 'none' | 'conflict'> {
  let outcome = nextCheckStatus(check, SWEEP, now);
  // Only a check about to move needs to know about windows.
  if (outcome.statusChange && (await isHeld(check))) {
    outcome = nextCheckStatus(check, HELD_SWEEP, now);
    if (!outcome.changes) return 'held';
  }
  if (!outcome.changes) return 'none';
  // A flip owes its message in the flip's own write; the relay sends it right after.
  const owed = outcome.statusChange ? statusChangeOwed(check, outcome.statusChange, causeOf(SWEEP), now) : undefined;
  const written = await writeIfUnchanged(deps, check, outcome.changes, owed);
  if (!written) return 'conflict';
  if (owed) await handOffAfterWrite(deps, checkKey(check.token), written.outbox);

  const events: StreamEvent[] = [];
  if (outcome.signal) {
    const signal = signalItem(check, { type: outcome.signal, source: 'SYSTEM' }, now);
    await putSignal(deps, signal);
    events.push(signalEvent(signal));
  }
  if (outcome.statusChange) events.push(checkEvent({ ...check, status: outcome.status }));
  await broadcast(deps, events);
  return outcome.statusChange ? 'moved' : 'none';
}

/**
 * The write of a sweep move, on the condition that nobody (a ping, another sweep) moved it first;
 * with the messages it owes. Returns the check as written, or null when the condition failed.
 * Built as a plain request in the form ElectroDB writes it (core/signals/rawItems.ts, the ping
 * path's builder; rawItems.test.ts holds the two together): building a patch through ElectroDB's
 * chain cost about half a millisecond of CPU, and a mass outage is two of these per check. The
 * status condition implies that the item exists, as the patch's own condition did.
 */
async function writeIfUnchanged(deps: Deps, check: CheckItem, changes: StatusChanges, owed: OutboxWrite | undefined): Promise<CheckItem | null> {
  const guard: Guard = {
    expression: `#status = :wasStatus AND ${check.dueAt === undefined ? 'attribute_not_exists(#dueAt)' : '#dueAt = :wasDueAt'} AND attribute_not_exists(#deletedAt)`,
    names: { '#status': 'status', '#dueAt': 'dueAt', '#deletedAt': 'deletedAt' },
    values: { ':wasStatus': check.status, ...(check.dueAt === undefined ? {} : { ':wasDueAt': check.dueAt }) },
  };
  const input = checkUpdateInput(deps.store.table, check.token, changes, guard, {}, 'ALL_NEW', owed ? outboxFields(owed) : {});
  try {
    const written = await deps.store.hot.send(new UpdateItemCommand(lowLevelUpdate(compactPlaceholders(input))));
    return written.Attributes ? (checkFromItem(unmarshall(written.Attributes)) ?? null) : null;
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

async function inBatches<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}
