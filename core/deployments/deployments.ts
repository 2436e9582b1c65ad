import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import { readCheckById } from '../checks/repository.js';
import type { Deps } from '../deps.js';
import { badRequest, notFound } from '../http/errors.js';
import { getProject } from '../identity/projects.js';
import type { DeploymentItem } from '../store/entities/deployment.js';
import { DEPLOYMENT_DUE_SHARD, reconcileDeployment, runDeployment } from './reconcile.js';
import { transitionDeployment } from './transition.js';
import type { DashboardDeploymentView, DeploymentView } from './schema.js';

export const toDeployment = (d: DeploymentItem): DeploymentView => ({
  id: d.deploymentId,
  projectId: d.projectId,
  name: d.name ?? null,
  version: d.version ?? null,
  author: d.author ?? null,
  link: d.link ?? null,
  status: d.status,
  autoPause: d.autoPause,
  checkIds: d.checkIds ?? null,
  startedAt: d.startedAt,
  endedAt: d.endedAt ?? null,
  scheduledEndAt: d.scheduledEndAt ?? null,
});

export const toDashboardDeployment = (d: DeploymentItem): DashboardDeploymentView => ({
  ...toDeployment(d),
  workspaceId: d.workspaceId,
  autoPausedCheckIds: d.autoPausedCheckIds,
  scheduledStartAt: d.scheduledStartAt ?? null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export type OpenInput = {
  projectId: number;
  name?: string | null | undefined;
  version?: string | null | undefined;
  author?: string | null | undefined;
  link?: string | null | undefined;
  checkIds?: number[] | undefined;
  autoPause: boolean;
  /** Integration API: the window ends this many minutes from now. */
  ttlMinutes?: number | undefined;
  /** Dashboard: a start in the future schedules the deployment; a future end is its planned end, a past `endedAt` records it as ENDED. */
  startedAt?: string | undefined;
  scheduledStartAt?: string | undefined;
  endedAt?: string | undefined;
  scheduledEndAt?: string | undefined;
};

/** Two spellings of one instant may both be given only when they agree. */
function oneOf(a: string | undefined, b: string | undefined, paths: [string, string]): Date | undefined {
  if (a !== undefined && b !== undefined && Date.parse(a) !== Date.parse(b)) {
    throw badRequest(`${paths[0]} and ${paths[1]} disagree`, [{ path: paths[1], message: `must equal ${paths[0]} when both are given` }]);
  }
  const value = a ?? b;
  return value === undefined ? undefined : new Date(value);
}

/** Every id must be a live check of the project (404 otherwise: foreign ids do not exist). */
async function checkTargets(deps: Deps, projectId: number, workspaceId: number, ids: number[] | undefined): Promise<number[] | undefined> {
  if (ids === undefined) return undefined;
  const unique = [...new Set(ids)];
  const checks = await Promise.all(unique.map((checkId) => readCheckById(deps, checkId)));
  const missing = unique.find((checkId, i) => {
    const check = checks[i];
    return !check || check.workspaceId !== workspaceId || check.projectId !== projectId;
  });
  if (missing !== undefined) throw notFound(`Check ${missing}`);
  return unique;
}

/**
 * Opens a deployment window: ACTIVE at once, or SCHEDULED when its start is in the future. With
 * autoPause its target checks are paused now (or when the scheduled start comes). A dashboard
 * `endedAt` that is not in the future records a finished deployment: ENDED at once, no checks
 * paused or resumed, no hold, no DEPLOYMENT signals (nothing happened to the checks).
 */
export async function openDeployment(ctx: Ctx, input: OpenInput): Promise<DeploymentItem> {
  const project = await getProject(ctx, input.projectId, 'MEMBER');
  const { deps } = ctx;
  const now = deps.clock.now();
  const iso = now.toISOString();
  const start = oneOf(input.scheduledStartAt, input.startedAt, ['scheduledStartAt', 'startedAt']) ?? now;
  const end = input.ttlMinutes !== undefined ? new Date(now.getTime() + input.ttlMinutes * 60_000) : oneOf(input.scheduledEndAt, input.endedAt, ['scheduledEndAt', 'endedAt']);
  const endPath = input.scheduledEndAt !== undefined ? 'scheduledEndAt' : 'endedAt';
  // A past `endedAt` records a deployment that already happened ("the deploy that just ran");
  // a past planned end (scheduledEndAt, or a TTL) is a mistake.
  const opened = transitionDeployment(
    null,
    {
      type: 'open',
      startedAt: start.toISOString(),
      endAt: end?.toISOString() ?? null,
      endIsPlan: endPath !== 'endedAt' || input.ttlMinutes !== undefined,
      autoPause: input.autoPause,
    },
    now,
  );
  if (!opened.ok) {
    if (opened.code === 'END_NOT_AFTER_START') {
      const hint = input.startedAt === undefined && input.scheduledStartAt === undefined ? ' (startedAt defaults to now: give it to record a finished deployment)' : '';
      throw badRequest(`${endPath} must be after the start${hint}`, [{ path: endPath, message: `must be after the start${hint}` }]);
    }
    throw badRequest(`${endPath} must be in the future`, [{ path: endPath, message: 'must be in the future' }]);
  }
  const state = opened.state;
  const checkIds = await checkTargets(deps, project.projectId, project.workspaceId, input.checkIds);
  const deploymentId = await deps.store.nextId('deployment');
  const created = await deps.store.entities.deployment
    .create({
      deploymentId,
      workspaceId: project.workspaceId,
      projectId: project.projectId,
      ...(input.name != null ? { name: input.name } : {}),
      ...(input.version != null ? { version: input.version } : {}),
      ...(input.author != null ? { author: input.author } : {}),
      ...(input.link != null ? { link: input.link } : {}),
      status: state.status,
      autoPause: state.autoPause,
      ...(checkIds ? { checkIds } : {}),
      autoPausedCheckIds: [],
      startedAt: state.startedAt,
      ...(state.status === 'SCHEDULED' ? { scheduledStartAt: state.startedAt } : {}),
      ...(state.endedAt !== null ? { endedAt: state.endedAt } : {}),
      ...(state.scheduledEndAt !== null ? { scheduledEndAt: state.scheduledEndAt } : {}),
      ...(state.startEffectsAt !== null ? { startEffectsAt: state.startEffectsAt } : {}),
      ...(state.endEffectsAt !== null ? { endEffectsAt: state.endEffectsAt } : {}),
      // Due at once: the run below (or the sweep, if this request dies) applies the effects.
      ...(state.dueAt !== null ? { dueShard: DEPLOYMENT_DUE_SHARD, dueAt: state.dueAt } : {}),
      createdBy: ctx.actor.kind === 'user' ? ctx.actor.userId : undefined,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  return reconcileDeployment(deps, created.data, now);
}

/** A deployment the caller may see at `minimum`; foreign or unknown ids are 404. */
export async function loadDeployment(ctx: Ctx, id: number, minimum: 'VIEWER' | 'MEMBER'): Promise<DeploymentItem> {
  const found = (await ctx.deps.store.entities.deployment.get({ deploymentId: id }).go({ consistent: true })).data;
  if (!found) throw notFound('Deployment');
  await authorize(ctx.deps, ctx.actor, found.workspaceId, minimum, 'Deployment');
  return found;
}

/**
 * Ends a deployment: ENDED with endedAt, the checks it paused resumed. Ending an ENDED one returns
 * it as it is (200, spec). A SCHEDULED deployment that is ended never starts.
 */
export async function endDeployment(ctx: Ctx, id: number, endedAt?: string): Promise<DeploymentItem> {
  const d = await loadDeployment(ctx, id, 'MEMBER');
  const now = ctx.deps.clock.now();
  return runDeployment(ctx.deps, d, { type: 'end', at: endedAt ?? now.toISOString() }, now);
}

export type DeploymentFilter = { status?: DeploymentItem['status'] | undefined; from?: string | undefined; to?: string | undefined; checkId?: number | undefined };

/** A deployment spans startedAt to endedAt (or its planned end, or open-ended while it runs). */
const spanEnd = (d: DeploymentItem): number => Date.parse(d.endedAt ?? d.scheduledEndAt ?? '') || Infinity;

function applyFilter(items: DeploymentItem[], filter: DeploymentFilter): DeploymentItem[] {
  if (filter.from && filter.to && Date.parse(filter.from) > Date.parse(filter.to)) {
    throw badRequest('The range starts after it ends', [{ path: 'from', message: 'must not be after the end of the range' }]);
  }
  const from = filter.from ? Date.parse(filter.from) : -Infinity;
  const to = filter.to ? Date.parse(filter.to) : Infinity;
  return items
    .filter((d) => filter.status === undefined || d.status === filter.status)
    .filter((d) => filter.checkId === undefined || d.checkIds === undefined || d.checkIds.includes(filter.checkId))
    .filter((d) => Date.parse(d.startedAt) <= to && spanEnd(d) >= from)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.deploymentId - a.deploymentId);
}

/** Integration API list: the key's workspace, optionally one project (404 when foreign). Newest first. */
export async function listDeployments(ctx: Ctx, workspaceId: number, filter: DeploymentFilter & { projectId?: number | undefined }): Promise<DeploymentItem[]> {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  const entity = ctx.deps.store.entities.deployment;
  if (filter.projectId !== undefined) {
    const project = (await ctx.deps.store.entities.project.get({ projectId: filter.projectId }).go()).data;
    if (!project || project.workspaceId !== workspaceId) throw notFound('Project');
    return applyFilter((await entity.query.byProject({ projectId: filter.projectId }).go({ pages: 'all' })).data, filter);
  }
  return applyFilter((await entity.query.byWorkspace({ workspaceId }).go({ pages: 'all' })).data, filter);
}

/** Dashboard list: one project's deployments; `checkId` keeps those that cover that check. */
export async function listProjectDeployments(ctx: Ctx, projectId: number, filter: DeploymentFilter): Promise<DeploymentItem[]> {
  const project = await getProject(ctx, projectId, 'VIEWER');
  if (filter.checkId !== undefined) {
    const check = await readCheckById(ctx.deps, filter.checkId);
    if (!check || check.workspaceId !== project.workspaceId) throw notFound('Check');
    if (check.projectId !== projectId) return [];
  }
  const all = await ctx.deps.store.entities.deployment.query.byProject({ projectId }).go({ pages: 'all' });
  return applyFilter(
    all.data.filter((d) => d.workspaceId === project.workspaceId),
    filter,
  );
}
