import type { Deps } from '../deps.js';
import type { CheckItem } from '../store/entities/check.js';
import type { CheckStatusChanged } from './events.js';
import { updateCheckGuarded } from './repository.js';
import { syncProbeSchedules } from './schedules.js';
import { resumedTiming } from './timing.js';

export type PauseCause = 'USER' | 'DEPLOYMENT';
export type PauseOptions = { cause: PauseCause; now: Date };

/** Publishes the status change to the incident worker when there was one. */
export async function publishStatusChange(
  deps: Deps,
  check: Pick<CheckItem, 'checkId' | 'workspaceId' | 'projectId'>,
  from: CheckItem['status'],
  to: CheckItem['status'],
  cause: CheckStatusChanged['cause'],
  now: Date,
): Promise<void> {
  const message: CheckStatusChanged = {
    type: 'check.status_changed',
    checkId: check.checkId,
    workspaceId: check.workspaceId,
    projectId: check.projectId ?? null,
    from,
    to,
    at: now.toISOString(),
    cause,
  };
  await deps.queue.publish('incidents', [message]);
}

/**
 * Any status -> PAUSED (spec "Check status"). A conditional write on the status it read, so a
 * ping racing the pause makes it read again; pausing a paused check changes nothing and returns
 * it. The due index is cleared (no LATE/DOWN while paused) and probe schedules are disabled.
 */
export async function pauseCheck(deps: Deps, check: CheckItem, opts: PauseOptions): Promise<CheckItem> {
  let from: CheckItem['status'] | undefined;
  const paused = await updateCheckGuarded(deps, check.token, (current) => {
    // Derived afresh on every attempt: a retry may find the check already paused by someone else.
    from = undefined;
    if (current.status === 'PAUSED') {
      // A user pausing a check a deployment holds takes the pause over: the deployment's end must not resume it.
      if (opts.cause === 'USER' && current.deploymentPaused === true) return { set: { updatedAt: opts.now.toISOString() }, remove: ['deploymentPaused'] };
      return null;
    }
    from = current.status;
    return {
      set: { status: 'PAUSED', updatedAt: opts.now.toISOString(), ...(opts.cause === 'DEPLOYMENT' ? { deploymentPaused: true } : {}) },
      remove: ['dueAt', 'dueShard', ...(opts.cause === 'DEPLOYMENT' ? [] : ['deploymentPaused' as const])],
    };
  });
  if (from === undefined) return paused;
  await syncProbeSchedules(deps, check, paused);
  await publishStatusChange(deps, paused, from, 'PAUSED', opts.cause === 'DEPLOYMENT' ? 'DEPLOYMENT' : 'PAUSE', opts.now);
  return paused;
}

/**
 * PAUSED -> RESUMED: monitoring restarts from the next expected interval (nextDueAt = now +
 * interval). Resuming a check that is not paused changes nothing. A deployment ending resumes only
 * the checks it paused itself, never one a user paused.
 */
export async function resumeCheck(deps: Deps, check: CheckItem, opts: PauseOptions): Promise<CheckItem> {
  let resumed = false;
  const result = await updateCheckGuarded(deps, check.token, (current) => {
    resumed = false;
    if (current.status !== 'PAUSED') return null;
    if (opts.cause === 'DEPLOYMENT' && current.deploymentPaused !== true) return null;
    resumed = true;
    const timing = resumedTiming(current, opts.now);
    return {
      set: { status: 'RESUMED', updatedAt: opts.now.toISOString(), ...timing.set },
      remove: ['deploymentPaused', ...timing.remove],
    };
  });
  if (!resumed) return result;
  await syncProbeSchedules(deps, check, result);
  await publishStatusChange(deps, result, 'PAUSED', 'RESUMED', opts.cause === 'DEPLOYMENT' ? 'DEPLOYMENT' : 'RESUME', opts.now);
  return result;
}
