import type { CheckStatusChanged } from '../checks/events.js';
import type { Deps } from '../deps.js';
import { recordStatusInterval } from './store/rollups.js';
import { refreshPagesOfCheck } from './store/snapshot.js';

/**
 * What a check's status change means for status pages (called by the incidents worker, once per
 * message): the closed interval goes into the uptime rollups, then the pages that show the check
 * get a fresh snapshot. Both are idempotent, so a redelivered message changes nothing.
 */
export async function onCheckStatusChangedForPages(deps: Deps, change: CheckStatusChanged): Promise<void> {
  await recordStatusInterval(deps, change);
  await refreshPagesOfCheck(deps, change.checkId, change.projectId);
}
