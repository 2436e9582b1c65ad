import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const ALERT_CHANNEL_TYPES = ['EMAIL', 'SLACK', 'WEBHOOK', 'TEAMS', 'DISCORD', 'NTFY', 'TELEGRAM', 'PUSHOVER', 'PAGERDUTY', 'SMS'] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

/**
 * Where alerts go. One flat item per channel; which destination attribute is set follows `type`
 * (EMAIL: email, SLACK: webhookUrl, WEBHOOK: url + secret, TEAMS and DISCORD: url, NTFY: url +
 * accessToken, TELEGRAM: botToken + chatId, PUSHOVER: userKey + appToken, PAGERDUTY: routingKey,
 * SMS: phoneNumber; apiBaseUrl: a provider API other than its default). The webhook secret and the
 * provider keys are kept in the clear because sending needs them.
 */
export const createAlertChannelEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'alertChannel', version: '1', service: 'vigil' },
      attributes: {
        channelId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        type: { type: ALERT_CHANNEL_TYPES, required: true },
        email: { type: 'string' },
        webhookUrl: { type: 'string' },
        url: { type: 'string' },
        secret: { type: 'string' },
        /** NTFY: the access token of a protected topic. */
        accessToken: { type: 'string' },
        /** TELEGRAM: the bot's token and the chat it writes to. */
        botToken: { type: 'string' },
        chatId: { type: 'string' },
        /** TELEGRAM, PUSHOVER, PAGERDUTY: the provider's API origin when not its public one (self-hosted, tests). */
        apiBaseUrl: { type: 'string' },
        /** PUSHOVER: the recipient's user (or group) key and the sending application's token. */
        userKey: { type: 'string' },
        appToken: { type: 'string' },
        /** PAGERDUTY: the Events API v2 integration (routing) key of the service to page. */
        routingKey: { type: 'string' },
        /** SMS: E.164. */
        phoneNumber: { type: 'string' },
        enabled: { type: 'boolean', required: true },
        /** Why delivery turned the channel off (410 Gone), cleared when someone enables it again. */
        disabledReason: { type: 'string' },
        /** The last failed delivery attempt, kept after later successes so an operator can see what went wrong. */
        lastError: { type: 'string' },
        lastErrorAt: { type: 'string' },
        /** EMAIL: SHA-256 of the pending confirmation token; absent once confirmed (alerting/emailConfirm.ts). */
        confirmTokenHash: { type: 'string' },
        emailConfirmedAt: { type: 'string' },
        createdBy: { type: 'number' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['channelId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['channelId'] },
        },
      },
    },
    config,
  );

export type AlertChannelItem = EntityItem<ReturnType<typeof createAlertChannelEntity>>;
