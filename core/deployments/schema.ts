import { z } from '@hono/zod-openapi';
import { DEPLOYMENT_STATUSES } from '../store/entities/deployment.js';

/** ISO 8601 with `Z` or an explicit offset. */
const Instant = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time with Z or an offset');
const id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const label = z.string().max(255).nullable().optional();
/** Shown as a link in dashboards: only http(s), so a `javascript:` URL never reaches one. */
const link = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2048)
  .nullable()
  .optional();
const checkIds = z.array(id).min(1).max(1000).optional().describe('Checks to pause; default every check of the project');
const StatusFilter = z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(DEPLOYMENT_STATUSES));

export const DeploymentCreateV1 = z
  .strictObject({
    projectId: id,
    name: label,
    version: label,
    author: label,
    link,
    checkIds,
    autoPause: z.boolean().default(true),
    ttlMinutes: z.number().int().min(1).max(1440).optional().describe('Minutes from now until the server ends the window'),
  })
  .openapi('DeploymentCreateV1');

export const DeploymentCreate = z
  .strictObject({
    projectId: id,
    name: label,
    version: label,
    author: label,
    link,
    startedAt: Instant.optional().describe('Default now; a future time schedules the deployment'),
    endedAt: Instant.optional().describe(
      'In the future: the planned end (same as scheduledEndAt). Not in the future: records a finished deployment, ENDED at once (startedAt must be before it); nothing is paused',
    ),
    autoPause: z.boolean().default(false),
    checkIds,
    scheduledStartAt: Instant.optional(),
    scheduledEndAt: Instant.optional(),
  })
  .openapi('DeploymentCreate');

export const DeploymentEnd = z.strictObject({ endedAt: Instant.optional().describe('Default now; not in the future') }).openapi('DeploymentEnd');

export const Deployment = z
  .object({
    id: z.number().int(),
    projectId: z.number().int(),
    name: z.string().nullable(),
    version: z.string().nullable(),
    author: z.string().nullable(),
    link: z.string().nullable(),
    status: z.enum(DEPLOYMENT_STATUSES),
    autoPause: z.boolean(),
    checkIds: z.array(z.number().int()).nullable().describe('null when not restricted'),
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    scheduledEndAt: z.string().nullable(),
  })
  .openapi('Deployment');

export const DashboardDeployment = Deployment.extend({
  workspaceId: z.number().int(),
  autoPausedCheckIds: z.array(z.number().int()).describe('Checks this deployment paused; only these resume when it ends'),
  scheduledStartAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi('DashboardDeployment');

export const DeploymentListQueryV1 = z.object({
  projectId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  status: StatusFilter.optional(),
  from: Instant.optional(),
  to: Instant.optional(),
});

export const DeploymentListQuery = z.object({
  projectId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  start: Instant.optional(),
  end: Instant.optional(),
  checkId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
});

export type DeploymentView = z.infer<typeof Deployment>;
export type DashboardDeploymentView = z.infer<typeof DashboardDeployment>;
