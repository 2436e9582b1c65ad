import { z } from '@hono/zod-openapi';
import { ErrorBody } from '../http/errors.js';
import { pageQuery, pageSchema } from '../http/pagination.js';
import { CHECK_MODES, CHECK_STATUSES, CHECK_TYPES, SEVERITIES } from '../store/entities/check.js';
import { jobRuleFields, jobRuleView } from './jobRules.js';
import { OUTBOUND_METHODS, OutboundConfig, OutboundConfigPatch, OutboundConfigView, PROBE_REGIONS } from './outboundSchema.js';

const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const Name = z.string().trim().min(1).max(255);
const Severity = z.enum(SEVERITIES);
export const CHECK_SLUG = /^[a-z0-9_-]{1,64}$/;
export const Slug = z.string().max(64).regex(CHECK_SLUG, 'must match ^[a-z0-9_-]{1,64}$');
// The same workspace-unique address the Integration API sets (`slug:<slug>`, slug pings).
const DashboardSlug = Slug.nullable().openapi({
  description: 'Unique per workspace (409 SLUG_TAKEN otherwise); addresses the check as `slug:<slug>` in the Integration API and in slug pings; null clears it',
  example: 'nightly-backup',
});

export const CheckIdParam = z.object({ id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const CheckTokenParam = z.object({ token: z.string().min(1).max(128) });
/** Integration API `:id`: a check id or `slug:<slug>`. */
export const CheckRefParam = z.object({ id: z.string().min(1).max(80).openapi({ description: 'A check id or `slug:<slug>`' }) });

// The dashboard body carries the outbound fields flat; they are bounded here and gathered into
// one OutboundConfig (defaults and the status-range rule) by the verb when checkMode is OUTBOUND.
const flatOutbound = {
  url: z.string().max(2048).optional(),
  method: z.enum(OUTBOUND_METHODS).optional(),
  customHeaders: z.record(z.string(), z.string()).nullable().optional(),
  timeoutMs: z.number().int().min(1000).max(15000).optional(),
  expectedStatusMin: z.number().int().min(100).max(599).optional(),
  expectedStatusMax: z.number().int().min(100).max(599).optional(),
  followRedirects: z.boolean().optional(),
  maxRedirects: z.number().int().min(0).max(3).optional(),
  blockHttpDowngrade: z.boolean().optional(),
  failAfterConsecutive: z.number().int().min(1).max(10).optional(),
  resolveAfterConsecutiveSuccess: z.number().int().min(1).max(10).optional(),
  latencyWarnMs: z.number().int().min(1).max(60_000).nullable().optional(),
  sslExpiryWarnDays: z.number().int().min(1).max(365).optional(),
  regions: z.array(z.enum(PROBE_REGIONS)).nullable().optional(),
};

/** The public badge shows this, never the check's name (badge ids are sequential). */
export const DEFAULT_BADGE_LABEL = 'status';
const BadgeLabel = z.string().trim().min(1).max(40).openapi({ description: 'Text of the public badge (default "status")', example: 'backups' });

const dashboardFields = {
  name: Name,
  badgeLabel: BadgeLabel,
  projectId: Id,
  dependencyId: Id,
  intervalSeconds: z.number().int().min(60).max(3600),
  graceSeconds: z.number().int().min(5).max(60).openapi({ description: 'Lateness tolerated before LATE: LATE at nextDueAt + graceSeconds, DOWN at nextDueAt + 2 x graceSeconds' }),
  checkMode: z.enum(CHECK_MODES),
  checkType: z.enum(CHECK_TYPES),
  muteNotifications: z.boolean(),
  dependencyIds: z.array(Id).max(100),
  downSeverity: Severity,
  lateSeverity: Severity,
};

export const DashboardCheckCreate = z
  .strictObject({
    name: dashboardFields.name,
    slug: DashboardSlug.optional(),
    badgeLabel: dashboardFields.badgeLabel.optional(),
    projectId: dashboardFields.projectId.optional(),
    dependencyId: dashboardFields.dependencyId.optional(),
    intervalSeconds: dashboardFields.intervalSeconds.nullable().optional().openapi({ description: 'Required unless an INBOUND check gives `schedule` (exactly one of the two)' }),
    graceSeconds: dashboardFields.graceSeconds,
    checkMode: dashboardFields.checkMode.optional(),
    checkType: dashboardFields.checkType.optional(),
    muteNotifications: dashboardFields.muteNotifications.optional(),
    dependencyIds: dashboardFields.dependencyIds.optional(),
    downSeverity: dashboardFields.downSeverity.optional(),
    lateSeverity: dashboardFields.lateSeverity.optional(),
    ...jobRuleFields,
    ...flatOutbound,
  })
  .openapi('CheckCreate');
export type DashboardCheckCreate = z.output<typeof DashboardCheckCreate>;

export const DashboardCheckUpdate = z
  .strictObject({
    name: dashboardFields.name.optional(),
    slug: DashboardSlug.optional(),
    badgeLabel: dashboardFields.badgeLabel.optional(),
    projectId: dashboardFields.projectId.optional(),
    dependencyId: dashboardFields.dependencyId.optional(),
    intervalSeconds: dashboardFields.intervalSeconds.nullable().optional(),
    graceSeconds: dashboardFields.graceSeconds.optional(),
    checkMode: dashboardFields.checkMode.optional(),
    checkType: dashboardFields.checkType.optional(),
    muteNotifications: dashboardFields.muteNotifications.optional(),
    dependencyIds: dashboardFields.dependencyIds.optional(),
    downSeverity: dashboardFields.downSeverity.optional(),
    lateSeverity: dashboardFields.lateSeverity.optional(),
    ...jobRuleFields,
    ...flatOutbound,
  })
  .openapi('CheckUpdate');
export type DashboardCheckUpdate = z.output<typeof DashboardCheckUpdate>;

export const CheckTransfer = z.strictObject({ projectId: Id }).openapi('CheckTransfer');

export const CheckListQuery = pageQuery(10).extend({
  workspaceId: z.coerce.number().int().min(1).optional(),
  projectId: z.coerce.number().int().min(1).optional(),
  checkMode: z.enum(CHECK_MODES).optional(),
  q: z.string().min(1).max(100).optional().openapi({ description: 'Case-insensitive substring of the name. Any of q, status, checkType or cursor pages by cursor' }),
  status: z.enum(CHECK_STATUSES).optional(),
  checkType: z.enum(CHECK_TYPES).optional(),
  cursor: z
    .string()
    .regex(/^[0-9]{1,16}$/, 'a nextCursor from an earlier page')
    .optional()
    .openapi({ description: "The previous page's `nextCursor`: the page after it (with the same filters); `page` must then be 1" }),
});
export type CheckListQuery = z.output<typeof CheckListQuery>;

export const DashboardCheck = z
  .object({
    id: z.number().int(),
    token: z.string(),
    workspaceId: z.number().int(),
    name: z.string(),
    slug: z.string().nullable(),
    projectId: z.number().int().nullable(),
    dependencyId: z.number().int().nullable(),
    dependencyIds: z.array(z.number().int()),
    checkMode: z.enum(CHECK_MODES),
    checkType: z.enum(CHECK_TYPES),
    intervalSeconds: z.number().int().nullable().openapi({ description: 'null for a check timed by `schedule`' }),
    ...jobRuleView,
    graceSeconds: z.number().int(),
    muteNotifications: z.boolean(),
    downSeverity: Severity,
    lateSeverity: Severity,
    status: z.enum(CHECK_STATUSES),
    paused: z.boolean(),
    deploymentPaused: z.boolean(),
    lastPingAt: z.string().nullable(),
    nextDueAt: z.string().nullable(),
    outbound: OutboundConfigView.nullable(),
    pingUrl: z.string(),
    badgeUrl: z.string(),
    badgeLabel: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Check');
export type DashboardCheck = z.output<typeof DashboardCheck>;

/**
 * The spec's page envelope plus `nextCursor`. A filtered list (q, status, checkType) or a cursor
 * page reads a bounded number of checks per request, so it may hold fewer than `limit` items, even
 * none, while `nextCursor` is not null; its `total` and `pageCount` are null unless the one request
 * read the whole filtered list.
 */
export const CheckPage = z
  .object({
    items: z.array(DashboardCheck),
    total: z.number().int().nullable(),
    page: z.number().int(),
    itemCount: z.number().int(),
    pageCount: z.number().int().nullable(),
    limit: z.number().int(),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null after the last' }),
  })
  .openapi('CheckPage');

// ---- Integration API ----

export const CheckV1 = z
  .object({
    id: z.number().int(),
    slug: z.string().nullable(),
    name: z.string(),
    projectId: z.number().int(),
    checkType: z.enum(CHECK_TYPES),
    intervalSeconds: z.number().int(),
    graceSeconds: z.number().int(),
    muteNotifications: z.boolean(),
    downSeverity: Severity,
    lateSeverity: Severity,
    paused: z.boolean(),
    status: z.enum(CHECK_STATUSES),
    config: OutboundConfigView.nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('CheckV1');
export type CheckV1 = z.output<typeof CheckV1>;
export const CheckV1Page = pageSchema(CheckV1, 'CheckV1PageResponse');

// checkType is any string here so that every value other than HTTP gets the spec's 422.
const V1CheckType = z.string().max(32).openapi({ description: 'Only HTTP is supported', example: 'HTTP' });

export const CheckV1Create = z
  .strictObject({
    name: Name,
    projectId: Id,
    config: OutboundConfig,
    checkType: V1CheckType.default('HTTP'),
    intervalSeconds: z.number().int().min(10).max(3600).default(300),
    graceSeconds: z.number().int().min(5).max(60).default(5),
    downSeverity: Severity.default('P1'),
    lateSeverity: Severity.default('P3'),
    muteNotifications: z.boolean().default(false),
    slug: Slug.nullable().default(null),
  })
  .openapi('CheckV1Create');

/** Checks one `POST /v1/checks/batch` may create; it costs ceil(items / 10) of the key's rate limit. */
export const CHECK_BATCH_MAX = 100;

/**
 * Each item is judged on its own, exactly as a `POST /v1/checks` body (core/checks/v1.ts), so a bad
 * item is that item's 400, not the request's: the array holds anything, documented as CheckV1Create.
 */
export const CheckV1BatchCreate = z
  .strictObject({
    items: z
      .array(z.unknown().openapi({ allOf: [{ $ref: '#/components/schemas/CheckV1Create' }] }))
      .min(1)
      .max(CHECK_BATCH_MAX),
  })
  .openapi('CheckV1BatchCreate');

export const CheckV1BatchResult = z
  .object({
    results: z.array(
      z.union([
        z.object({ index: z.number().int(), status: z.literal(201), check: CheckV1 }),
        z.object({
          index: z.number().int(),
          status: z.number().int().min(400).max(499),
          error: ErrorBody.openapi({ description: 'What `POST /v1/checks` would have answered for this item' }),
        }),
      ]),
    ),
  })
  .openapi('CheckV1BatchResult');

export const CheckV1Update = z
  .strictObject({
    name: Name.optional(),
    projectId: Id.optional(),
    config: OutboundConfigPatch.optional(),
    checkType: V1CheckType.optional(),
    intervalSeconds: z.number().int().min(10).max(3600).optional(),
    graceSeconds: z.number().int().min(5).max(60).optional(),
    downSeverity: Severity.optional(),
    lateSeverity: Severity.optional(),
    muteNotifications: z.boolean().optional(),
    slug: Slug.nullable().optional(),
  })
  .openapi('CheckV1Update');

export const JobCreate = z
  .strictObject({
    name: Name,
    projectId: Id,
    intervalSeconds: z.number().int().min(10).max(604_800).nullable().optional().openapi({ description: 'Default 3600 unless `schedule` is given (exactly one of the two)' }),
    ...jobRuleFields,
    graceSeconds: z
      .number()
      .int()
      .min(5)
      .max(86_400)
      .default(300)
      .openapi({ description: 'Lateness tolerated before LATE: LATE at nextDueAt + graceSeconds, DOWN at nextDueAt + 2 x graceSeconds' }),
    downSeverity: Severity.default('P1'),
    lateSeverity: Severity.default('P3'),
    muteNotifications: z.boolean().default(false),
    slug: Slug.nullable().default(null),
  })
  .openapi('JobCreate');
export type JobCreateInput = z.input<typeof JobCreate>;

export const JobUpdate = z
  .strictObject({
    name: Name.optional(),
    projectId: Id.optional(),
    intervalSeconds: z.number().int().min(10).max(604_800).nullable().optional(),
    ...jobRuleFields,
    graceSeconds: z
      .number()
      .int()
      .min(5)
      .max(86_400)
      .openapi({ description: 'Lateness tolerated before LATE: LATE at nextDueAt + graceSeconds, DOWN at nextDueAt + 2 x graceSeconds' })
      .optional(),
    downSeverity: Severity.optional(),
    lateSeverity: Severity.optional(),
    muteNotifications: z.boolean().optional(),
    slug: Slug.nullable().optional(),
  })
  .openapi('JobUpdate');

export const JobV1 = CheckV1.extend({
  checkType: z.literal('HEARTBEAT'),
  intervalSeconds: z.number().int().nullable().openapi({ description: 'null for a job timed by `schedule`' }),
  ...jobRuleView,
  config: z.null(),
  // null for a read_only key: a ping token is a write credential.
  token: z.string().nullable(),
  pingUrl: z.string().nullable(),
  lastPingAt: z.string().nullable(),
  nextDueAt: z.string().nullable(),
  description: z.string().nullable().openapi({ description: 'Brought by an import (e.g. a Healthchecks check’s `desc`); null otherwise' }),
  tags: z.array(z.string()).openapi({ description: 'Brought by an import (e.g. a Healthchecks check’s tags); empty otherwise' }),
}).openapi('JobV1');
export type JobV1 = z.output<typeof JobV1>;
export const JobV1Page = pageSchema(JobV1, 'JobV1PageResponse');

export { OutboundConfig, OutboundConfigPatch };

// ---- Dashboard list helpers ----

const distinctIds = (ids: readonly number[]) => new Set(ids).size === ids.length;

export const CHECK_BULK_ACTIONS = ['pause', 'resume', 'delete'] as const;

export const CheckBulkBody = z
  .strictObject({
    workspaceId: Id,
    action: z.enum(CHECK_BULK_ACTIONS),
    ids: z.array(Id).min(1).max(100).refine(distinctIds, 'ids must be unique'),
  })
  .openapi('CheckBulkRequest');
export type CheckBulkBody = z.output<typeof CheckBulkBody>;

export const CheckBulkResult = z
  .object({
    results: z.array(
      z.object({
        id: z.number().int(),
        ok: z.boolean(),
        error: z
          .object({ code: z.string(), message: z.string() })
          .nullable()
          .openapi({ description: 'Why this id was not acted on (NOT_FOUND for an unknown, deleted or foreign id); null when ok' }),
      }),
    ),
  })
  .openapi('CheckBulkResult');

export const SparklineQuery = z.object({
  workspaceId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  ids: z
    .string()
    .regex(/^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,99}$/, '1 to 100 check ids, comma-separated')
    .openapi({ description: '1 to 100 check ids, comma-separated, e.g. `1,2,3`', example: '1,2,3' }),
});

export const Sparklines = z
  .object({
    items: z.array(
      z.object({
        id: z.number().int(),
        latencyMs: z.array(z.number().int()).openapi({ description: "The check's last (up to 30) successful probe latencies, any region, oldest first; [] for a heartbeat job" }),
        lastProbeAt: z.string().nullable().openapi({
          description: 'Start of the last probe round folded into the status (`probe.lastRoundAt` of GET /checks/{id}); null for a heartbeat job or before its first round',
        }),
      }),
    ),
  })
  .openapi('CheckSparklines');
