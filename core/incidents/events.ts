import { z } from 'zod';
import { INCIDENT_EVENT_TYPES } from '../store/entities/incidentEvent.js';
import type { FiredStep, Severity, TimelineEffect } from './transition.js';

/**
 * What incident processing publishes on the `alerts` queue, one message per timeline change that
 * may notify someone. Consumers are idempotent: (incidentId, type) names the notification, and a
 * redelivered message must send nothing twice.
 */
export type IncidentAlertMessage = {
  type: 'incident.opened' | 'incident.severity_changed' | 'incident.acknowledged' | 'incident.monitoring' | 'incident.resolved';
  incidentId: number;
  workspaceId: number;
  projectId: number | null;
  checkId: number | null;
  severity: Severity;
  /** When the change happened (the timeline event's occurredAt). */
  at: string;
  /** The change's timeline key when it is not the type's usual one (a second acknowledgement after an ack timeout). */
  timelineKey?: string | undefined;
};

const ALERT_TYPES: Partial<Record<TimelineEffect['type'], IncidentAlertMessage['type']>> = {
  OPENED: 'incident.opened',
  SEVERITY_CHANGED: 'incident.severity_changed',
  ACKNOWLEDGED: 'incident.acknowledged',
  MONITORING: 'incident.monitoring',
  RESOLVED: 'incident.resolved',
};

export function alertMessagesFor(
  incident: { incidentId: number; workspaceId: number; projectId?: number | undefined; checkId?: number | undefined; severity: Severity },
  effects: readonly TimelineEffect[],
): IncidentAlertMessage[] {
  return effects.flatMap((effect) => {
    const type = ALERT_TYPES[effect.type];
    if (!type) return [];
    return [
      {
        type,
        incidentId: incident.incidentId,
        workspaceId: incident.workspaceId,
        projectId: incident.projectId ?? null,
        checkId: incident.checkId ?? null,
        severity: incident.severity,
        at: effect.occurredAt,
        ...(effect.type === 'ACKNOWLEDGED' && effect.key !== 'acknowledged' ? { timelineKey: effect.key } : {}),
      },
    ];
  });
}

/**
 * A step the escalation engine fired, on the `alerts` queue, owed by the write that moved the
 * cursor past it. Its reader validates it (core/escalation/stepMessage.ts) and pages the step's
 * targets as they were at `at` (the same person on every redelivery).
 */
export type EscalationStepOwed = {
  type: 'incident.escalation_step';
  incidentId: number;
  workspaceId: number;
  epoch: number;
  cycle: number;
  step: number;
  escalated: boolean;
  at: string;
};

export function stepMessagesFor(incident: { incidentId: number; workspaceId: number }, steps: readonly FiredStep[]): EscalationStepOwed[] {
  return steps.map((due) => ({
    type: 'incident.escalation_step',
    incidentId: incident.incidentId,
    workspaceId: incident.workspaceId,
    epoch: due.epoch,
    cycle: due.cycle,
    step: due.step,
    escalated: due.escalated,
    at: due.at,
  }));
}

/**
 * The timeline events an incident change owes, recorded in the change's own write with its alerts
 * (core/outbox). The writer appends them itself right after the write; this message, on the
 * `incidents` queue, is for a writer that died first: the worker appends them (each once, by key).
 */
export const IncidentTimelineOwed = z.object({
  type: z.literal('incident.timeline'),
  incidentId: z.number().int().positive(),
  workspaceId: z.number().int().positive(),
  effects: z.array(
    z.object({
      key: z.string(),
      type: z.enum(INCIDENT_EVENT_TYPES),
      message: z.string(),
      occurredAt: z.string(),
      actor: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('user'), userId: z.number(), email: z.string() }),
        z.object({ kind: z.literal('apiKey'), apiKeyId: z.number(), name: z.string() }),
        z.object({ kind: z.literal('link'), recipient: z.string() }),
        z.object({ kind: z.literal('system') }),
      ]),
    }),
  ),
}) satisfies z.ZodType<{ type: 'incident.timeline'; incidentId: number; workspaceId: number; effects: TimelineEffect[] }, unknown>;
export type IncidentTimelineOwed = z.infer<typeof IncidentTimelineOwed>;

/**
 * An incident opened by an integration opened, changed severity or state, or resolved: owed on
 * the `incidents` queue by the change's own write, so the status page components that follow the
 * integration (core/statuspages/hooks.ts) move with it even if the writer dies right after.
 */
export const IntegrationIncidentChanged = z.object({
  type: z.literal('integration.incident_changed'),
  integrationId: z.number().int().positive(),
  incidentId: z.number().int().positive(),
  workspaceId: z.number().int().positive(),
});
export type IntegrationIncidentChanged = z.infer<typeof IntegrationIncidentChanged>;

const STATUS_EFFECTS: ReadonlySet<TimelineEffect['type']> = new Set(['OPENED', 'SEVERITY_CHANGED', 'MONITORING', 'RESOLVED']);

export function integrationMessagesFor(
  incident: { incidentId: number; workspaceId: number; integrationId?: number | undefined },
  effects: readonly TimelineEffect[],
): IntegrationIncidentChanged[] {
  if (incident.integrationId === undefined || !effects.some((effect) => STATUS_EFFECTS.has(effect.type))) return [];
  return [{ type: 'integration.incident_changed', integrationId: incident.integrationId, incidentId: incident.incidentId, workspaceId: incident.workspaceId }];
}
