import type { CheckItem } from '../store/entities/check.js';
import { DUE_SHARD } from './timing.js';

/**
 * Heartbeat status as pure transitions (DESIGN 6, spec "Check status"): each returns the fields to
 * write and the effects to perform; the caller persists them with a conditional write on what it
 * read. Timing: nextDueAt = lastPingAt + interval; LATE once now > nextDueAt; DOWN once
 * now > nextDueAt + grace. `dueAt` is set only while such a transition is pending, which keeps the
 * sweep's index sparse.
 */

export type CheckStatus = CheckItem['status'];
export type PingKind = 'success' | 'fail' | 'start';

/** What the transitions read from a check. */
export type CheckTiming = Pick<CheckItem, 'checkId' | 'status' | 'checkMode' | 'intervalSeconds' | 'graceSeconds'> &
  Partial<Pick<CheckItem, 'lastPingAt' | 'nextDueAt' | 'dueAt' | 'dueShard' | 'startedAt' | 'lastSignalAt'>>;

type TimingKey = 'status' | 'lastPingAt' | 'nextDueAt' | 'dueAt' | 'dueShard' | 'startedAt' | 'lastSignalAt';
export type StatusChanges = { set: Partial<Pick<CheckItem, TimingKey>>; remove: Exclude<TimingKey, 'status'>[] };
export type StatusChange = { from: CheckStatus; to: CheckStatus };

export type PingOutcome = {
  changes: StatusChanges;
  /** The status after the ping (unchanged for `start`, for paused and for outbound checks). */
  status: CheckStatus;
  signal: { type: 'SUCCESS' | 'FAIL' | 'START'; durationMs?: number };
  /** Set when the status moved: the incident worker must hear about it. */
  statusChange: StatusChange | null;
};

export type SweepOutcome = {
  /** null: nothing to write. */
  changes: StatusChanges | null;
  status: CheckStatus;
  signal: 'SUSPECT' | 'FAIL' | null;
  statusChange: StatusChange | null;
};

/**
 * The sweep reads every shard of the `byDue` index. One shard serves well past 10,000 checks;
 * growing it means raising the count here (writers spread by check id, the sweep reads each).
 */
export const DUE_SHARD_COUNT = 1;
export const DUE_SHARDS: readonly string[] = Array.from({ length: DUE_SHARD_COUNT }, (_, i) => String(i));
export const dueShardFor = (checkId: number): string => (DUE_SHARD_COUNT === 1 ? DUE_SHARD : String(checkId % DUE_SHARD_COUNT));

/** A START older than this is a run that never reported back: no duration for it. */
export const MAX_RUN_MS = 24 * 60 * 60 * 1000;

const plusSeconds = (at: Date, seconds: number): Date => new Date(at.getTime() + seconds * 1000);

/** Only inbound checks that are not paused follow ping timing. */
const isTimed = (check: Pick<CheckTiming, 'status' | 'checkMode'>): boolean =>
  check.checkMode === 'INBOUND' && check.status !== 'PAUSED';

/**
 * A ping arrived. `success` makes a timed check OK and due one interval from now; `fail` makes it
 * DOWN at once (no pending transition: the next success brings it back); `start` only marks the
 * run so that the next SUCCESS or FAIL carries its duration. Paused and outbound checks record
 * the signal and keep their status.
 */
