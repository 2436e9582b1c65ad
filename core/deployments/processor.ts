import type { Deps } from '../deps.js';
import { DEPLOYMENT_DUE_SHARD, reconcileDeployment } from './reconcile.js';

/**
 * The sweep's deployment step: starts SCHEDULED deployments whose start has come, auto-ends those
 * past their TTL or scheduled end (resuming what they paused), and finishes effects a crashed
 * request left half done. Reads only the sparse due index and re-reads each deployment
 * consistently (the index lags). Returns how many it looked at.
 */
export async function processDeployments(deps: Deps, now: Date): Promise<number> {
  const entity = deps.store.entities.deployment;
  const due = await entity.query
    .byDue({ deploymentDueShard: DEPLOYMENT_DUE_SHARD })
    .lte({ deploymentDueAt: now.toISOString() })
    .go({ pages: 'all' });
  let processed = 0;
  for (const stale of due.data) {
    try {
      const d = (await entity.get({ deploymentId: stale.deploymentId }).go({ consistent: true })).data;
      if (!d?.deploymentDueAt || Date.parse(d.deploymentDueAt) > now.getTime()) continue;
      await reconcileDeployment(deps, d, now);
      processed++;
    } catch (err) {
      // One failing deployment must not stall the others; it stays due and is retried next run.
      console.error(`deployment step: deployment ${stale.deploymentId} failed`, err);
    }
  }
  return processed;
}
