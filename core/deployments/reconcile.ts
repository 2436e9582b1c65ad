import type { Deps } from '../deps.js';
import type { DeploymentItem } from '../store/entities/deployment.js';
import { isConditionalFailure } from '../store/conditional.js';
import { deleteDeploymentHold, pauseTargets, putDeploymentHold, resumePaused, targetChecks } from './effects.js';

/** The sweep's partition of the sparse due index for deployments (its own attribute name). */
export const DEPLOYMENT_DUE_SHARD = 'deployment';

type Status = DeploymentItem['status'];
const MAX_PASSES = 4;

async function reload(deps: Deps, d: DeploymentItem): Promise<DeploymentItem> {
  const fresh = (await deps.store.entities.deployment.get({ deploymentId: d.deploymentId }).go({ consistent: true })).data;
  return fresh ?? d;
}

/** A write that only lands while the deployment is still in `expected`; null when it moved on. */
async function patchIf(deps: Deps, d: DeploymentItem, expected: Status, set: Partial<DeploymentItem>, removeDue = false): Promise<DeploymentItem | null> {
  try {
    const base = deps.store.entities.deployment.patch({ deploymentId: d.deploymentId }).set(set);
    const written = await (removeDue ? base.remove(['deploymentDueShard', 'deploymentDueAt']) : base)
      .where((attr, op) => op.eq(attr.status, expected))
      .go({ response: 'all_new' });
    const next = { ...d, ...written.data } as DeploymentItem;
    if (removeDue) {
      delete next.deploymentDueShard;
      delete next.deploymentDueAt;
    }
    return next;
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

/** Points the due index at the next scheduled transition, or takes the deployment out of it. */
async function settleDue(deps: Deps, d: DeploymentItem, at: string | undefined, now: Date): Promise<DeploymentItem> {
  if (d.deploymentDueAt === at) return d;
  const updatedAt = now.toISOString();
  const written = at === undefined
    ? await patchIf(deps, d, d.status, { updatedAt }, true)
    : await patchIf(deps, d, d.status, { deploymentDueShard: DEPLOYMENT_DUE_SHARD, deploymentDueAt: at, updatedAt });
  return written ?? reload(deps, d);
}

/**
 * Brings a deployment's effects in line with its status and `now`: a SCHEDULED one whose start has
 * come becomes ACTIVE; an ACTIVE one gets its hold and (autoPause) pauses its checks; one past its
 * scheduled end is ENDED; an ENDED one resumes what it paused and drops its hold. Every write path
 * leaves `deploymentDueAt` at "now" before calling this, so the sweep finishes what a crashed
 * request left half done. Safe to run twice or concurrently: each step is idempotent and every
 * status change is a conditional write on the status read.
 */
export async function reconcileDeployment(deps: Deps, start: DeploymentItem, now: Date): Promise<DeploymentItem> {
  let d = start;
  const iso = now.toISOString();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    if (d.status === 'SCHEDULED') {
      await putDeploymentHold(deps, d);
      if (Date.parse(d.startedAt) > now.getTime()) return settleDue(deps, d, d.startedAt, now);
      d = (await patchIf(deps, d, 'SCHEDULED', { status: 'ACTIVE', updatedAt: iso })) ?? (await reload(deps, d));
      continue;
    }
    if (d.status === 'ACTIVE') {
      if (!d.startEffectsAt) {
        const started = await applyStart(deps, d, now);
        if (!started) {
          d = await reload(deps, d);
          continue;
        }
        d = started;
      }
      if (!d.scheduledEndAt || Date.parse(d.scheduledEndAt) > now.getTime()) return settleDue(deps, d, d.scheduledEndAt, now);
      d = (await patchIf(deps, d, 'ACTIVE', { status: 'ENDED', endedAt: iso, updatedAt: iso })) ?? (await reload(deps, d));
      continue;
    }
    if (d.endEffectsAt) return settleDue(deps, d, undefined, now);
    await resumePaused(deps, d, d.autoPausedCheckIds, now);
    await deleteDeploymentHold(deps, d);
    return (await patchIf(deps, d, 'ENDED', { endEffectsAt: iso, updatedAt: iso }, true)) ?? reload(deps, d);
  }
  return d;
}

/**
 * Start effects of an ACTIVE deployment: its hold, and with autoPause its target checks paused.
 * The ids about to be paused are written first, so an end that races this step (or a sweep that
 * finishes it after a crash) knows what to resume. Null when the deployment left ACTIVE meanwhile.
 */
async function applyStart(deps: Deps, d: DeploymentItem, now: Date): Promise<DeploymentItem | null> {
  const iso = now.toISOString();
  await putDeploymentHold(deps, d);
  let paused: number[] = [];
  if (d.autoPause) {
    const recorded = new Set(d.autoPausedCheckIds);
    // A check already paused counts as ours only if an earlier, interrupted pass recorded it.
    const candidates = (await targetChecks(deps, d)).filter(
      (c) => c.status !== 'PAUSED' || (recorded.has(c.checkId) && c.deploymentPaused === true),
    );
    const intent = [...new Set([...d.autoPausedCheckIds, ...candidates.map((c) => c.checkId)])];
    if (intent.length > d.autoPausedCheckIds.length && !(await patchIf(deps, d, 'ACTIVE', { autoPausedCheckIds: intent, updatedAt: iso }))) {
      return null;
    }
    paused = await pauseTargets(deps, d, candidates, now);
  }
  const started = await patchIf(deps, d, 'ACTIVE', { startEffectsAt: iso, autoPausedCheckIds: paused, updatedAt: iso });
  if (started) return started;
  // Ended while this step ran; its end may have resumed before these pauses landed, so resume
  // them here too (resuming twice changes nothing) and keep the record complete.
  const fresh = await reload(deps, d);
  const missing = paused.filter((id) => !fresh.autoPausedCheckIds.includes(id));
  if (missing.length > 0) await patchIf(deps, fresh, fresh.status, { autoPausedCheckIds: [...fresh.autoPausedCheckIds, ...missing], updatedAt: iso });
  if (fresh.status === 'ENDED') await resumePaused(deps, fresh, paused, now);
  return null;
}
