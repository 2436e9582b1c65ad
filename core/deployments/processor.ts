import type { Deps } from '../deps.js';
import { notYetDue, sweepDue, type DueSweepReport } from '../store/dueSweep.js';
import { DEPLOYMENT_DUE_SHARD, reconcileDeployment } from './reconcile.js';

/**
 * The sweep's deployment step: starts SCHEDULED deployments whose start has come, auto-ends those
 * past their TTL or scheduled end (resuming what they paused), and finishes effects a crashed
 * request left half done. Reads only the sparse due index and re-reads each deployment
 * consistently (the index lags); one failing deployment stays due for the next sweep.
 */
export async function processDeployments(deps: Deps, now: Date): Promise<DueSweepReport> {
  const entity = deps.store.entities.deployment;
  return sweepDue({
    name: 'deployment step',
    shards: [DEPLOYMENT_DUE_SHARD],
    page: (dueShard, cursor, limit) => entity.query.byDue({ dueShard }).lte({ dueAt: now.toISOString() }).go({ cursor, limit }),
    reread: async (stale) => {
      const d = (await entity.get({ deploymentId: stale.deploymentId }).go({ consistent: true })).data;
      return d && !notYetDue(d.dueAt, now) ? d : null;
    },
    handle: (d) => reconcileDeployment(deps, d, now),
    label: (d) => `deployment ${d.deploymentId}`,
  });
}
