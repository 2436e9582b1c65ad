import type { Ctx } from '../core/context.js';
import { listDashboardChecks } from '../core/checks/dashboard.js';
import { createHeartbeatJob } from '../core/checks/v1.js';
import { createProject } from '../core/identity/projects.js';
import { createWorkspace } from '../core/identity/workspaces.js';
import type { Deps } from '../core/deps.js';
import { percentile } from './load.js';

export type ScaleResult = {
  createP99FirstMs: number;
  createP99LastMs: number;
  createP99Ms: number;
  listPageP99Ms: number;
  created: number;
};

const p99 = (values: number[]): number => percentile(Float64Array.from(values).sort(), 99);

/**
 * A workspace grows to `count` heartbeat jobs through the verb every surface calls (plan limits,
 * counter, id, writes), `clients` at a time, and then lists pages of 10 out of them. In-process
 * rather than over HTTP: the API's 100 requests a minute per caller would pace it, not measure it.
 */
export async function checkScale(deps: Deps, actor: Ctx['actor'], options: { count: number; clients: number; listPages: number }): Promise<ScaleResult> {
  const ctx: Ctx = { deps, actor };
  // A workspace of its own: the ping section's checks would otherwise count against the plan's 10,000.
  const workspace = await createWorkspace(ctx, { name: 'scale' });
  const { projectId } = await createProject(ctx, { workspaceId: workspace.id, name: 'scale' });
  const latencies: number[] = new Array<number>(options.count);
  let next = 0;
  const client = async () => {
    while (next < options.count) {
      const index = next++;
      const started = performance.now();
      await createHeartbeatJob(ctx, { name: `scale ${index}`, projectId, intervalSeconds: 3600 });
      latencies[index] = performance.now() - started;
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  const thousand = Math.min(1000, options.count);

  const pageLatencies: number[] = [];
  const pages = Math.ceil(options.count / 10);
  for (let i = 0; i < options.listPages; i++) {
    const page = 1 + ((i * 7919) % pages);
    const started = performance.now();
    const listed = await listDashboardChecks(ctx, { workspaceId: workspace.id, page, limit: 10 });
    pageLatencies.push(performance.now() - started);
    if (listed.items.length !== 10) throw new Error(`page ${page} has ${listed.items.length} checks`);
  }
  return {
    createP99FirstMs: p99(latencies.slice(0, thousand)),
    createP99LastMs: p99(latencies.slice(-thousand)),
    createP99Ms: p99(latencies),
    listPageP99Ms: p99(pageLatencies),
    created: options.count,
  };
}
