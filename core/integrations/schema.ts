import { z } from '@hono/zod-openapi';
import { INTEGRATION_GROUPINGS, INTEGRATION_KINDS } from '../store/entities/integration.js';
import { SEVERITIES } from '../store/entities/check.js';

const Name = z.string().trim().min(1).max(255);
const Severity = z.enum(SEVERITIES);
/** At most 50 label values; a value is what the `severity` label of an alert says. */
const MAX_SEVERITY_ENTRIES = 50;

export const DEFAULT_SEVERITY_MAP = { critical: 'P1', warning: 'P3' } as const;

export const SeverityMap = z
  .record(z.string().min(1).max(100), Severity)
  .refine((map) => Object.keys(map).length <= MAX_SEVERITY_ENTRIES, { message: `at most ${MAX_SEVERITY_ENTRIES} entries` })
  .describe('The value of an alert\'s `severity` label -> the incident severity (default {"critical":"P1","warning":"P3"}); an unmapped value takes defaultSeverity');

const Grouping = z
  .enum(INTEGRATION_GROUPINGS)
  .describe('ALERTMANAGER and GRAFANA: GROUP (default) opens one incident per notification group (groupKey), ALERT one per alert (fingerprint)');

const projectId = z.number().int().min(1);

export const IntegrationCreate = z
  .strictObject({
    workspaceId: z.number().int().min(1).optional(),
    name: Name,
    kind: z.enum(INTEGRATION_KINDS),
    projectId: projectId
      .optional()
      .describe(
        "The project its incidents belong to (and so its escalation policy and maintenance windows); an alert's `vigil_project` label (a project id or name of the workspace) overrides it",
      ),
    enabled: z.boolean().optional(),
    defaultSeverity: Severity.optional().describe('Severity of an alert whose source names none this integration maps (default P3)'),
    severityMap: SeverityMap.optional(),
    grouping: Grouping.optional(),
  })
  .openapi('IntegrationCreate');
export type IntegrationCreate = z.infer<typeof IntegrationCreate>;

export const IntegrationUpdate = z
  .strictObject({
    name: Name.optional(),
    projectId: projectId.nullable().optional().describe('null: no project'),
    enabled: z.boolean().optional().describe('false: the intake URL answers 404 until it is enabled again'),
    defaultSeverity: Severity.optional(),
    severityMap: SeverityMap.optional(),
    grouping: Grouping.optional(),
  })
  .openapi('IntegrationUpdate');
export type IntegrationUpdate = z.infer<typeof IntegrationUpdate>;

export const Integration = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    kind: z.enum(INTEGRATION_KINDS),
    projectId: z.number().int().nullable(),
    enabled: z.boolean(),
    defaultSeverity: Severity,
    severityMap: z.record(z.string(), Severity),
    grouping: z.enum(INTEGRATION_GROUPINGS),
    secretHint: z.string().describe('The last four characters of the intake secret'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Integration');

export const IntegrationCreated = Integration.extend({
  intakeUrl: z.string().describe('POST alerts here. Shown once: only a hash of its secret is kept'),
  secret: z.string().describe('The secret of intakeUrl, also accepted as `Authorization: Bearer <secret>` on POST /integrations/intake. Shown once'),
}).openapi('IntegrationCreated');

export const IntakeAccepted = z
  .object({
    accepted: z.number().int().describe('How many alerts the request carried'),
    incidentIds: z.array(z.number().int()).describe('The incidents they opened, raised or resolved (none for a stale or repeated delivery)'),
  })
  .openapi('IntakeAccepted');
