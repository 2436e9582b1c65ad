import { authorize } from '../auth/authorize.js';
import type { PlanLimits } from '../auth/plans.js';
import { planLimitsOf } from './rules.js';
import { assertDependenciesInWorkspace, readDependency } from './dependencyRegistry.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import type { Ctx } from '../context.js';

/** Where a new check lands: its workspace, with the caller authorised there, and that workspace's plan. */
export type NewCheckTarget = { workspaceId: number; limits: PlanLimits };

/** A read whose failure matters only if it is awaited: a refusal that wins first leaves it unhandled otherwise. */
const quiet = <T>(read: Promise<T>): Promise<T> => {
  read.catch(() => undefined);
  return read;
};

/**
 * The workspace a new check lands in (its project's or dependency's), with the caller authorised
 * there, and its plan limits read beside the authorisation rather than after it: an API key names
 * its workspace, so its plan is read with the project (and used only if the project is the key's);
 * a user's membership and the plan are read together. Reads only: nothing is written before the
 * caller is known to be a member, and a refusal (404, 403) wins over whatever the plan read found.
 */
export async function workspaceForNewCheck(ctx: Ctx, target: { projectId?: number | undefined; dependencyId?: number | undefined }): Promise<NewCheckTarget> {
  const { deps, actor } = ctx;
  const keyPlan = actor.kind === 'apiKey' ? quiet(planLimitsOf(deps, actor.workspaceId)) : undefined;
  let workspaceId: number | undefined;
  let what: 'Project' | 'Dependency' = 'Project';
  if (target.projectId !== undefined) {
    workspaceId = (await deps.store.entities.project.get({ projectId: target.projectId }).go()).data?.workspaceId;
  } else if (target.dependencyId !== undefined) {
    what = 'Dependency';
    workspaceId = (await readDependency(deps, target.dependencyId))?.workspaceId;
  }
  if (workspaceId === undefined) throw notFound(what);
  const plan = keyPlan ?? quiet(planLimitsOf(deps, workspaceId));
  await authorize(deps, actor, workspaceId, 'MEMBER', what);
  return { workspaceId, limits: await plan };
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
