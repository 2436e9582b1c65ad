import type { Deps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import type { CheckItem } from '../store/entities/check.js';
import type { DeploymentItem } from '../store/entities/deployment.js';
import { retryOnConflict } from '../store/conditional.js';
import { deleteDeploymentHold, pauseCandidates, pauseTargets, putDeploymentHold, resumePaused, targetsById } from './effects.js';
import { transitionDeployment, type DeploymentEffect, type DeploymentEvent, type DeploymentRejection, type DeploymentState } from './transition.js';

/** The sweep's partition of the sparse due index for deployments (its own attribute name). */
export const DEPLOYMENT_DUE_SHARD = 'deployment';

/** A run is a handful of steps (start: find, record intent, pause, record; end: resume, record). */
const MAX_STEPS = 10;
const ATTEMPTS = 4;

const REJECTIONS: Record<DeploymentRejection, { path: string; message: string }> = {
  END_NOT_AFTER_START: { path: 'endedAt', message: 'must be after the start' },
  PLANNED_END_PASSED: { path: 'scheduledEndAt', message: 'must be in the future' },
  END_IN_FUTURE: { path: 'endedAt', message: 'must not be in the future' },
  END_BEFORE_START: { path: 'endedAt', message: 'must not be before startedAt' },
};

export const deploymentState = (d: DeploymentItem): DeploymentState => ({
  status: d.status,
  startedAt: d.startedAt,
  scheduledEndAt: d.scheduledEndAt ?? null,
  endedAt: d.endedAt ?? null,
  autoPause: d.autoPause,
  autoPausedCheckIds: d.autoPausedCheckIds,
  startEffectsAt: d.startEffectsAt ?? null,
  endEffectsAt: d.endEffectsAt ?? null,
  dueAt: d.dueAt ?? null,
});

async function read(deps: Deps, deploymentId: number): Promise<DeploymentItem | undefined> {
  return (await deps.store.entities.deployment.get({ deploymentId }).go({ consistent: true })).data ?? undefined;
}

/** The one write: the new state, landing only while the deployment still has the status read. */
async function writeState(deps: Deps, d: DeploymentItem, next: DeploymentState, now: Date): Promise<DeploymentItem> {
  const set = {
    status: next.status,
    autoPausedCheckIds: [...next.autoPausedCheckIds],
    updatedAt: now.toISOString(),
    ...(next.endedAt !== null ? { endedAt: next.endedAt } : {}),
    ...(next.startEffectsAt !== null ? { startEffectsAt: next.startEffectsAt } : {}),
    ...(next.endEffectsAt !== null ? { endEffectsAt: next.endEffectsAt } : {}),
    ...(next.dueAt !== null ? { dueShard: DEPLOYMENT_DUE_SHARD, dueAt: next.dueAt } : {}),
  };
  const base = deps.store.entities.deployment.patch({ deploymentId: d.deploymentId }).set(set);
  await (next.dueAt === null ? base.remove(['dueShard', 'dueAt']) : base).where((attr, op) => op.eq(attr.status, d.status)).go();
  const written: DeploymentItem = { ...d, ...set };
  if (next.dueAt === null) {
    delete written.dueShard;
    delete written.dueAt;
  }
  return written;
}

/**
 * Read, transition, one conditional write on the status read; a lost race reads again and
 * applies the same event to what is there now. The effects come back for the caller to perform.
 */
async function apply(deps: Deps, start: DeploymentItem, event: DeploymentEvent, now: Date): Promise<{ d: DeploymentItem; effects: DeploymentEffect[] }> {
  return retryOnConflict(
    async (attempt) => {
      const d = attempt === 1 ? start : await read(deps, start.deploymentId);
      // Deleted with its project meanwhile: nothing is left to do for it.
      if (!d) return { d: start, effects: [] };
      const result = transitionDeployment(deploymentState(d), event, now);
      if (!result.ok) {
        const { path, message } = REJECTIONS[result.code];
        throw badRequest(`${path} ${message}`, [{ path, message }]);
      }
      return { d: result.changed ? await writeState(deps, d, result.state, now) : d, effects: result.effects };
    },
    { attempts: ATTEMPTS, what: `deployment ${start.deploymentId}` },
  );
}

/** Performs the effects in order; returns the event the last of them reports, if any. */
async function perform(deps: Deps, d: DeploymentItem, effects: readonly DeploymentEffect[], seen: Map<number, CheckItem>, now: Date): Promise<DeploymentEvent | null> {
  let report: DeploymentEvent | null = null;
  for (const effect of effects) {
    switch (effect.type) {
      case 'putHold':
        await putDeploymentHold(deps, d);
        break;
      case 'deleteHold':
        await deleteDeploymentHold(deps, d);
        break;
      case 'findPauseTargets': {
        const candidates = await pauseCandidates(deps, d);
        for (const check of candidates) seen.set(check.checkId, check);
        report = { type: 'pausing', checkIds: candidates.map((c) => c.checkId) };
        break;
      }
      case 'pauseChecks':
        report = { type: 'started', paused: await pauseTargets(deps, d, await targetsById(deps, effect.checkIds, seen), now) };
        break;
      case 'resumeChecks':
        await resumePaused(deps, d, effect.checkIds, now);
        break;
      case 'confirm':
        report = effect.event;
        break;
    }
  }
  return report;
}

/**
 * Runs one event and the events its effects report, until nothing is left to do. Every step is a
 * conditional write followed by idempotent effects, so running it twice or concurrently is safe,
 * and a crash leaves the deployment due for the sweep to finish.
 */
export async function runDeployment(deps: Deps, start: DeploymentItem, event: DeploymentEvent, now: Date): Promise<DeploymentItem> {
  const seen = new Map<number, CheckItem>();
  let d = start;
  let next: DeploymentEvent | null = event;
  for (let step = 0; next !== null && step < MAX_STEPS; step++) {
    const applied = await apply(deps, d, next, now);
    d = applied.d;
    next = await perform(deps, d, applied.effects, seen, now);
  }
  return d;
}

/**
 * Brings a deployment's effects in line with its status and `now`: a SCHEDULED one whose start has
 * come becomes ACTIVE; an ACTIVE one gets its hold and (autoPause) pauses its checks; one past its
 * scheduled end is ENDED; an ENDED one resumes what it paused and drops its hold. Every write path
 * leaves `dueAt` at "now" before calling this, so the sweep finishes what a crashed
 * request left half done.
 */
export function reconcileDeployment(deps: Deps, d: DeploymentItem, now: Date): Promise<DeploymentItem> {
  return runDeployment(deps, d, { type: 'tick' }, now);
}
