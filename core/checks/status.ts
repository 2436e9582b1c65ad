import type { CheckItem } from '../store/entities/check.js';
import type { StatusChangeCause } from './events.js';
import { awaitsTiming, downAtOf, dueShardFor, lateAtOf, nextDueAfter } from './timing.js';

/**
 * Check status (docs/guide/checks-and-pings.md, docs/guide/probes.md): every way a check's status moves, as one
 * pure function of what was read, what was observed and the unit of work's instant. It returns
 * the fields to write (`changes`) and the effects to perform (`signal` to record, `statusChange`
 * to publish as `check.status_changed`); the caller persists with a conditional write on what it
 * read, then performs the effects. `dueAt` is set only while a LATE or DOWN is pending, which
 * keeps the sweep's index sparse, and it is the instant of that move itself (nextDueAt + grace,
 * then nextDueAt + 2 x grace), so the sweep reads a check only when it actually moves.
 */

export type CheckStatus = CheckItem['status'];
/** `log` stores its body as a LOG signal and changes nothing else. */
export type PingKind = 'success' | 'fail' | 'start' | 'log';
export type PauseCause = 'USER' | 'DEPLOYMENT';

export type PingObservation = { type: 'ping'; kind: PingKind };
export type SweepObservation = { type: 'sweep'; held: boolean };
export type CheckObservation =
  | PingObservation
  /** `held`: a deployment window, or a maintenance window suppressing incidents, covers the project. */
  | SweepObservation
  | { type: 'pause'; cause: PauseCause }
  | { type: 'resume'; cause: PauseCause }
  /** The probe fold's verdict (core/probes/rules.ts): the round streaks call for this status. */
  | { type: 'probe'; verdict: 'OK' | 'DOWN' };

/** What the transitions read from a check. */
export type CheckTiming = Pick<CheckItem, 'checkId' | 'status' | 'checkMode' | 'intervalSeconds' | 'graceSeconds'> &
  Partial<Pick<CheckItem, 'lastPingAt' | 'nextDueAt' | 'dueAt' | 'dueShard' | 'startedAt' | 'lastSignalAt' | 'deploymentPaused' | 'jobRules'>>;
/** A ping reads the grace too: the check's due-index entry goes where it turns LATE. */
export type PingState = CheckTiming;

type StatusKey = 'status' | 'lastPingAt' | 'nextDueAt' | 'dueAt' | 'dueShard' | 'startedAt' | 'lastSignalAt' | 'deploymentPaused' | 'updatedAt';
export type StatusChanges = { set: Partial<Pick<CheckItem, StatusKey>>; remove: Exclude<StatusKey, 'status' | 'updatedAt'>[] };
export type StatusChange = { from: CheckStatus; to: CheckStatus };

export type CheckTransition = {
  /** The status after the observation. */
  status: CheckStatus;
  /** null: nothing to write. */
  changes: StatusChanges | null;
  /** Set exactly when the status moved: the incident worker must hear about it. */
  statusChange: StatusChange | null;
};

export type PingOutcome = CheckTransition & {
  /** A ping always writes (at least its dedup marker). */
  changes: StatusChanges;
  signal: { type: 'SUCCESS' | 'FAIL' | 'START' | 'LOG'; durationMs?: number };
};

export type SweepOutcome = CheckTransition & { signal: 'SUSPECT' | 'FAIL' | null };

/** One object per kind, so the ping path allocates no observation. */
export const PING_OBSERVATIONS: Readonly<Record<PingKind, PingObservation>> = {
  success: { type: 'ping', kind: 'success' },
  fail: { type: 'ping', kind: 'fail' },
  start: { type: 'ping', kind: 'start' },
  log: { type: 'ping', kind: 'log' },
};

/** A START older than this is a run that never reported back: no duration for it. */
export const MAX_RUN_MS = 24 * 60 * 60 * 1000;

export function nextCheckStatus(prev: PingState, observation: PingObservation, now: Date): PingOutcome;
export function nextCheckStatus(prev: CheckTiming, observation: SweepObservation, now: Date): SweepOutcome;
export function nextCheckStatus(prev: CheckTiming, observation: CheckObservation, now: Date): CheckTransition;
export function nextCheckStatus(prev: PingState | CheckTiming, observation: CheckObservation, now: Date): CheckTransition {
  if (observation.type === 'ping') return onPing(prev, now, observation.kind);
  // The overloads give every other observation the whole timing.
  const check = prev as CheckTiming;
  switch (observation.type) {
    case 'sweep':
      return onSweep(check, now, observation.held);
    case 'pause':
      return onPause(check, observation.cause, now);
    case 'resume':
      return onResume(check, observation.cause, now);
    case 'probe':
      return onProbeVerdict(check, observation.verdict, now);
  }
}

