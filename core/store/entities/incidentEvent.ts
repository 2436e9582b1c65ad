import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const INCIDENT_EVENT_TYPES = ['OPENED', 'SEVERITY_CHANGED', 'ALERT_SENT', 'ESCALATED', 'ACKNOWLEDGED', 'MONITORING', 'RESOLVED'] as const;

/**
 * The timeline: written once with attribute_not_exists under a key that names the logical event
 * (`opened`, `acknowledged`, `alert#<dispatch>` ...), so a redelivered message cannot write an
 * event twice. One exception: an incident alert's ALERT_SENT entry is written before its send with
 * a `claim` on it (core/alerting/recordClaim.ts) and is on the timeline once the claim is removed
 * after the send; a failed send deletes it again. Readers leave claimed entries out.
 */
export const createIncidentEventEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'incidentEvent', version: '1', service: 'vigil' },
      attributes: {
        incidentId: { type: 'number', required: true },
        eventKey: { type: 'string', required: true },
        eventId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        type: { type: INCIDENT_EVENT_TYPES, required: true },
        message: { type: 'string', required: true },
        occurredAt: { type: 'string', required: true },
        actorUserId: { type: 'number' },
        actorApiKeyId: { type: 'number' },
        /** The recipient a signed alert link was sent to, when a person acted through one (core/alerting/ackLinks.ts). */
        actorLink: { type: 'string' },
        /** `<owner>@<lease end ms>` while the delivery this ALERT_SENT entry records is being sent: not on the timeline yet. */
        claim: { type: 'string' },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byIncident: {
          pk: { field: 'pk', composite: ['incidentId'] },
          sk: { field: 'sk', composite: ['eventKey'] },
        },
      },
    },
    config,
  );

export type IncidentEventItem = EntityItem<ReturnType<typeof createIncidentEventEntity>>;
