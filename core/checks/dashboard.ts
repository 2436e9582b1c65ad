import { authorize } from '../auth/authorize.js';
import { badRequest, notFound } from '../http/errors.js';
import { envelope } from '../http/pagination.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import type { CheckItem } from '../store/entities/check.js';
import { assertReferencesInWorkspace, homeProjectOf, workspaceForNewCheck } from './associations.js';
import { hasJobRuleFields, resolveTiming, type ResolvedTiming } from './jobRules.js';
import { insertCheck, outboundOf, softDeleteCheck, updateCheck } from './lifecycle.js';
import { mergeOutboundConfig, OUTBOUND_FIELD_NAMES, parseOutboundConfig, type OutboundConfig, type OutboundConfigPatch } from './outboundSchema.js';
import { pauseCheck, resumeCheck } from './pause.js';
import { loadCheck, pageChecks, updateCheckGuarded, type CheckListScope } from './repository.js';
import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { assertAssociation, draftOf, resolveCheckType, type CheckDraft, type CheckMode } from './rules.js';
import type { DashboardCheckCreate, DashboardCheckUpdate } from './schema.js';

/** Spec "Dashboard: checks" constraints: inbound checks are never due more often than every 300 s. */
export const INBOUND_MIN_INTERVAL_SECONDS = 300;

type OutboundFieldName = (typeof OUTBOUND_FIELD_NAMES)[number];
type FlatOutbound = Partial<Record<OutboundFieldName, unknown>>;

const givenOutboundFields = (body: FlatOutbound): OutboundFieldName[] => OUTBOUND_FIELD_NAMES.filter((name) => body[name] !== undefined);

/** The flat outbound fields of a dashboard body, judged for the check's mode. */
function outboundFor(mode: CheckMode, body: FlatOutbound, current: OutboundConfig | undefined): OutboundConfig | undefined {
  const given = givenOutboundFields(body);
  if (mode === 'INBOUND') {
    if (given.length > 0) {
      throw badRequest(
        `${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} only to OUTBOUND checks`,
        given.map((path) => ({ path, message: 'only allowed when checkMode is OUTBOUND' })),
      );
    }
    return undefined;
  }
  const patch = Object.fromEntries(given.map((name) => [name, body[name]])) as OutboundConfigPatch;
  return parseOutboundConfig(mergeOutboundConfig((current ?? {}) as OutboundConfig, patch));
}

const unique = (ids: number[] | undefined): number[] | undefined => (ids === undefined ? undefined : [...new Set(ids)]);

function assertInboundInterval(mode: CheckMode, intervalSeconds: number): void {
  if (mode === 'INBOUND' && intervalSeconds < INBOUND_MIN_INTERVAL_SECONDS) {
    throw badRequest(`Inbound checks need an interval of at least ${INBOUND_MIN_INTERVAL_SECONDS} seconds`, [
      { path: 'intervalSeconds', message: `must be at least ${INBOUND_MIN_INTERVAL_SECONDS} for INBOUND checks` },
    ]);
  }
}

/**
 * The timing of a dashboard body: an INBOUND check takes `intervalSeconds` or a `schedule` (and the
 * other job rules); an OUTBOUND one an interval only.
 */
function timingFor(mode: CheckMode, body: DashboardCheckUpdate, current: { jobRules: string | undefined; intervalSeconds: number | undefined }, now: Date): ResolvedTiming {
  if (mode === 'OUTBOUND') {
    const given = hasJobRuleFields(body);
    if (given.length > 0)
      throw badRequest(
        `${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} only to INBOUND checks`,
        given.map((path) => ({ path, message: 'only allowed when checkMode is INBOUND' })),
      );
    const intervalSeconds = body.intervalSeconds ?? current.intervalSeconds;
    if (intervalSeconds === undefined) throw badRequest('intervalSeconds is required', [{ path: 'intervalSeconds', message: 'Required' }]);
    return { jobRules: undefined, intervalSeconds };
  }
  return resolveTiming(current, body, now);
}

export async function createDashboardCheck(ctx: Ctx, body: DashboardCheckCreate): Promise<CheckItem> {
  const checkMode = body.checkMode ?? 'INBOUND';
  assertAssociation({ projectId: body.projectId, dependencyId: body.dependencyId, checkMode });
  const { workspaceId, limits } = await workspaceForNewCheck(ctx, body);
  const checkType = resolveCheckType(checkMode, body.checkType);
  const timing = timingFor(checkMode, body, { jobRules: undefined, intervalSeconds: undefined }, ctx.deps.clock.now());
  assertInboundInterval(checkMode, timing.intervalSeconds);
  const outbound = outboundFor(checkMode, body, undefined);
  await assertReferencesInWorkspace(ctx.deps, workspaceId, { dependencyIds: body.dependencyIds });
  const draft: CheckDraft = {
    workspaceId,
    projectId: body.projectId ?? (await homeProjectOf(ctx.deps, workspaceId)),
    dependencyId: body.dependencyId,
    dependencyIds: unique(body.dependencyIds),
    name: body.name,
    slug: body.slug ?? null,
    checkMode,
    checkType,
    intervalSeconds: timing.intervalSeconds,
    jobRules: timing.jobRules,
    graceSeconds: body.graceSeconds,
    muteNotifications: body.muteNotifications ?? false,
    downSeverity: body.downSeverity ?? 'P1',
    lateSeverity: body.lateSeverity ?? 'P3',
    outbound,
  };
  return withBadgeLabel(ctx.deps, await insertCheck(ctx.deps, draft, limits), body.badgeLabel);
}