/** The cause a `check.status_changed` names for a move made by this observation. */
export function causeOf(observation: CheckObservation): StatusChangeCause {
  switch (observation.type) {
    case 'ping':
      return observation.kind === 'fail' ? 'FAIL_PING' : 'PING';
    case 'sweep':
      return 'SWEEP';
    case 'pause':
      return observation.cause === 'DEPLOYMENT' ? 'DEPLOYMENT' : 'PAUSE';
    case 'resume':
      return observation.cause === 'DEPLOYMENT' ? 'DEPLOYMENT' : 'RESUME';
    case 'probe':
      return 'PROBE';
  }
}

/** Only inbound checks that are not paused follow ping timing. */
const isTimed = (check: Pick<CheckTiming, 'status' | 'checkMode'>): boolean => check.checkMode === 'INBOUND' && check.status !== 'PAUSED';
const moved = (from: CheckStatus, to: CheckStatus): StatusChange | null => (from === to ? null : { from, to });

/**
 * A ping arrived. `success` makes a timed check OK and due one interval from now; `fail` makes it
 * DOWN at once (no pending transition: the next success brings it back); `start` only marks the
 * run so that the next SUCCESS or FAIL carries its duration. Paused and outbound checks record
 * the signal and keep their status. Cheap on purpose: the ping path runs it twice per ping.
 */
export function onPing(check: PingState, now: Date, kind: PingKind): PingOutcome {
  const iso = now.toISOString();
  if (kind === 'log') return { changes: { set: {}, remove: [] }, status: check.status, signal: { type: 'LOG' }, statusChange: null };
  if (kind === 'start') {
    return { changes: { set: { startedAt: iso }, remove: [] }, status: check.status, signal: { type: 'START' }, statusChange: null };
  }
  const signal: PingOutcome['signal'] = { type: kind === 'success' ? 'SUCCESS' : 'FAIL' };
  const durationMs = runDuration(check.startedAt, now);
  if (durationMs !== undefined) signal.durationMs = durationMs;
  if (!isTimed(check)) return { changes: { set: { lastPingAt: iso, lastSignalAt: iso }, remove: ['startedAt'] }, status: check.status, signal, statusChange: null };

  const due = nextDueAfter(check, now);
  const nextDueAt = due.toISOString();
  const to: CheckStatus = kind === 'success' ? 'OK' : 'DOWN';
  // The index entry waits for the LATE instant itself, so a steady check is never read by the sweep.
  const changes: StatusChanges =
    to === 'OK'
      ? {
          set: { lastPingAt: iso, lastSignalAt: iso, status: to, nextDueAt, dueAt: lateAtOf(due, check.graceSeconds).toISOString(), dueShard: dueShardFor(check.checkId) },
          remove: ['startedAt'],
        }
      : { set: { lastPingAt: iso, lastSignalAt: iso, status: to, nextDueAt }, remove: ['startedAt', 'dueAt', 'dueShard'] };
  return { changes, status: to, signal, statusChange: moved(check.status, to) };
}

function runDuration(startedAt: string | undefined, now: Date): number | undefined {
  if (!startedAt) return undefined;
  const ms = now.getTime() - Date.parse(startedAt);
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_RUN_MS ? ms : undefined;
}

/**
 * The sweep looks at a check whose `dueAt` has passed. `held` keeps it where it is and still due,
 * so it moves on the first sweep after the window. Applying the outcome and sweeping again at the
 * same instant changes nothing.
 */
