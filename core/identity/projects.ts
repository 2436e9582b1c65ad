import type { Ctx } from '../context.js';
import { authorize, manageRole } from '../auth/authorize.js';
import { listProjectChecks } from '../store/checkLists.js';
import { conflict, notFound } from '../http/errors.js';
import type { ProjectItem } from '../store/entities/project.js';
import { createProjectItem, deleteProjectItem, pageProjectItems } from '../store/projectLists.js';

export const toProject = (p: ProjectItem) => ({
  id: p.projectId,
  workspaceId: p.workspaceId,
  name: p.name,
  description: p.description ?? null,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

export async function createProject(ctx: Ctx, input: { workspaceId: number; name: string; description?: string | null | undefined }) {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, 'MEMBER', 'Workspace');
  const iso = ctx.deps.clock.now().toISOString();
  const projectId = await ctx.deps.store.nextId('project');
  return createProjectItem(ctx.deps.store, {
    projectId,
    workspaceId: input.workspaceId,
    name: input.name,
    description: input.description ?? undefined,
    createdAt: iso,
    updatedAt: iso,
  });
}

export async function listProjects(ctx: Ctx, workspaceId: number): Promise<ProjectItem[]> {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  const result = await ctx.deps.store.entities.project.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
  return result.data.sort((a, b) => a.projectId - b.projectId);
}

/** One page of a workspace's projects in id order and the exact total, reading only the page (core/store/projectLists.ts). */
export async function pageProjects(ctx: Ctx, workspaceId: number, page: number, limit: number): Promise<{ items: ProjectItem[]; total: number }> {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  return pageProjectItems(ctx.deps.store, workspaceId, (page - 1) * limit, limit);
}

/** Loads a project the caller may see at `minimum`, or 404s: foreign ids do not exist. */
export async function getProject(ctx: Ctx, projectId: number, minimum: 'VIEWER' | 'MEMBER' | 'ADMIN' = 'VIEWER') {
  const project = (await ctx.deps.store.entities.project.get({ projectId }).go()).data;
  if (!project) throw notFound('Project');
  await authorize(ctx.deps, ctx.actor, project.workspaceId, minimum, 'Project');
  return project;
}

export async function updateProject(ctx: Ctx, projectId: number, input: { name?: string | undefined; description?: string | null | undefined }) {
  const project = await getProject(ctx, projectId, 'MEMBER');
  const iso = ctx.deps.clock.now().toISOString();
  const patch = ctx.deps.store.entities.project.patch({ projectId }).set({
    updatedAt: iso,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(typeof input.description === 'string' ? { description: input.description } : {}),
  });
  const updated = input.description === null ? await patch.remove(['description']).go({ response: 'all_new' }) : await patch.go({ response: 'all_new' });
  const merged: ProjectItem = { ...project, ...updated.data };
  // all_new omits a removed attribute, so the spread would bring the old description back.
  if (input.description === null) delete merged.description;
  return merged;
}

/**
 * Deleting a project that still holds checks would leave them running, pinged and counted against
 * the plan with no project to show them under: they must be deleted or transferred first (409).
 */
export async function deleteProject(ctx: Ctx, projectId: number): Promise<void> {
  await getProject(ctx, projectId, manageRole(ctx.actor));
  const live = (await listProjectChecks(ctx.deps, projectId)).length;
  if (live > 0) throw conflict(`Project still has ${live} check(s): delete or transfer them first`);
  // Of two deletes racing, the one that finds the project gone answers as if it had never been there.
  if (!(await deleteProjectItem(ctx.deps.store, projectId))) throw notFound('Project');
}
