import { authorize } from '../auth/authorize.js';
import { assertDependenciesInWorkspace, readDependency } from './dependencyRegistry.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import type { Ctx } from '../context.js';

/** The workspace a new check lands in (its project's or dependency's), with the caller authorised there. */
export async function workspaceForNewCheck(ctx: Ctx, target: { projectId?: number | undefined; dependencyId?: number | undefined }): Promise<number> {
  let workspaceId: number | undefined;
  if (target.projectId !== undefined) {
    workspaceId = (await ctx.deps.store.entities.project.get({ projectId: target.projectId }).go()).data?.workspaceId;
    if (workspaceId === undefined) throw notFound('Project');
    await authorize(ctx.deps, ctx.actor, workspaceId, 'MEMBER', 'Project');
  } else if (target.dependencyId !== undefined) {
    workspaceId = (await readDependency(ctx.deps, target.dependencyId))?.workspaceId;
    if (workspaceId === undefined) throw notFound('Dependency');
    await authorize(ctx.deps, ctx.actor, workspaceId, 'MEMBER', 'Dependency');
  }
  if (workspaceId === undefined) throw notFound('Project');
  return workspaceId;
}

/** Every id a check refers to must belong to the check's workspace; anything else does not exist (404). */
export async function assertReferencesInWorkspace(
  deps: Deps,
  workspaceId: number,
  refs: { projectId?: number | undefined; dependencyId?: number | undefined; dependencyIds?: number[] | undefined },
): Promise<void> {
  if (refs.projectId !== undefined) {
    const project = (await deps.store.entities.project.get({ projectId: refs.projectId }).go()).data;
    if (!project || project.workspaceId !== workspaceId) throw notFound('Project');
  }
  const dependencyIds = [...(refs.dependencyIds ?? []), ...(refs.dependencyId !== undefined ? [refs.dependencyId] : [])];
  await assertDependenciesInWorkspace(deps, workspaceId, dependencyIds);
}

/**
 * The project a check created under a dependency belongs to: the workspace's first project (the
 * "Default" one made at sign-up), or a new "Default" when the workspace has none left. Every
 * check has a project, so project lists, windows and `/v1` always have one to name; the check
 * keeps it when its dependency is deleted.
 */
export async function homeProjectOf(deps: Deps, workspaceId: number): Promise<number> {
  const first = await deps.store.entities.project.query.byWorkspace({ workspaceId }).go({ limit: 1 });
  const project = first.data[0];
  if (project) return project.projectId;
  const iso = deps.clock.now().toISOString();
  const projectId = await deps.store.nextId('project');
  await deps.store.entities.project.create({ projectId, workspaceId, name: 'Default', createdAt: iso, updatedAt: iso }).go();
  return projectId;
}