export function onSweep(check: CheckTiming, now: Date, held: boolean): SweepOutcome {
  const unchanged: SweepOutcome = { changes: null, status: check.status, signal: null, statusChange: null };
  if (!awaitsTiming(check) || !check.nextDueAt) {
    // Nothing pending: a stale index entry is dropped so the sweep stops reading it.
    if (check.dueAt === undefined && check.dueShard === undefined) return unchanged;
    return { ...unchanged, changes: { set: {}, remove: ['dueAt', 'dueShard'] } };
  }
  if (held) return unchanged;

  const lateAt = lateAtOf(new Date(check.nextDueAt), check.graceSeconds);
  const downAt = downAtOf(new Date(check.nextDueAt), check.graceSeconds);
  const at = now.getTime();
  if (at > downAt.getTime()) {
    return { changes: { set: { status: 'DOWN' }, remove: ['dueAt', 'dueShard'] }, status: 'DOWN', signal: 'FAIL', statusChange: { from: check.status, to: 'DOWN' } };
  }
  const shard = dueShardFor(check.checkId);
  if (at > lateAt.getTime()) {
    const dueAt = downAt.toISOString();
    if (check.status === 'LATE') {
      return check.dueAt === dueAt && check.dueShard === shard ? unchanged : { ...unchanged, changes: { set: { dueAt, dueShard: shard }, remove: [] } };
    }
    return { changes: { set: { status: 'LATE', dueAt, dueShard: shard }, remove: [] }, status: 'LATE', signal: 'SUSPECT', statusChange: { from: check.status, to: 'LATE' } };
  }
  // Not due yet (the sweep ran early, or an interval grew): point the index at the real deadline.
  const dueAt = check.status === 'LATE' ? downAt.toISOString() : lateAt.toISOString();
  if (check.dueAt === dueAt && check.dueShard === shard) return unchanged;
  return { ...unchanged, changes: { set: { dueAt, dueShard: shard }, remove: [] } };
}

/**
 * Any status -> PAUSED: the due index is cleared (no LATE/DOWN while paused). Pausing a paused
 * check changes nothing, except that a user pausing a check a deployment holds takes the pause
 * over, so that the deployment's end does not resume it.
 */
function onPause(check: CheckTiming, cause: PauseCause, now: Date): CheckTransition {
  const updatedAt = now.toISOString();
  if (check.status === 'PAUSED') {
    const takeOver = cause === 'USER' && check.deploymentPaused === true;
    return { status: 'PAUSED', changes: takeOver ? { set: { updatedAt }, remove: ['deploymentPaused'] } : null, statusChange: null };
  }
  const changes: StatusChanges =
    cause === 'DEPLOYMENT'
      ? { set: { status: 'PAUSED', updatedAt, deploymentPaused: true }, remove: ['dueAt', 'dueShard'] }
      : { set: { status: 'PAUSED', updatedAt }, remove: ['dueAt', 'dueShard', 'deploymentPaused'] };
  return { status: 'PAUSED', changes, statusChange: { from: check.status, to: 'PAUSED' } };
}

/**
 * PAUSED -> RESUMED: monitoring restarts from the next expected interval (spec: nextDueAt = now +
 * interval), and the check waits on it only if `awaitsTiming` says so. Resuming a check that is
 * not paused changes nothing; a deployment resumes only the checks it paused itself.
 */
function onResume(check: CheckTiming, cause: PauseCause, now: Date): CheckTransition {
  if (check.status !== 'PAUSED' || (cause === 'DEPLOYMENT' && check.deploymentPaused !== true)) return { status: check.status, changes: null, statusChange: null };
  const due = nextDueAfter(check, now);
  const set: StatusChanges['set'] = { status: 'RESUMED', updatedAt: now.toISOString(), nextDueAt: due.toISOString() };
  const changes: StatusChanges = awaitsTiming({ ...check, status: 'RESUMED' })
    ? { set: { ...set, dueShard: dueShardFor(check.checkId), dueAt: lateAtOf(due, check.graceSeconds).toISOString() }, remove: ['deploymentPaused'] }
    : { set, remove: ['deploymentPaused', 'dueAt', 'dueShard'] };
  return { status: 'RESUMED', changes, statusChange: { from: 'PAUSED', to: 'RESUMED' } };
}

/** An outbound check takes the probe fold's verdict unless it is paused (then it is not judged). */
function onProbeVerdict(check: CheckTiming, verdict: 'OK' | 'DOWN', now: Date): CheckTransition {
  if (check.checkMode !== 'OUTBOUND' || check.status === 'PAUSED' || check.status === verdict) return { status: check.status, changes: null, statusChange: null };
  return { status: verdict, changes: { set: { status: verdict, updatedAt: now.toISOString() }, remove: [] }, statusChange: { from: check.status, to: verdict } };
}

/** The check as it stands after `changes` (tests and callers that keep working on it). */
export function applyChanges<T extends PingState>(check: T, changes: StatusChanges | null): T {
  if (!changes) return check;
  const next: T = { ...check, ...changes.set };
  for (const key of changes.remove) if (!(key in changes.set)) delete next[key];
  return next;
}
