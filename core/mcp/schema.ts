import { z } from '@hono/zod-openapi';
import { jobRuleView } from '../checks/jobRules.js';
import { CHECK_STATUSES, CHECK_TYPES, SEVERITIES } from '../store/entities/check.js';
import { DEPLOYMENT_STATUSES } from '../store/entities/deployment.js';
import { INCIDENT_STATES } from '../store/entities/incident.js';
import { MAINTENANCE_STATES } from '../store/entities/maintenanceWindow.js';
import { SIGNAL_TYPES } from '../store/entities/signal.js';
import { MAX_LIMIT } from '../http/pagination.js';

/**
 * The shapes the assistant sees. Inputs reuse the `/v1` bodies where those are plain zod; list
 * filters are spelled out here because the `/v1` query schemas preprocess strings (case-folding),
 * which JSON Schema cannot express and the SDK's tools/list would refuse. Outputs are compact
 * views: an assistant's context is small, so lists carry summaries and details come on request.
 */

export const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** `page`/`limit` of every list; the limit is capped as on the API (spec: at most 100). */
export const PageArgs = {
  page: z.number().int().min(1).max(10_000).default(1).describe('1-based page number'),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(20).describe(`items per page, at most ${MAX_LIMIT}`),
};

/** What every list answers besides its items: enough to know whether to ask for the next page. */
export const PageInfo = {
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  pageCount: z.number().int(),
  remaining: z.number().int().describe('items after this page'),
  nextPage: z.number().int().nullable().describe('the page to ask for next; null on the last page'),
};

export const CheckRef = z
  .union([Id, z.string().trim().min(1).max(80)])
  .transform(String)
  .describe('a check id (number), or "slug:<slug>"');

export const CheckSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string().nullable(),
  projectId: z.number().int().nullable(),
  checkType: z.enum(CHECK_TYPES),
  status: z.enum(CHECK_STATUSES),
  paused: z.boolean(),
  lastPingAt: z.string().nullable().describe('heartbeat jobs: the last SUCCESS or FAIL ping'),
  nextDueAt: z.string().nullable(),
  url: z.string().nullable().describe('HTTP checks: the probed URL'),
});
export type CheckSummary = z.infer<typeof CheckSummary>;

/** How a check is timed, as the API shows it (core/checks/jobRules.ts `timingView`), with its grace. */
export const CheckTiming = {
  intervalSeconds: z.number().int().nullable().describe('null for a heartbeat job timed by `schedule`'),
  ...jobRuleView,
  graceSeconds: z.number().int(),
};

export const SignalSummary = z.object({
  type: z.enum(SIGNAL_TYPES),
  source: z.string(),
  receivedAt: z.string(),
  durationMs: z.number().int().nullable(),
  payloadPreview: z.string().nullable().describe('the first 200 characters of the ping body, if any'),
});
export type SignalSummary = z.infer<typeof SignalSummary>;

export const RegionRun = z.object({
  region: z.string(),
  lastRunAt: z.string().nullable(),
  ok: z.boolean().nullable(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int().nullable(),
  failureReason: z.string().nullable(),
});
export type RegionRun = z.infer<typeof RegionRun>;

export const ProbeSummary = z.object({
  consecutiveFailures: z.number().int(),
  consecutiveSuccesses: z.number().int(),
  lastRoundAt: z.string().nullable(),
  regions: z.array(RegionRun),
});
export type ProbeSummary = z.infer<typeof ProbeSummary>;

export const DependencySummary = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(['OK', 'DOWN', 'UNKNOWN']),
  source: z.enum(['MANUAL', 'REPORTED']),
  lastReportedAt: z.string().nullable(),
});
export type DependencySummary = z.infer<typeof DependencySummary>;

export const HoldSummary = z.object({
  kind: z.enum(['DEPLOYMENT', 'MAINTENANCE']),
  id: z.number().int(),
  name: z.string().nullable(),
  startedAt: z.string(),
  endsAt: z.string().nullable(),
  effect: z.string().describe('what the window does to this check'),
});
export type HoldSummary = z.infer<typeof HoldSummary>;

export const IncidentSummary = z.object({
  id: z.number().int(),
  title: z.string(),
  state: z.enum(INCIDENT_STATES),
  severity: z.enum(SEVERITIES),
  reason: z.string(),
  checkId: z.number().int().nullable(),
  projectId: z.number().int().nullable(),
  startedAt: z.string(),
  acknowledgedAt: z.string().nullable(),
  resolvedAt: z.string().nullable(),
});
export type IncidentSummary = z.infer<typeof IncidentSummary>;

export const TimelineEvent = z.object({ type: z.string(), message: z.string(), occurredAt: z.string() });
export type TimelineEvent = z.infer<typeof TimelineEvent>;

export const DeploymentSummary = z.object({
  id: z.number().int(),
  projectId: z.number().int(),
  name: z.string().nullable(),
  version: z.string().nullable(),
  status: z.enum(DEPLOYMENT_STATUSES),
  autoPause: z.boolean(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  scheduledEndAt: z.string().nullable(),
});

export const MaintenanceSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  state: z.enum(MAINTENANCE_STATES),
  projectIds: z.array(z.number().int()),
  startAt: z.string(),
  endAt: z.string(),
  suppressAlerts: z.boolean(),
  suppressIncidents: z.boolean(),
  recurringCron: z.string().nullable(),
});
