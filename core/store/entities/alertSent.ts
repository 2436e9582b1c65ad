import { Entity, type EntityConfiguration } from 'electrodb';

/**
 * "This alert reached this channel": the lasting record of a delivery that has no incident
 * timeline to carry an ALERT_SENT event (latency and SSL-expiry warnings). Written with
 * attribute_not_exists under the delivery key; expires by TTL (`expiresAt`, epoch seconds) once
 * no copy of its queue message can still arrive.
 */
export const createAlertSentEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'alertSent', version: '1', service: 'vigil' },
      attributes: {
        deliveryKey: { type: 'string', required: true },
        workspaceId: { type: 'number', required: true },
        channelId: { type: 'number', required: true },
        event: { type: 'string', required: true },
        sentAt: { type: 'string', required: true },
        expiresAt: { type: 'number', required: true },
      },
      indexes: {
        byKey: { pk: { field: 'pk', composite: ['deliveryKey'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );
