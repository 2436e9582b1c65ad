import { authorize } from '../auth/authorize.js';
import { checksByIds } from '../checks/repository.js';
import type { Ctx } from '../context.js';
import { recentLatencies } from '../probes/runs.js';

/**
 * `GET /checks/sparklines`: the latency line of each listed check (checks x probes, so it sits
 * above both areas). Ids outside the workspace, unknown or deleted are left out, never an error,
 * so a list's page can ask for its rows without learning anything about ids it does not hold.
 * Heartbeat jobs have no probes: an empty line. Each line also says when the check was last probed.
 */
export async function checkSparklines(ctx: Ctx, workspaceId: number, ids: readonly number[]): Promise<{ id: number; latencyMs: number[]; lastProbeAt: string | null }[]> {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  const now = ctx.deps.clock.now();
  const checks = (await checksByIds(ctx.deps, ids)).filter((check) => check.workspaceId === workspaceId);
  const byId = new Map(checks.map((check) => [check.checkId, check]));
  const lines = await Promise.all(checks.map(async (check) => [check.checkId, check.checkMode === 'OUTBOUND' ? await recentLatencies(ctx.deps, check.checkId, now) : []] as const));
  const latency = new Map(lines);
  // In the order asked, each id once.
  // The list item (the Check view) has no probe time: the check read here carries it at no cost.
  const lastProbeAt = (id: number): string | null => {
    const check = byId.get(id);
    return check?.checkMode === 'OUTBOUND' ? (check.probeRoundAt ?? null) : null;
  };
  return [...new Set(ids)].filter((id) => byId.has(id)).map((id) => ({ id, latencyMs: latency.get(id) ?? [], lastProbeAt: lastProbeAt(id) }));
}