export function onPing(check: Omit<CheckTiming, 'graceSeconds'>, now: Date, kind: PingKind): PingOutcome {
  const iso = now.toISOString();
  if (kind === 'start') {
    return { changes: { set: { startedAt: iso }, remove: [] }, status: check.status, signal: { type: 'START' }, statusChange: null };
  }
  const signal: PingOutcome['signal'] = { type: kind === 'success' ? 'SUCCESS' : 'FAIL' };
  const durationMs = runDuration(check.startedAt, now);
  if (durationMs !== undefined) signal.durationMs = durationMs;
  const base: StatusChanges = { set: { lastPingAt: iso, lastSignalAt: iso }, remove: ['startedAt'] };
  if (!isTimed(check)) return { changes: base, status: check.status, signal, statusChange: null };

  const nextDueAt = plusSeconds(now, check.intervalSeconds).toISOString();
  const to: CheckStatus = kind === 'success' ? 'OK' : 'DOWN';
  const changes: StatusChanges =
    to === 'OK'
      ? { set: { ...base.set, status: to, nextDueAt, dueAt: nextDueAt, dueShard: dueShardFor(check.checkId) }, remove: base.remove }
      : { set: { ...base.set, status: to, nextDueAt }, remove: [...base.remove, 'dueAt', 'dueShard'] };
  return { changes, status: to, signal, statusChange: check.status === to ? null : { from: check.status, to } };
}

function runDuration(startedAt: string | undefined, now: Date): number | undefined {
  if (!startedAt) return undefined;
  const ms = now.getTime() - Date.parse(startedAt);
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_RUN_MS ? ms : undefined;
}

/**
 * The sweep looks at a check whose `dueAt` has passed. `held` (an active deployment window on the
 * project, or a maintenance window suppressing incidents) keeps it where it is and still due, so
 * it moves on the first sweep after the window. Applying the outcome and sweeping again at the
 * same instant changes nothing.
 */
export function onSweep(check: CheckTiming, now: Date, held: boolean): SweepOutcome {
  const unchanged: SweepOutcome = { changes: null, status: check.status, signal: null, statusChange: null };
  // A check that never pinged waits for nothing (DESIGN 6: never alerted), even once resumed.
  const waits = isTimed(check) && (check.status === 'OK' || check.status === 'LATE' || (check.status === 'RESUMED' && check.lastPingAt !== undefined));
  if (!waits || !check.nextDueAt) {
    // Nothing pending: a stale index entry is dropped so the sweep stops reading it.
    if (check.dueAt === undefined && check.dueShard === undefined) return unchanged;
    return { ...unchanged, changes: { set: {}, remove: ['dueAt', 'dueShard'] } };
  }
  if (held) return unchanged;

  const lateAt = new Date(check.nextDueAt);
  const downAt = plusSeconds(lateAt, check.graceSeconds);
  const at = now.getTime();
  if (at > downAt.getTime()) {
    return {
      changes: { set: { status: 'DOWN' }, remove: ['dueAt', 'dueShard'] },
      status: 'DOWN',
      signal: 'FAIL',
      statusChange: { from: check.status, to: 'DOWN' },
    };
  }
  const shard = dueShardFor(check.checkId);
  if (at > lateAt.getTime()) {
    const dueAt = downAt.toISOString();
    if (check.status === 'LATE') {
      return check.dueAt === dueAt && check.dueShard === shard ? unchanged : { ...unchanged, changes: { set: { dueAt, dueShard: shard }, remove: [] } };
    }
    return {
      changes: { set: { status: 'LATE', dueAt, dueShard: shard }, remove: [] },
      status: 'LATE',
      signal: 'SUSPECT',
      statusChange: { from: check.status, to: 'LATE' },
    };
  }
  // Not due yet (the sweep ran early, or an interval grew): point the index at the real deadline.
  const dueAt = check.status === 'LATE' ? downAt.toISOString() : lateAt.toISOString();
  if (check.dueAt === dueAt && check.dueShard === shard) return unchanged;
  return { ...unchanged, changes: { set: { dueAt, dueShard: shard }, remove: [] } };
}

/** The check as it stands after `changes` (tests and callers that keep working on it). */
export function applyChanges<T extends CheckTiming>(check: T, changes: StatusChanges | null): T {
  if (!changes) return check;
  const next: T = { ...check, ...changes.set };
  for (const key of changes.remove) if (!(key in changes.set)) delete next[key];
  return next;
}
