import type { Deps } from '../deps.js';
import { reconcileWindow, WINDOW_DUE_SHARD } from './reconcile.js';

/**
 * The maintenance window processor (every 60 s on AWS, each local sweep): starts windows whose
 * occurrence began, completes or advances those whose occurrence ended, and finishes writes a
 * crashed request left behind. Reads only the sparse due index; each window is re-read
 * consistently (the index lags) and skipped if it is not due after all. Returns how many it moved.
 */
export async function processMaintenanceWindows(deps: Deps, now: Date): Promise<number> {
  const entity = deps.store.entities.maintenanceWindow;
  const due = await entity.query.byDue({ windowDueShard: WINDOW_DUE_SHARD }).lte({ windowDueAt: now.toISOString() }).go({ pages: 'all' });
  let processed = 0;
  for (const stale of due.data) {
    try {
      const window = (await entity.get({ maintenanceWindowId: stale.maintenanceWindowId }).go({ consistent: true })).data;
      if (!window?.windowDueAt || Date.parse(window.windowDueAt) > now.getTime()) continue;
      await reconcileWindow(deps, window, now);
      processed++;
    } catch (err) {
      // One bad window must not stall the others; it stays due and is retried next run.
      console.error(`maintenance processor: window ${stale.maintenanceWindowId} failed`, err);
    }
  }
  return processed;
}
