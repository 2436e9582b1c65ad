import { authorize } from '../auth/authorize.js';
import type { Ctx } from '../context.js';
import { readDependency, reportedDependenciesOfCheck } from '../checks/dependencyRegistry.js';
import { readOutboundConfig } from '../checks/outboundSchema.js';
import { loadCheck, readCheckByToken } from '../checks/repository.js';
import { toDependency, type DependencyView } from '../dependencies/present.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { probeStateOf } from '../probes/outbound.js';
import type { ProbeState } from '../probes/schema.js';
import { toSignal } from '../signals/record.js';
import type { Signal } from '../signals/schema.js';
import type { CheckItem } from '../store/entities/check.js';
import type { DependencyItem } from '../store/entities/dependency.js';

/*
 * Reads of one check that draw on several areas: its latest probe state (probes), its recent
 * signals (signals) and its dependencies (the registry and the dependencies resource's present.ts).
 * They sit above those areas, so that checks imports none of them; the dashboard and MCP
 * surfaces shape them into their own responses.
 */

/** A check with its latest probe state (null for inbound checks). */
export async function getCheckWithProbe(ctx: Ctx, checkId: number): Promise<{ check: CheckItem; probe: ProbeState | null }> {
  const { deps } = ctx;
  const check = await loadCheck(ctx, checkId, 'VIEWER');
  const config = check.checkMode === 'OUTBOUND' ? readOutboundConfig(check.outbound) : null;
  const probe = config ? await probeStateOf(deps, check, config, deps.clock.now()) : null;
  return { check, probe };
}

const RECENT_SIGNALS = 20;

/** The check behind a ping token, with its 20 newest signals (expired ones are not shown). */
export async function getCheckByToken(ctx: Ctx, token: string): Promise<{ check: CheckItem; signals: Signal[]; dependencies: DependencyView[] }> {
  const check = await readCheckByToken(ctx.deps, token);
  if (!check) throw notFound('Check');
  await authorize(ctx.deps, ctx.actor, check.workspaceId, 'VIEWER', 'Check');
  const nowSeconds = Math.floor(ctx.deps.clock.now().getTime() / 1000);
  const recent = await ctx.deps.store.entities.signal.query.byCheck({ checkId: check.checkId }).go({ order: 'desc', limit: RECENT_SIGNALS });
  const signals = recent.data.filter((signal) => signal.expiresAt > nowSeconds).map(toSignal);
  return { check, signals, dependencies: await dependenciesOf(ctx.deps, check) };
}

/** The check's dependencies: the ones it is linked to and the ones its pings have reported. */
async function dependenciesOf(deps: Deps, check: CheckItem): Promise<DependencyView[]> {
  const linkedIds = [check.dependencyId, ...(check.dependencyIds ?? [])].filter((id): id is number => id !== undefined);
  const [linked, reported] = await Promise.all([Promise.all(linkedIds.map((id) => readDependency(deps, id))), reportedDependenciesOfCheck(deps, check.checkId)]);
  const byId = new Map<number, DependencyItem>();
  for (const dependency of [...linked, ...reported]) {
    // A dependency deleted since (or from another workspace) is not shown.
    if (dependency && dependency.workspaceId === check.workspaceId) byId.set(dependency.dependencyId, dependency);
  }
  return [...byId.values()].sort((a, b) => a.dependencyId - b.dependencyId).map(toDependency);
}
