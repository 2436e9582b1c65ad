import type { Deps } from '../deps.js';
import type { CheckItem } from '../store/entities/check.js';
import { statusChangeOwed } from './events.js';
import { updateCheckGuarded } from './repository.js';
import { syncProbeSchedules } from './schedules.js';
import { causeOf, nextCheckStatus, type CheckObservation, type CheckTransition, type PauseCause } from './status.js';

export type { PauseCause } from './status.js';

export type PauseOptions = { cause: PauseCause; now: Date };

/**
 * Any status -> PAUSED (rules: `nextCheckStatus`). A conditional write on the status it read, so
 * a ping racing the pause makes it read again; pausing a paused check changes nothing and returns
 * it. Probe schedules are disabled.
 */
export function pauseCheck(deps: Deps, check: CheckItem, opts: PauseOptions): Promise<CheckItem> {
  return applyManual(deps, check, { type: 'pause', cause: opts.cause }, opts.now);
}

/**
 * PAUSED -> RESUMED: monitoring restarts from the next expected interval. Resuming a check that
 * is not paused changes nothing; a deployment ending resumes only the checks it paused itself.
 */
export function resumeCheck(deps: Deps, check: CheckItem, opts: PauseOptions): Promise<CheckItem> {
  return applyManual(deps, check, { type: 'resume', cause: opts.cause }, opts.now);
}

async function applyManual(deps: Deps, check: CheckItem, observation: CheckObservation, now: Date): Promise<CheckItem> {
  let transition: CheckTransition | undefined;
  const written = await updateCheckGuarded(deps, check.token, (current) => {
    // Judged afresh on every attempt: a retry may find the check already moved by someone else.
    // The move owes its message in the same write (relayed by updateCheckGuarded right after).
    transition = nextCheckStatus(current, observation, now);
    const { changes, statusChange } = transition;
    return changes && statusChange ? { ...changes, outbox: statusChangeOwed(current, statusChange, causeOf(observation), now) } : changes;
  });
  if (!transition?.statusChange) return written;
  await syncProbeSchedules(deps, check, written);
  return written;
}
