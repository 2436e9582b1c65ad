import { z } from '@hono/zod-openapi';
import { authorize } from '../auth/authorize.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { envelope } from '../http/pagination.js';
import { validationError, zodDetails } from '../http/router.js';
import type { CheckItem } from '../store/entities/check.js';
import { assertReferencesInWorkspace, workspaceForNewCheck } from './associations.js';
import { insertCheck, outboundOf, softDeleteCheck, updateCheck, type ImportedFields } from './lifecycle.js';
import { mergeOutboundConfig, parseOutboundConfig, type OutboundConfig, type OutboundConfigPatch } from './outboundSchema.js';
import { pauseCheck, resumeCheck } from './pause.js';
import { loadCheckByRef, pageChecks } from './repository.js';
import type { Ctx } from '../context.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { resolveTiming } from './jobRules.js';
import { draftOf, type CheckDraft, type CheckMode } from './rules.js';
import { CheckV1Create, CheckV1Update, JobCreate, JobUpdate, type JobCreateInput } from './schema.js';

/**
 * Integration API verbs. `/v1/checks` are the outbound HTTP checks and `/v1/jobs` the heartbeat
 * checks (docs/guide/checks-and-pings.md): each surface sees only its own kind, the other kind is a 404 there.
 */
const DEFAULT_JOB_INTERVAL_SECONDS = 3600;

export type V1Kind = 'check' | 'job';
const MODE: Record<V1Kind, CheckMode> = { check: 'OUTBOUND', job: 'INBOUND' };

export function assertHttp(checkType: unknown): void {
  if (checkType !== undefined && checkType !== 'HTTP') {
    throw new HttpError('CHECK_TYPE_NOT_SUPPORTED', `checkType ${JSON.stringify(checkType)} is not supported; only HTTP is`, [
      { path: 'checkType', message: 'only HTTP is supported' },
    ]);
  }
}

export async function listV1(ctx: Ctx, kind: V1Kind, page: number, limit: number) {
  const workspaceId = keyWorkspaceId(ctx.actor);
  await authorize(ctx.deps, ctx.actor, workspaceId, 'VIEWER', 'Workspace');
  const { items, total } = await pageChecks(ctx.deps, { workspaceId }, { mode: MODE[kind], page, limit });
  return envelope(items, total, page, limit);
}

export async function loadV1(ctx: Ctx, kind: V1Kind, ref: string, minRole: 'VIEWER' | 'MEMBER'): Promise<CheckItem> {
  const check = await loadCheckByRef(ctx, ref, minRole);
  if (check.checkMode !== MODE[kind]) throw notFound(kind === 'check' ? 'Check' : 'Job');
  return check;
}

export async function createV1Check(ctx: Ctx, body: z.output<typeof CheckV1Create>, imported: ImportedFields = {}): Promise<CheckItem> {
  const { workspaceId, limits } = await workspaceForNewCheck(ctx, { projectId: body.projectId });
  assertHttp(body.checkType);
  return insertCheck(
    ctx.deps,
    {
      workspaceId,
      projectId: body.projectId,
      dependencyId: undefined,
      dependencyIds: undefined,
      name: body.name,
      slug: body.slug,
      checkMode: 'OUTBOUND',
      checkType: 'HTTP',
      intervalSeconds: body.intervalSeconds,
      graceSeconds: body.graceSeconds,
      muteNotifications: body.muteNotifications,
      downSeverity: body.downSeverity,
      lateSeverity: body.lateSeverity,
      outbound: parseOutboundConfig(body.config, 'config'),
    },
    limits,
    imported,
  );
}

/**
 * One item of `POST /v1/checks/batch`, through the same rules as a `POST /v1/checks` body: the
 * checkType first (v1Routes.ts checkTypeFirst), then the schema's 400, then the create itself.
 */
export async function createV1CheckFromInput(ctx: Ctx, input: unknown): Promise<CheckItem> {
  if (typeof input === 'object' && input !== null && 'checkType' in input) assertHttp(input.checkType);
  const parsed = CheckV1Create.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  return createV1Check(ctx, parsed.data);
}

/** A job body with its defaults and its timing resolved, or a 400: what a create would store, before anything is written. */
export function parseHeartbeatJob(input: JobCreateInput, now: Date) {
  const parsed = JobCreate.safeParse(input);
  if (!parsed.success) throw badRequest('Invalid job', zodDetails(parsed.error));
  const body = parsed.data;
  return { body, timing: resolveTiming({ jobRules: undefined, intervalSeconds: undefined }, body, now, DEFAULT_JOB_INTERVAL_SECONDS) };
}

