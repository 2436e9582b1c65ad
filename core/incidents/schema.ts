import { z } from '@hono/zod-openapi';
import { pageQuery } from '../http/pagination.js';
import { SEVERITIES } from '../store/entities/check.js';
import { INCIDENT_REASONS, INCIDENT_STATES } from '../store/entities/incident.js';
import { INCIDENT_EVENT_TYPES } from '../store/entities/incidentEvent.js';
import { SIGNAL_TYPES } from '../store/entities/signal.js';

const id = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const bodyId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const IncidentIdParam = z.object({ incidentId: id });
export const NoteParams = z.object({ incidentId: id, noteId: id });

/** `OPEN` and `MONITORING` are aliases of `ACTIVE` (every unresolved incident); case-insensitive. */
export const IncidentStateFilter = z
  .preprocess((value) => (typeof value === 'string' ? value.toUpperCase() : value), z.enum(['ACTIVE', 'OPEN', 'MONITORING', 'RESOLVED']))
  .transform((value) => (value === 'RESOLVED' ? ('RESOLVED' as const) : ('ACTIVE' as const)));

export const IncidentListQuery = pageQuery(20).extend({
  workspaceId: id.optional(),
  projectId: id.optional(),
  checkId: id.optional(),
  state: IncidentStateFilter.optional(),
});

export const IncidentListQueryV1 = IncidentListQuery.omit({ workspaceId: true });

const ref = (name: string, extra: Record<string, z.ZodType> = {}) =>
  z
    .object({ id: z.number().int(), ...extra })
    .nullable()
    .describe(name);

export const Incident = z
  .object({
    id: z.number().int(),
    publicId: z.string().describe('lower-case ULID'),
    workspaceId: z.number().int(),
    projectId: z.number().int().nullable(),
    checkId: z.number().int().nullable().describe('the check that triggered it'),
    title: z.string(),
    summary: z.string().nullable(),
    state: z.enum(INCIDENT_STATES),
    reason: z.enum(INCIDENT_REASONS),
    severity: z.enum(SEVERITIES),
    startedAt: z.string(),
    resolvedAt: z.string().nullable(),
    recoveredAt: z.string().nullable().describe('when the service actually recovered'),
    acknowledgedBy: z.number().int().nullable().describe('user id; null when unacknowledged or acknowledged by an API key'),
    acknowledgedAt: z.string().nullable(),
    dependencyId: z.number().int().nullable(),
    dependencyName: z.string().nullable(),
    integrationId: z.number().int().nullable().describe('the integration whose alert opened it'),
    declared: z.boolean().describe('declared through the API rather than opened by monitoring'),
    createdAt: z.string(),
    updatedAt: z.string(),
    project: ref('{id, name}', { name: z.string() }),
    check: ref('{id, name, token}; token is null for a read_only API key', { name: z.string(), token: z.string().nullable() }),
    dependency: ref('{id, name}; DEPENDENCY_DOWN only', { name: z.string() }),
    acknowledgedByUser: ref('{id, email}; when acknowledged by a user', { email: z.string() }),
    lastSignalAt: z.string().nullable(),
    lastSignalType: z.enum(SIGNAL_TYPES).nullable(),
    lastSignalSource: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
    durationSinceSuccessMs: z.number().nullable(),
  })
  .openapi('Incident');

export type IncidentResponse = z.infer<typeof Incident>;

export const IncidentEvent = z
  .object({
    id: z.number().int(),
    incidentId: z.number().int(),
    type: z.enum(INCIDENT_EVENT_TYPES),
    message: z.string(),
    occurredAt: z.string(),
    actorUserId: z.number().int().nullable(),
    actorApiKeyId: z.number().int().nullable(),
  })
  .openapi('IncidentEvent');

export const NoteBody = z.strictObject({ body: z.string().trim().min(1).max(10_000) }).openapi('IncidentNoteBody');

export const IncidentNote = z
  .object({
    id: z.number().int(),
    incidentId: z.number().int(),
    body: z.string(),
    authorId: z.number().int().nullable().describe('null when an API key wrote the note (authorApiKey says which)'),
    author: z.object({ id: z.number().int(), email: z.string() }).nullable(),
    authorApiKey: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('IncidentNote');

/** Integration API declare body; at most one target (checked by the server: MULTIPLE_INCIDENT_TARGETS). */
export const IncidentCreate = z
  .strictObject({
    title: z.string().trim().min(1).max(255),
    description: z.string().max(2000).optional(),
    severity: z.enum(SEVERITIES).optional(),
    checkId: bodyId.optional(),
    jobId: bodyId.optional(),
    dependencyId: bodyId.optional(),
  })
  .openapi('IncidentCreate');
