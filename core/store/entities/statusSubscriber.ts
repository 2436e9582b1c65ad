import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const SUBSCRIBER_CHANNELS = ['EMAIL', 'WEBHOOK'] as const;
export const SUBSCRIBER_STATES = ['PENDING_CONFIRMATION', 'PENDING_VERIFICATION', 'ACTIVE', 'DISABLED'] as const;

/**
 * A status page subscriber (docs/guide/status-pages.md "Subscribing"): an e-mail address (double opt-in: PENDING
 * until its confirmation link is followed; only the token's SHA-256 is kept) or a webhook
 * (PENDING_VERIFICATION until it echoes a challenge, then ACTIVE; signed with its own `whsec_` secret). `unsubscribeKey` is the secret half of the
 * `<subscriberId>.<key>` token every mail and the webhook's answer carry. Read by id (links), and
 * by page (fan-out, dashboard list) through gsi1. An address holds the lock
 * `statuspage-subscriber#<pageId>` / `email:<address>` (a webhook `webhook:<sha256 of its URL>`)
 * while subscribed, so it has one subscription (and one pending mail) per page.
 */
export const createStatusSubscriberEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'statusSubscriber', version: '1', service: 'vigil' },
      attributes: {
        subscriberId: { type: 'number', required: true },
        statusPageId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        channel: { type: SUBSCRIBER_CHANNELS, required: true },
        state: { type: SUBSCRIBER_STATES, required: true },
        email: { type: 'string' },
        webhookUrl: { type: 'string' },
        secret: { type: 'string' },
        /** Empty: every component. */
        componentIds: { type: 'list', items: { type: 'number' }, required: true },
        confirmTokenHash: { type: 'string' },
        confirmationSentAt: { type: 'string' },
        confirmedAt: { type: 'string' },
        unsubscribeKey: { type: 'string', required: true },
        disabledReason: { type: 'string' },
        lastError: { type: 'string' },
        lastErrorAt: { type: 'string' },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['subscriberId'] }, sk: { field: 'sk', composite: [] } },
        byPage: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['statusPageId'] },
          sk: { field: 'gsi1sk', composite: ['subscriberId'] },
        },
      },
    },
    config,
  );

export type StatusSubscriberItem = EntityItem<ReturnType<typeof createStatusSubscriberEntity>>;
