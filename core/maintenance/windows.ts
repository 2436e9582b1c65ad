import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import type { Deps } from '../deps.js';
import { badRequest, HttpError, notFound, type ErrorDetail } from '../http/errors.js';
import type { MaintenanceWindowItem } from '../store/entities/maintenanceWindow.js';
import { isConditionalFailure, retryOnConflict } from '../store/conditional.js';
import { deleteHolds } from '../windows/holdStore.js';
import { cronProblem, isValidTimezone, occursWithin, planWindow } from './recurrence.js';
import { reconcileWindow, runWindow, WINDOW_DUE_SHARD, windowState, writeWindow, type Extra } from './reconcile.js';
import { timingOf, transitionWindow, type Timing } from './transition.js';
import type { MaintenanceWindowView } from './schema.js';
import { getAll } from '../store/batch.js';

type State = MaintenanceWindowItem['state'];

export const toMaintenanceWindow = (w: MaintenanceWindowItem): MaintenanceWindowView => ({
  id: w.maintenanceWindowId,
  workspaceId: w.workspaceId,
  name: w.name,
  description: w.description ?? null,
  state: w.state,
  startAt: w.startAt,
  endAt: w.endAt,
  projectIds: w.projectIds,
  suppressAlerts: w.suppressAlerts,
  suppressIncidents: w.suppressIncidents,
  autoPublishToStatusPage: w.autoPublishToStatusPage,
  timezone: w.timezone,
  recurringCron: w.recurringCron ?? null,
  occurrenceStartAt: w.occurrenceStartAt ?? null,
  occurrenceEndAt: w.occurrenceEndAt ?? null,
  completedAt: w.completedAt ?? null,
  cancelledAt: w.cancelledAt ?? null,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

export type WindowInput = {
  workspaceId: number;
  name: string;
  description?: string | null | undefined;
  startAt?: string | undefined;
  endAt: string;
  projectIds?: number[] | undefined;
  suppressAlerts: boolean;
  suppressIncidents: boolean;
  autoPublishToStatusPage?: boolean | undefined;
  timezone?: string | undefined;
  recurringCron?: string | null | undefined;
};

/** The cross-field rules zod cannot see alone; every problem is one 400 with its field path. */
function validateTiming(timing: Timing, now: Date): void {
  const details: ErrorDetail[] = [];
  if (!isValidTimezone(timing.timezone)) details.push({ path: 'timezone', message: `Unknown time zone ${timing.timezone}` });
  if (Date.parse(timing.endAt) <= Date.parse(timing.startAt)) details.push({ path: 'endAt', message: 'endAt must be after startAt' });
  if (timing.recurringCron !== null && details.length === 0) {
    const problem = cronProblem(timing.recurringCron, timing.timezone);
    if (problem) details.push({ path: 'recurringCron', message: `Invalid cron expression: ${problem}` });
  }
  if (details.length === 0 && planWindow(timingOf(timing), now).state === 'COMPLETED') {
    details.push(
      timing.recurringCron === null
        ? { path: 'endAt', message: 'endAt must be in the future' }
        : { path: 'recurringCron', message: 'The expression has no occurrence after startAt' },
    );
  }
  const first = details[0];
  if (first) throw badRequest(`${first.path}: ${first.message}`, details);
}

/** Every named project must exist in the workspace (404 otherwise); none named: all of them. */
async function resolveProjectIds(deps: Deps, workspaceId: number, requested: number[] | undefined): Promise<number[]> {
  if (requested === undefined) {
    const all = await deps.store.entities.project.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
    const ids = all.data.map((p) => p.projectId).sort((a, b) => a - b);
    if (ids.length === 0) throw badRequest('The workspace has no projects', [{ path: 'projectIds', message: 'No project to cover' }]);
    return ids;
  }
  const ids = [...new Set(requested)];
  const found = await getAll(
    deps.store,
    ids.map((projectId) => ({ projectId })),
    (keys) => deps.store.entities.project.get(keys).go(),
    'projects',
  );
  const inWorkspace = new Set(found.filter((p) => p.workspaceId === workspaceId).map((p) => p.projectId));
  const missing = ids.find((id) => !inWorkspace.has(id));
  if (missing !== undefined) throw notFound(`Project ${missing}`);
  return ids;
}

export async function createMaintenanceWindow(ctx: Ctx, input: WindowInput): Promise<MaintenanceWindowItem> {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, 'MEMBER', 'Workspace');
  const { deps } = ctx;
  const now = deps.clock.now();
  const iso = now.toISOString();
  const timing: Timing = {
    startAt: new Date(input.startAt ?? iso).toISOString(),
    endAt: new Date(input.endAt).toISOString(),
    timezone: input.timezone ?? 'UTC',
    recurringCron: input.recurringCron ?? null,
  };
  validateTiming(timing, now);
  const projectIds = await resolveProjectIds(deps, input.workspaceId, input.projectIds);
  const maintenanceWindowId = await deps.store.nextId('maintenanceWindow');
  const created = await deps.store.entities.maintenanceWindow
    .create({
      maintenanceWindowId,
      workspaceId: input.workspaceId,
      name: input.name,
      description: input.description ?? undefined,
      ...timing,
      recurringCron: timing.recurringCron ?? undefined,
      projectIds,
      suppressAlerts: input.suppressAlerts,
      suppressIncidents: input.suppressIncidents,
      autoPublishToStatusPage: input.autoPublishToStatusPage ?? false,
      state: 'SCHEDULED',
      revision: 0,
      // Due at once: the reconcile below (or, if this request dies, the processor) settles it.
      dueShard: WINDOW_DUE_SHARD,
      dueAt: iso,
      createdBy: ctx.actor.kind === 'user' ? ctx.actor.userId : undefined,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  return reconcileWindow(deps, created.data, now);
}

/** Loads a window the caller may see at `minimum`; foreign or unknown ids are 404. */
export async function getMaintenanceWindow(ctx: Ctx, id: number, minimum: 'VIEWER' | 'MEMBER' = 'VIEWER'): Promise<MaintenanceWindowItem> {
  const found = (await ctx.deps.store.entities.maintenanceWindow.get({ maintenanceWindowId: id }).go({ consistent: true })).data;
  if (!found) throw notFound('Maintenance window');
  await authorize(ctx.deps, ctx.actor, found.workspaceId, minimum, 'Maintenance window');
  return found;
}

export async function getMaintenanceWindowDetail(ctx: Ctx, id: number) {
  const window = await getMaintenanceWindow(ctx, id);
  const projects = await getAll(
    ctx.deps.store,
    window.projectIds.map((projectId) => ({ projectId })),
    (keys) => ctx.deps.store.entities.project.get(keys).go(),
    'projects',
  );
  const names = new Map(projects.filter((p) => p.workspaceId === window.workspaceId).map((p) => [p.projectId, p.name]));
  return {
    ...toMaintenanceWindow(window),
    projects: window.projectIds.flatMap((projectId) => {
      const name = names.get(projectId);
      return name === undefined ? [] : [{ id: projectId, name }];
    }),
  };
}

export type WindowFilter = { state?: State | undefined; projectId?: number | undefined; from?: string | undefined; to?: string | undefined };

/**
 * `from`/`to` keep a one-time window whose [startAt, endAt] overlaps the range, and a recurring
 * one with an occurrence overlapping it before the series was completed or cancelled (its
 * startAt..endAt is only the template of the first occurrence).
 */
function inRange(w: MaintenanceWindowItem, from: number, to: number): boolean {
  if (w.recurringCron === undefined) return Date.parse(w.startAt) <= to && Date.parse(w.endAt) >= from;
  const stopped = w.completedAt ?? w.cancelledAt;
  return occursWithin(timingOf(w), from, to, stopped === undefined ? Infinity : Date.parse(stopped));
}

/** Newest first, filtered by state, project and time range (see inRange). */
export async function listMaintenanceWindows(ctx: Ctx, workspaceId: number, filter: WindowFilter = {}): Promise<MaintenanceWindowItem[]> {
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  if (filter.projectId !== undefined) {
    const project = (await ctx.deps.store.entities.project.get({ projectId: filter.projectId }).go()).data;
    if (!project || project.workspaceId !== workspaceId) throw notFound('Project');
  }
  if (filter.from && filter.to && Date.parse(filter.from) > Date.parse(filter.to)) {
    throw badRequest('from must not be after to', [{ path: 'from', message: 'must not be after to' }]);
  }
  const all = await ctx.deps.store.entities.maintenanceWindow.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
  const from = filter.from ? Date.parse(filter.from) : -Infinity;
  const to = filter.to ? Date.parse(filter.to) : Infinity;
  return all.data
    .filter((w) => filter.state === undefined || w.state === filter.state)
    .filter((w) => filter.projectId === undefined || w.projectIds.includes(filter.projectId))
    .filter((w) => (filter.from === undefined && filter.to === undefined) || inRange(w, from, to))
    .sort((a, b) => b.maintenanceWindowId - a.maintenanceWindowId);
}

export type WindowUpdate = Partial<Omit<WindowInput, 'workspaceId'>> & { description?: string | null | undefined; recurringCron?: string | null | undefined };

export const immutable = (w: MaintenanceWindowItem): HttpError =>
  new HttpError('MAINTENANCE_WINDOW_IMMUTABLE', `Maintenance window ${w.maintenanceWindowId} is ${w.state}; only SCHEDULED windows can be changed`);

/** Only SCHEDULED windows change (ACTIVE, COMPLETED and CANCELLED are immutable: 409). */
export async function updateMaintenanceWindow(ctx: Ctx, id: number, input: WindowUpdate): Promise<MaintenanceWindowItem> {
  const window = await getMaintenanceWindow(ctx, id, 'MEMBER');
  const { deps } = ctx;
  const now = deps.clock.now();
  if (window.state !== 'SCHEDULED') throw immutable(window);
  const timing: Timing = {
    startAt: input.startAt !== undefined ? new Date(input.startAt).toISOString() : window.startAt,
    endAt: input.endAt !== undefined ? new Date(input.endAt).toISOString() : window.endAt,
    timezone: input.timezone ?? window.timezone,
    recurringCron: input.recurringCron !== undefined ? input.recurringCron : (window.recurringCron ?? null),
  };
  validateTiming(timing, now);
  const projectIds = input.projectIds ? await resolveProjectIds(deps, window.workspaceId, input.projectIds) : window.projectIds;
  const result = transitionWindow(
    windowState(window),
    {
      type: 'reschedule',
      changes: {
        timing,
        projectIds,
        suppressAlerts: input.suppressAlerts ?? window.suppressAlerts,
        suppressIncidents: input.suppressIncidents ?? window.suppressIncidents,
      },
    },
    now,
  );
  if (!result.ok) throw immutable(window);
  const extra: Extra = {
    set: {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(typeof input.description === 'string' ? { description: input.description } : {}),
      ...(input.autoPublishToStatusPage !== undefined ? { autoPublishToStatusPage: input.autoPublishToStatusPage } : {}),
    },
    remove: input.description === null && window.description !== undefined ? ['description'] : [],
  };
  let updated: MaintenanceWindowItem;
  try {
    updated = await writeWindow(deps, window, result.state, now, extra);
  } catch (err) {
    // Not a lost race to retry: the window moved on (started, or was changed), and only a
    // SCHEDULED window as the caller saw it may be changed.
    if (!isConditionalFailure(err)) throw err;
    throw immutable(await getMaintenanceWindow(ctx, id, 'MEMBER'));
  }
  return runWindow(deps, updated, result.effects, now);
}

/**
 * Ends (COMPLETED, Integration API) or cancels (CANCELLED, dashboard) a live window; a terminal
 * window comes back unchanged (spec: not an error). Suppression stops at once: the holds go.
 */
export async function finishMaintenanceWindow(ctx: Ctx, id: number, to: 'COMPLETED' | 'CANCELLED'): Promise<MaintenanceWindowItem> {
  const { deps } = ctx;
  const { window, effects, now } = await retryOnConflict(
    async () => {
      const read = await getMaintenanceWindow(ctx, id, 'MEMBER');
      const now = deps.clock.now();
      const result = transitionWindow(windowState(read), { type: 'finish', to }, now);
      if (!result.ok) throw new Error(`finishing maintenance window ${id}: ${result.code}`);
      // A processor pass may write it meanwhile: the write is on the revision read, and a lost race reads again.
      const window = result.changed ? await writeWindow(deps, read, result.state, now) : read;
      return { window, effects: result.effects, now };
    },
    { attempts: 4, what: `finishing maintenance window ${id}` },
  );
  return runWindow(deps, window, effects, now);
}

/** Deletes a window that is not running; an ACTIVE one must be cancelled first (immutable). */
export async function deleteMaintenanceWindow(ctx: Ctx, id: number): Promise<void> {
  const window = await getMaintenanceWindow(ctx, id, 'MEMBER');
  if (window.state === 'ACTIVE') throw immutable(window);
  const { deps } = ctx;
  await deleteHolds(deps, window.projectIds, { kind: 'MAINTENANCE', windowId: id });
  try {
    await deps.store.entities.maintenanceWindow
      .delete({ maintenanceWindowId: id })
      .where((attr, op) => op.eq(attr.revision, window.revision))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    // It changed under us (the processor may have started it): put its holds back and refuse.
    const fresh = await getMaintenanceWindow(ctx, id, 'MEMBER');
    const settled = await reconcileWindow(deps, fresh, deps.clock.now());
    throw new HttpError('CONFLICT', `Maintenance window ${id} changed while being deleted (now ${settled.state}); try again`);
  }
}
