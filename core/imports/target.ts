import { authorize } from '../auth/authorize.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { assertReferencesInWorkspace, homeProjectOf } from '../checks/associations.js';
import { findCheckBySlug, readCheckByToken } from '../checks/repository.js';
import type { Ctx } from '../context.js';
import { HttpError } from '../http/errors.js';
import type { CheckItem } from '../store/entities/check.js';
import type { ImportReport } from './report.js';

/**
 * Where an import lands: the key's workspace (MEMBER: a read_only key may not import, not even
 * dry), and the project named by `?projectId=` or else the workspace's first. A dry run writes
 * nothing, so it does not make the "Default" project a workspace without one would get.
 */
export async function importTarget(ctx: Ctx, projectId: number | undefined, dryRun: boolean): Promise<{ workspaceId: number; projectId: number | undefined }> {
  const workspaceId = keyWorkspaceId(ctx.actor);
  await authorize(ctx.deps, ctx.actor, workspaceId, 'MEMBER', 'Workspace');
  if (projectId !== undefined) {
    await assertReferencesInWorkspace(ctx.deps, workspaceId, { projectId });
    return { workspaceId, projectId };
  }
  if (!dryRun) return { workspaceId, projectId: await homeProjectOf(ctx.deps, workspaceId) };
  const first = await ctx.deps.store.entities.project.query.byWorkspace({ workspaceId }).go({ limit: 1 });
  return { workspaceId, projectId: first.data[0]?.projectId };
}

export const emptyReport = (source: ImportReport['source'], dryRun: boolean): ImportReport => ({ source, dryRun, created: [], unchanged: [], skipped: [] });

/**
 * What a token already names: this workspace's check (the import ran before: unchanged), someone
 * else's (taken: the reason never says whose), or nothing.
 */
export async function tokenOwner(ctx: Ctx, workspaceId: number, token: string): Promise<{ mine: CheckItem } | 'taken' | undefined> {
  const check = await readCheckByToken(ctx.deps, token);
  if (!check) return undefined;
  return check.workspaceId === workspaceId ? { mine: check } : 'taken';
}

/** The slug to create with: null when another check of the workspace holds it (the import then lists it as skipped). */
export async function freeSlug(ctx: Ctx, workspaceId: number, slug: string | null): Promise<string | null> {
  if (slug === null) return null;
  return (await findCheckBySlug(ctx.deps, workspaceId, slug)) ? null : slug;
}

/**
 * Runs one item's create and files a refusal of the caller's making (a 4xx: invalid after all, a
 * plan limit, a token or slug taken meanwhile) under `skipped` with its message; anything else
 * (the store failing) ends the import, whose report so far is then lost but whose items are all
 * found again, unchanged, by the next run.
 */
export async function orSkip(report: ImportReport, item: { kind: string; name: string }, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof HttpError) || err.status >= 500) throw err;
    const detail = err.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
    report.skipped.push({ ...item, reason: detail ? `${err.message} (${detail})` : err.message });
  }
}
