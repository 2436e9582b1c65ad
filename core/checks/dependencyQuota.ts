import { PLAN_LIMITS, planLimitExceeded } from '../auth/plans.js';
import type { Deps } from '../deps.js';
import { quotaKey, releaseQuotaSlot, seedQuota, takeQuotaSlot } from '../store/quotaCounter.js';

/**
 * How many dependencies a workspace holds, as one counter item (core/store/quotaCounter.ts): a new
 * dependency (manual or reported by a ping payload) takes a slot below the plan's limit, a delete
 * gives it back. Exact under concurrent reports, one write each. The item is seeded from the
 * workspace's dependencies the first time it is needed. It lives beside the dependency registry
 * (reports take slots) in checks, below the dependencies resource.
 */
const key = (workspaceId: number) => quotaKey('dependencyQuota', workspaceId);

export async function dependencyLimitOf(deps: Deps, workspaceId: number): Promise<number> {
  const workspace = (await deps.store.entities.workspace.get({ workspaceId }).go()).data;
  return PLAN_LIMITS[workspace?.plan ?? deps.config.defaultPlan].dependencies;
}

/** Takes a slot for a new dependency; false when the workspace is at its plan's limit. */
export async function tryTakeDependencySlot(deps: Deps, workspaceId: number): Promise<boolean> {
  const limit = await dependencyLimitOf(deps, workspaceId);
  await seedQuota(deps.store, key(workspaceId), async () => {
    const existing = await deps.store.entities.dependency.query.byWorkspace({ workspaceId }).go({ pages: 'all', attributes: ['dependencyId'] });
    return existing.data.length;
  });
  return takeQuotaSlot(deps.store, key(workspaceId), limit);
}

/** Takes a slot or 403s PLAN_LIMIT_EXCEEDED (a dependency created by hand). */
export async function takeDependencySlot(deps: Deps, workspaceId: number): Promise<void> {
  if (!(await tryTakeDependencySlot(deps, workspaceId))) {
    throw planLimitExceeded(`Your plan allows ${await dependencyLimitOf(deps, workspaceId)} dependencies per workspace`);
  }
}

/** Gives a slot back (a deleted dependency, a create that failed after taking it); never below zero. */
export async function releaseDependencySlot(deps: Deps, workspaceId: number): Promise<void> {
  await releaseQuotaSlot(deps.store, key(workspaceId));
}
