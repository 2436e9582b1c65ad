import { z } from '@hono/zod-openapi';
import { MAINTENANCE_STATES } from '../store/entities/maintenanceWindow.js';

/** ISO 8601 with `Z` or an explicit offset: a window's instants are never ambiguous. */
export const Instant = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time with Z or an offset');

/** State filters match case-insensitively (`active` = `ACTIVE`). */
const StateFilter = z.preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(MAINTENANCE_STATES));

const projectIds = z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).min(1).max(500);
const name = z.string().trim().min(1).max(255);
const description = z.string().max(2000);
const cron = z.string().trim().min(1).max(255).describe('Five-field cron expression (or @daily, @weekly ...) read in `timezone`');
const timezone = z.string().trim().min(1).max(64).describe('IANA time zone, e.g. Europe/Berlin');

export const MaintenanceWindowCreateV1 = z
  .strictObject({
    name,
    endAt: Instant,
    description: description.optional(),
    startAt: Instant.optional(),
    projectIds: projectIds.optional().describe('Default: every project of the workspace, resolved at creation'),
    suppressAlerts: z.boolean().default(true),
    suppressIncidents: z.boolean().default(true),
  })
  .openapi('MaintenanceWindowCreateV1');

export const MaintenanceWindowCreate = z
  .strictObject({
    workspaceId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    name,
    description: description.nullable().optional(),
    startAt: Instant,
    endAt: Instant,
    projectIds,
    suppressAlerts: z.boolean().default(true),
    suppressIncidents: z.boolean().default(true),
    autoPublishToStatusPage: z.boolean().default(false),
    timezone: timezone.default('UTC'),
    recurringCron: cron.nullable().default(null),
  })
  .openapi('MaintenanceWindowCreate');

export const MaintenanceWindowUpdate = z
  .strictObject({
    name: name.optional(),
    description: description.nullable().optional(),
    startAt: Instant.optional(),
    endAt: Instant.optional(),
    projectIds: projectIds.optional(),
    suppressAlerts: z.boolean().optional(),
    suppressIncidents: z.boolean().optional(),
    autoPublishToStatusPage: z.boolean().optional(),
    timezone: timezone.optional(),
    recurringCron: cron.nullable().optional(),
  })
  .openapi('MaintenanceWindowUpdate');

export const MaintenanceWindow = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    state: z.enum(MAINTENANCE_STATES),
    startAt: z.string(),
    endAt: z.string(),
    projectIds: z.array(z.number().int()),
    suppressAlerts: z.boolean(),
    suppressIncidents: z.boolean(),
    autoPublishToStatusPage: z.boolean(),
    timezone: z.string(),
    recurringCron: z.string().nullable(),
    occurrenceStartAt: z.string().nullable().describe('Start of the current or next occurrence; null once terminal'),
    occurrenceEndAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    cancelledAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('MaintenanceWindow');

export const MaintenanceWindowDetail = MaintenanceWindow.extend({
  projects: z.array(z.object({ id: z.number().int(), name: z.string() })),
}).openapi('MaintenanceWindowDetail');

export const MaintenanceListQueryV1 = z.object({
  state: StateFilter.optional(),
  projectId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  from: Instant.optional().describe('Keep windows active at some point at or after this instant (recurring: by its occurrences)'),
  to: Instant.optional().describe('Keep windows active at some point at or before this instant (recurring: by its occurrences)'),
});

export const MaintenanceListQuery = z.object({
  workspaceId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  state: StateFilter.optional(),
});

export type MaintenanceWindowView = z.infer<typeof MaintenanceWindow>;
