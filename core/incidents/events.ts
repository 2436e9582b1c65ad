import type { Severity, TimelineEffect } from './transition.js';

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
      },
    ];
  });
}
