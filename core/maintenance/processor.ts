import type { Deps } from '../deps.js';
import { notYetDue, sweepDue, type DueSweepReport } from '../store/dueSweep.js';
import { reconcileWindow, WINDOW_DUE_SHARD } from './reconcile.js';

/**
 * The maintenance window processor (every 60 s on AWS, each local sweep): starts windows whose
 * occurrence began, completes or advances those whose occurrence ended, and finishes writes a
 * crashed request left behind. Reads only the sparse due index; each window is re-read
 * consistently (the index lags) and skipped if it is not due after all. One bad window stays due
 * for the next sweep and does not stall the others.
 */
export async function processMaintenanceWindows(deps: Deps, now: Date): Promise<DueSweepReport> {
  const entity = deps.store.entities.maintenanceWindow;
  return sweepDue({
    name: 'maintenance processor',
    shards: [WINDOW_DUE_SHARD],
    page: (dueShard, cursor, limit) => entity.query.byDue({ dueShard }).lte({ dueAt: now.toISOString() }).go({ cursor, limit }),
    reread: async (stale) => {
      const window = (await entity.get({ maintenanceWindowId: stale.maintenanceWindowId }).go({ consistent: true })).data;
      return window && !notYetDue(window.dueAt, now) ? window : null;
    },
    handle: (window) => reconcileWindow(deps, window, now),
    label: (window) => `window ${window.maintenanceWindowId}`,
  });
}