/** The badge label is display only, outside the plan rules of the draft: written on its own. */
async function withBadgeLabel(deps: Deps, check: CheckItem, badgeLabel: string | undefined): Promise<CheckItem> {
  if (badgeLabel === undefined || badgeLabel === check.badgeLabel) return check;
  return updateCheckGuarded(deps, check.token, () => ({ set: { badgeLabel }, remove: [] }));
}

/** Any creation field; the merged check passes the same rules as a new one. The workspace never changes. */
export async function updateDashboardCheck(ctx: Ctx, checkId: number, body: DashboardCheckUpdate): Promise<CheckItem> {
  const check = await loadCheck(ctx, checkId, 'MEMBER');
  const before = draftOf(check, outboundOf(check));
  if (body.projectId !== undefined && body.dependencyId !== undefined) {
    throw badRequest('Give either projectId or dependencyId, not both', [{ path: 'dependencyId', message: 'mutually exclusive with projectId' }]);
  }
  const next: CheckDraft = { ...before };
  if (body.projectId !== undefined) Object.assign(next, { projectId: body.projectId, dependencyId: undefined });
  // Under a dependency the check keeps the project it has (every check has one).
  if (body.dependencyId !== undefined) Object.assign(next, { dependencyId: body.dependencyId, projectId: before.projectId ?? (await homeProjectOf(ctx.deps, check.workspaceId)) });
  for (const key of ['name', 'slug', 'graceSeconds', 'muteNotifications', 'downSeverity', 'lateSeverity'] as const) {
    if (body[key] !== undefined) Object.assign(next, { [key]: body[key] });
  }
  if (body.dependencyIds !== undefined) next.dependencyIds = unique(body.dependencyIds);
  next.checkMode = body.checkMode ?? before.checkMode;
  next.checkType = resolveCheckType(next.checkMode, body.checkType);
  // The body's rule (exactly one of the two); a dependency's check also holds its home project.
  assertAssociation({ ...next, projectId: next.dependencyId !== undefined ? undefined : next.projectId });
  // A check turned OUTBOUND drops its job rules; one turned INBOUND keeps its interval.
  const timing = timingFor(
    next.checkMode,
    body,
    { jobRules: next.checkMode === 'INBOUND' ? before.jobRules : undefined, intervalSeconds: before.intervalSeconds },
    ctx.deps.clock.now(),
  );
  Object.assign(next, timing);
  if (body.intervalSeconds != null || body.schedule != null || next.checkMode !== before.checkMode) assertInboundInterval(next.checkMode, next.intervalSeconds);
  next.outbound = outboundFor(next.checkMode, body, before.outbound);
  await assertReferencesInWorkspace(ctx.deps, check.workspaceId, {
    projectId: body.projectId,
    dependencyId: body.dependencyId,
    dependencyIds: body.dependencyIds,
  });
  return withBadgeLabel(ctx.deps, await updateCheck(ctx.deps, check, next), body.badgeLabel);
}

/** The list a caller may read (VIEWER): a project of the workspace, or the workspace; a foreign one is 404. */
export async function listScope(ctx: Ctx, query: { workspaceId?: number | undefined; projectId?: number | undefined }): Promise<CheckListScope> {
  if (query.projectId !== undefined) {
    const project = (await ctx.deps.store.entities.project.get({ projectId: query.projectId }).go()).data;
    if (!project || (query.workspaceId !== undefined && project.workspaceId !== query.workspaceId)) throw notFound('Project');
    await authorize(ctx.deps, ctx.actor, project.workspaceId, 'VIEWER', 'Project');
    return { workspaceId: project.workspaceId, projectId: project.projectId };
  }
  const workspaceId = await resolveWorkspaceId(ctx, query.workspaceId);
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  return { workspaceId };
}

export async function listDashboardChecks(
  ctx: Ctx,
  query: { workspaceId?: number | undefined; projectId?: number | undefined; checkMode?: CheckMode | undefined; page: number; limit: number },
) {
  const scope = await listScope(ctx, query);
  const { items, total } = await pageChecks(ctx.deps, scope, { mode: query.checkMode, page: query.page, limit: query.limit });
  return envelope(items, total, query.page, query.limit);
}

export async function transferCheck(ctx: Ctx, checkId: number, projectId: number): Promise<CheckItem> {
  const check = await loadCheck(ctx, checkId, 'MEMBER');
  await assertReferencesInWorkspace(ctx.deps, check.workspaceId, { projectId });
  const next: CheckDraft = { ...draftOf(check, outboundOf(check)), projectId, dependencyId: undefined };
  return updateCheck(ctx.deps, check, next);
}

export async function deleteCheck(ctx: Ctx, checkId: number): Promise<void> {
  await softDeleteCheck(ctx.deps, await loadCheck(ctx, checkId, 'MEMBER'));
}

export async function pauseCheckAsUser(ctx: Ctx, checkId: number): Promise<CheckItem> {
  const check = await loadCheck(ctx, checkId, 'MEMBER');
  return pauseCheck(ctx.deps, check, { cause: 'USER', now: ctx.deps.clock.now() });
}

export async function resumeCheckAsUser(ctx: Ctx, checkId: number): Promise<CheckItem> {
  const check = await loadCheck(ctx, checkId, 'MEMBER');
  return resumeCheck(ctx.deps, check, { cause: 'USER', now: ctx.deps.clock.now() });
}
