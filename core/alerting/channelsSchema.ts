import { z } from '@hono/zod-openapi';
import { ALERT_CHANNEL_TYPES } from '../store/entities/alertChannel.js';
import { DiscordChannelConfig, DiscordChannelView } from './channels/discord.js';
import { NtfyChannelConfig, NtfyChannelView } from './channels/ntfy.js';
import { TeamsChannelConfig, TeamsChannelView } from './channels/teams.js';
import { TelegramChannelConfig, TelegramChannelView } from './channels/telegram.js';
import { PagerDutyChannelConfig, PagerDutyChannelView } from './channels/pagerduty.js';
import { PushoverChannelConfig, PushoverChannelView } from './channels/pushover.js';
import { SmsChannelConfig, SmsChannelView } from './channels/sms.js';

const Name = z.string().trim().min(1).max(255);
const MAX_URL = 2048;

export const EmailChannelConfig = z.strictObject({ email: z.email().max(254) }).openapi('EmailChannelConfig');

/** Slack incoming webhooks carry a credential in the path: https only. */
export const SlackChannelConfig = z.strictObject({ webhookUrl: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).max(MAX_URL) }).openapi('SlackChannelConfig');

export const WebhookChannelConfig = z
  .strictObject({ url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).max(MAX_URL) })
  .openapi('WebhookChannelConfig');

export const CHANNEL_CONFIGS = {
  EMAIL: EmailChannelConfig,
  SLACK: SlackChannelConfig,
  WEBHOOK: WebhookChannelConfig,
  TEAMS: TeamsChannelConfig,
  DISCORD: DiscordChannelConfig,
  NTFY: NtfyChannelConfig,
  TELEGRAM: TelegramChannelConfig,
  PUSHOVER: PushoverChannelConfig,
  PAGERDUTY: PagerDutyChannelConfig,
  SMS: SmsChannelConfig,
} as const;

const common = {
  workspaceId: z.number().int().min(1).optional(),
  name: Name,
  enabled: z.boolean().optional(),
};

export const AlertChannelCreate = z
  .discriminatedUnion('type', [
    z.strictObject({ ...common, type: z.literal('EMAIL'), config: EmailChannelConfig }),
    z.strictObject({ ...common, type: z.literal('SLACK'), config: SlackChannelConfig }),
    z.strictObject({ ...common, type: z.literal('WEBHOOK'), config: WebhookChannelConfig }),
    z.strictObject({ ...common, type: z.literal('TEAMS'), config: TeamsChannelConfig }),
    z.strictObject({ ...common, type: z.literal('DISCORD'), config: DiscordChannelConfig }),
    z.strictObject({ ...common, type: z.literal('NTFY'), config: NtfyChannelConfig }),
    z.strictObject({ ...common, type: z.literal('TELEGRAM'), config: TelegramChannelConfig }),
    z.strictObject({ ...common, type: z.literal('PUSHOVER'), config: PushoverChannelConfig }),
    z.strictObject({ ...common, type: z.literal('PAGERDUTY'), config: PagerDutyChannelConfig }),
    z.strictObject({ ...common, type: z.literal('SMS'), config: SmsChannelConfig }),
  ])
  .openapi('AlertChannelCreate');
export type AlertChannelCreate = z.infer<typeof AlertChannelCreate>;

/**
 * The type cannot change; `config` is checked against the channel's own type by the verb, and
 * replaces the whole config (an optional field left out, such as `apiBaseUrl`, returns to its default).
 */
export const AlertChannelUpdate = z
  .strictObject({
    name: Name.optional(),
    enabled: z.boolean().optional(),
    config: z
      .union([
        EmailChannelConfig,
        SlackChannelConfig,
        WebhookChannelConfig,
        TeamsChannelConfig,
        DiscordChannelConfig,
        NtfyChannelConfig,
        TelegramChannelConfig,
        PushoverChannelConfig,
        PagerDutyChannelConfig,
        SmsChannelConfig,
      ])
      .optional()
      .describe("The whole config of the channel's own type: a field left out (an ntfy token, an apiBaseUrl) is removed"),
  })
  .openapi('AlertChannelUpdate');
export type AlertChannelUpdate = z.infer<typeof AlertChannelUpdate>;

export const AlertChannel = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    type: z.enum(ALERT_CHANNEL_TYPES),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().describe('Set when delivery disabled the channel (the endpoint answered 410 Gone); cleared when it is enabled again'),
    lastError: z.string().nullable().describe('What went wrong on the last failed delivery attempt, in words that name no address the endpoint resolved to'),
    lastErrorAt: z.string().nullable(),
    emailConfirmed: z.boolean().describe('EMAIL: whether the address followed its confirmation link (no alerts before); true for other types'),
    config: z.union([
      z.object({ email: z.string() }),
      z.object({ webhookUrl: z.string().describe('Whole for ADMIN and OWNER; below, the origin and the last four characters') }),
      z.object({
        url: z.string().describe('Whole for ADMIN and OWNER; below, the origin and the last four characters'),
        secretHint: z.string().describe('whsec_ and the last four characters'),
      }),
      TeamsChannelView,
      DiscordChannelView,
      NtfyChannelView,
      TelegramChannelView,
      PushoverChannelView,
      PagerDutyChannelView,
      SmsChannelView,
    ]),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('AlertChannel');

export const AlertChannelCreated = AlertChannel.extend({
  secret: z.string().optional().describe('WEBHOOK only: the signing secret (whsec_...). Shown once; store it now.'),
}).openapi('AlertChannelCreated');

export const AlertChannelTestResult = z
  .object({
    channelId: z.number().int(),
    type: z.enum(ALERT_CHANNEL_TYPES),
    ok: z.boolean(),
    statusCode: z.number().int().nullable(),
    failureReason: z.string().nullable(),
    message: z.string(),
  })
  .openapi('AlertChannelTestResult');
