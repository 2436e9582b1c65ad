import { z } from 'zod';
import type { CheckLatencyWarning, CheckSslExpiryWarning, CheckTooFrequent } from '../checks/events.js';
import type { Deps } from '../deps.js';
import { instant } from '../instant.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { isConditionalFailure } from '../store/conditional.js';
import { windowEffects } from '../windows/holds.js';
import { composeWarningAlert, warningDeliveryKey, type WarningAlertMessage } from './alertContent.js';
import { deliverOnce, enabledChannels, readCheckEvenDeleted, type AlertDispatchOptions, type ChannelOutcome, type Delivery } from './delivery.js';
import { lockedRecordClaim } from './recordClaim.js';

const id = z.number().int().positive();
const count = z.number().int().nonnegative();
const about = { checkId: id, workspaceId: id, projectId: id.nullable(), region: z.string().min(1).max(64), at: instant };

export const LatencyWarningMessage = z.object({
  type: z.literal('check.latency_warning'),
  ...about,
  latencyMs: count,
  thresholdMs: count,
}) satisfies z.ZodType<CheckLatencyWarning, unknown>;

export const SslExpiryWarningMessage = z.object({
  type: z.literal('check.ssl_expiry_warning'),
  ...about,
  sslExpiresAt: instant,
  daysLeft: count,
  thresholdDays: count,
}) satisfies z.ZodType<CheckSslExpiryWarning, unknown>;

export const TooFrequentMessage = z.object({
  type: z.literal('check.too_frequent'),
  ...about,
  region: z.literal('heartbeat'),
  sinceSeconds: count,
  minIntervalSeconds: count,
}) satisfies z.ZodType<CheckTooFrequent, unknown>;

/**
 * How long a sent marker outlives its send: past the alerts queue's retention and its dead-letter
 * queue's (14 days, from which a message may be redriven), so no copy can find it gone.
 */
export const SENT_MARKER_TTL_SECONDS = 15 * 86_400;

export type WarningDispatchOutcome = { status: 'SKIPPED'; reason: 'NO_CHECK' | 'MUTED' | 'MAINTENANCE' } | { status: 'DISPATCHED'; channels: ChannelOutcome[] };

/**
 * Sends one latency or SSL-expiry warning to every enabled alert channel of the check's
 * workspace, unless the check is muted or a maintenance window suppresses alerts on its project
 * at the warning's time. Each (warning, channel) delivery happens at most once: there is no
 * incident timeline to carry ALERT_SENT, so a successful send leaves an alertSent marker under
 * the delivery's key, which later copies of the message find.
 */
export async function dispatchWarningAlert(deps: Deps, warning: WarningAlertMessage, now: Date, options: AlertDispatchOptions = {}): Promise<WarningDispatchOutcome> {
  const check = await readCheckEvenDeleted(deps, warning.checkId);
  // The stored check, not the message, says which workspace may hear about it; a deleted check's
  // warnings are about something nobody watches any more.
  if (!check || check.workspaceId !== warning.workspaceId || check.deletedAt !== undefined) {
    console.error(`alerts queue: check ${warning.checkId} of workspace ${warning.workspaceId} does not exist; dropping its ${warning.type}`);
    return { status: 'SKIPPED', reason: 'NO_CHECK' };
  }
  if (check.muteNotifications) return { status: 'SKIPPED', reason: 'MUTED' };
  // The project the check was in when it warned (the message says; the check may have moved since).
  const target = { workspaceId: check.workspaceId, projectId: warning.projectId };
  if ((await windowEffects(deps, target, new Date(warning.at))).suppressAlerts) return { status: 'SKIPPED', reason: 'MAINTENANCE' };

  const channels = await enabledChannels(deps, check.workspaceId);
  const about = { checkId: check.checkId, name: check.name };
  const outcomes = await Promise.all(channels.map((channel) => deliverOnce(deps, channel, warningDelivery(deps, warning, about, channel, now), now, options)));
  return { status: 'DISPATCHED', channels: outcomes };
}

function warningDelivery(deps: Deps, warning: WarningAlertMessage, check: { checkId: number; name: string }, channel: AlertChannelItem, now: Date): Delivery {
  const key = warningDeliveryKey(warning, channel.channelId);
  const marker = deps.store.entities.alertSent;
  return {
    key,
    event: warning.type,
    compose: (webhookId) => composeWarningAlert(warning, check, webhookId),
    claim: lockedRecordClaim(deps, key, {
      isRecorded: async () => {
        const existing = (await marker.get({ deliveryKey: key }).go({ consistent: true })).data;
        // TTL deletion is lazy; an expired marker is past any redelivery, so it still counts.
        return existing !== null;
      },
      write: async () => {
        try {
          await marker
            .create({
              deliveryKey: key,
              workspaceId: channel.workspaceId,
              channelId: channel.channelId,
              event: warning.type,
              sentAt: now.toISOString(),
              expiresAt: Math.floor(now.getTime() / 1000) + SENT_MARKER_TTL_SECONDS,
            })
            .go();
        } catch (err) {
          if (!isConditionalFailure(err)) throw err;
        }
      },
    }),
  };
}