/**
 * Creates a heartbeat job from the Integration API body (defaults applied here, so callers such as
 * slug pings with `?create=1` may pass just a name, project and slug). A taken slug is 409 SLUG_TAKEN.
 * `imported`: what an import brings (a given ping token, a description, tags).
 */
export async function createHeartbeatJob(ctx: Ctx, input: JobCreateInput, imported: ImportedFields = {}): Promise<CheckItem> {
  const { body, timing } = parseHeartbeatJob(input, ctx.deps.clock.now());
  const { workspaceId, limits } = await workspaceForNewCheck(ctx, { projectId: body.projectId });
  return insertCheck(
    ctx.deps,
    {
      workspaceId,
      projectId: body.projectId,
      dependencyId: undefined,
      dependencyIds: undefined,
      name: body.name,
      slug: body.slug,
      checkMode: 'INBOUND',
      checkType: 'HEARTBEAT',
      intervalSeconds: timing.intervalSeconds,
      jobRules: timing.jobRules,
      graceSeconds: body.graceSeconds,
      muteNotifications: body.muteNotifications,
      downSeverity: body.downSeverity,
      lateSeverity: body.lateSeverity,
      outbound: undefined,
    },
    limits,
    imported,
  );
}

type CommonPatch = Partial<Pick<CheckDraft, 'name' | 'intervalSeconds' | 'graceSeconds' | 'downSeverity' | 'lateSeverity' | 'muteNotifications'>> & {
  /** Jobs only: the resolved rules (undefined clears them). */
  jobRules?: string | undefined;
  projectId?: number | undefined;
  slug?: string | null | undefined;
};

async function applyCommon(ctx: Ctx, check: CheckItem, patch: CommonPatch, outbound: OutboundConfig | undefined): Promise<CheckItem> {
  const next: CheckDraft = { ...draftOf(check, outbound), outbound };
  for (const key of ['name', 'intervalSeconds', 'graceSeconds', 'downSeverity', 'lateSeverity', 'muteNotifications', 'slug'] as const) {
    if (patch[key] !== undefined) Object.assign(next, { [key]: patch[key] });
  }
  if ('jobRules' in patch) next.jobRules = patch.jobRules;
  if (patch.projectId !== undefined) {
    await assertReferencesInWorkspace(ctx.deps, check.workspaceId, { projectId: patch.projectId });
    Object.assign(next, { projectId: patch.projectId, dependencyId: undefined });
  }
  return updateCheck(ctx.deps, check, next);
}

export async function updateV1Check(ctx: Ctx, ref: string, body: z.output<typeof CheckV1Update>): Promise<CheckItem> {
  const check = await loadV1(ctx, 'check', ref, 'MEMBER');
  assertHttp(body.checkType);
  const current = outboundOf(check);
  const outbound = body.config ? parseOutboundConfig(mergeOutboundConfig((current ?? {}) as OutboundConfig, body.config as OutboundConfigPatch), 'config') : current;
  if (!outbound) throw badRequest('This check has no valid probe config; send a complete config', [{ path: 'config', message: 'Required' }]);
  return applyCommon(ctx, check, body, outbound);
}

export async function updateV1Job(ctx: Ctx, ref: string, body: z.output<typeof JobUpdate>): Promise<CheckItem> {
  const check = await loadV1(ctx, 'job', ref, 'MEMBER');
  const { intervalSeconds, ...rest } = body;
  const timing = resolveTiming({ jobRules: check.jobRules, intervalSeconds: check.intervalSeconds }, body, ctx.deps.clock.now());
  return applyCommon(
    ctx,
    check,
    { ...rest, ...(intervalSeconds != null || body.schedule != null ? { intervalSeconds: timing.intervalSeconds } : {}), jobRules: timing.jobRules },
    undefined,
  );
}

export async function deleteV1(ctx: Ctx, kind: V1Kind, ref: string): Promise<void> {
  await softDeleteCheck(ctx.deps, await loadV1(ctx, kind, ref, 'MEMBER'));
}

export async function pauseV1(ctx: Ctx, kind: V1Kind, ref: string): Promise<CheckItem> {
  return pauseCheck(ctx.deps, await loadV1(ctx, kind, ref, 'MEMBER'), { cause: 'USER', now: ctx.deps.clock.now() });
}

export async function resumeV1(ctx: Ctx, kind: V1Kind, ref: string): Promise<CheckItem> {
  return resumeCheck(ctx.deps, await loadV1(ctx, kind, ref, 'MEMBER'), { cause: 'USER', now: ctx.deps.clock.now() });
}
