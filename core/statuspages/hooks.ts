import type { CheckStatusChanged, DependenciesReported } from '../checks/events.js';
import { dependencyNameKey, dependencyNameScope } from '../checks/dependencyRegistry.js';
import { lockOwner } from '../store/locks.js';
import type { Deps } from '../deps.js';
import { readOncePerBatch } from '../store/batchReads.js';
import { recordStatusInterval } from './store/rollups.js';
import { pagesShowing, refreshPagesOfCheck, refreshPagesOfIntegration, refreshSnapshot } from './store/snapshot.js';

/**
 * What a check's status change means for status pages (called by the incidents worker, once per
 * message): the closed interval goes into the uptime rollups, then the pages that show the check
 * get a fresh snapshot. Both are idempotent, so a redelivered message changes nothing.
 */
export async function onCheckStatusChangedForPages(deps: Deps, change: CheckStatusChanged): Promise<void> {
  await recordStatusInterval(deps, change);
  if (await mayHaveComponents(deps, change.workspaceId)) await refreshPagesOfCheck(deps, change.checkId, change.projectId);
}

/**
 * Whether any status page of the workspace may show one of its checks. A workspace never given a
 * component carries `noStatusComponents` (core/store/entities/workspace.ts), removed before its
 * first component is written; one consistent get per batch and workspace (core/store/batchReads.ts)
 * instead of two component queries per status change, the check's and its project's (in a mass
 * outage, two per flip). A workspace made before the mark, or gone, queries as before.
 */
async function mayHaveComponents(deps: Deps, workspaceId: number): Promise<boolean> {
  const workspace = await readOncePerBatch(deps, `workspace#${workspaceId}`, () => deps.store.entities.workspace.get({ workspaceId }).go({ consistent: true }));
  return workspace.data?.noStatusComponents !== true;
}

/**
 * A ping payload reported dependencies (after the worker recorded their status): pages showing
 * one of them are rebuilt. Names resolve through the registry's per-workspace name lock.
 */
export async function onDependenciesReportedForPages(deps: Deps, report: DependenciesReported): Promise<void> {
  const keys: string[] = [];
  for (const { name } of report.dependencies) {
    const owner = await lockOwner(deps.store, dependencyNameScope(report.workspaceId), dependencyNameKey(name));
    if (owner !== undefined) keys.push(`dependency#${owner}`);
  }
  for (const statusPageId of await pagesShowing(deps, keys)) await refreshSnapshot(deps, statusPageId);
}

/**
 * An integration's incident opened, changed severity or state, or resolved (owed by the incident's
 * own write, core/incidents/repository.ts): pages with a component following the integration are
 * rebuilt. Idempotent like the rest: a rebuild of an unchanged page emits nothing.
 */
export async function onIntegrationIncidentChangedForPages(deps: Deps, integrationId: number): Promise<void> {
  await refreshPagesOfIntegration(deps, integrationId);
}
