import { authorizeWith } from '../auth/authorize.js';
import type { PlanLimits } from '../auth/plans.js';
import { limitsOfPlan } from './rules.js';
import { getItems, keyOf } from '../store/batch.js';
import { assertDependenciesInWorkspace, readDependency } from './dependencyRegistry.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import type { Ctx } from '../context.js';

/** Where a new check lands: its workspace, with the caller authorised there, and that workspace's plan. */
export type NewCheckTarget = { workspaceId: number; limits: PlanLimits };

/**
 * The workspace a new check lands in (its project's or dependency's), with the caller authorised
 * there, and its plan limits read beside the authorisation rather than after it: an API key names
 * its workspace, so that workspace is read with the project (and used only if the project is the
 * key's); a user's membership and the workspace are read together next. One BatchGetItem each
 * time. Reads only: nothing is written before the caller is known to be a member, and a refusal
 * (404, 403) wins over what the workspace read found.
 */
export async function workspaceForNewCheck(ctx: Ctx, target: { projectId?: number | undefined; dependencyId?: number | undefined }): Promise<NewCheckTarget> {
  const { deps, actor } = ctx;
  const { project, membership, workspace } = deps.store.entities;
  const what = target.projectId === undefined && target.dependencyId !== undefined ? 'Dependency' : 'Project';
  const keyWorkspace = actor.kind === 'apiKey' ? [keyOf(workspace.get({ workspaceId: actor.workspaceId }))] : [];
  let workspaceId: number | undefined;
  let space: Record<string, unknown> | undefined;
  if (target.projectId !== undefined) {
    const [found, keySpace] = await getItems(deps.store, [keyOf(project.get({ projectId: target.projectId })), ...keyWorkspace]);
    workspaceId = found ? project.parse({ Item: found }).data?.workspaceId : undefined;
    space = keySpace;
  } else if (target.dependencyId !== undefined) {
    const [found, [keySpace]] = await Promise.all([readDependency(deps, target.dependencyId), keyWorkspace.length > 0 ? getItems(deps.store, keyWorkspace) : []]);
    workspaceId = found?.workspaceId;
    space = keySpace;
  }
  if (workspaceId === undefined) throw notFound(what);
  if (actor.kind === 'apiKey') {
    authorizeWith(actor, workspaceId, 'MEMBER', what, undefined);
  } else {
    const [member, own] = await getItems(deps.store, [keyOf(membership.get({ workspaceId, userId: actor.userId })), keyOf(workspace.get({ workspaceId }))]);
    authorizeWith(actor, workspaceId, 'MEMBER', what, member ? (membership.parse({ Item: member }).data ?? undefined) : undefined);
    space = own;
  }
  return { workspaceId, limits: limitsOfPlan(space ? workspace.parse({ Item: space }).data : undefined) };
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
