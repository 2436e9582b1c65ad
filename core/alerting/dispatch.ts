import { z } from 'zod';
import type { Deps } from '../deps.js';
import { instant } from '../instant.js';
import type { IncidentAlertMessage } from '../incidents/events.js';
import { appendIncidentEvent, readIncident } from '../incidents/repository.js';
import type { QueueMessage } from '../ports/index.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { SEVERITIES } from '../store/entities/check.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { windowEffects } from '../windows/holds.js';
import { composeAlert, deliveryKey, notificationFor, type AlertContext } from './alertContent.js';
import { deliverOnce, enabledChannels, readCheckEvenDeleted, type AlertDispatchOptions, type ChannelOutcome, type Delivery } from './delivery.js';
import { handleSubscriberMessage, isSubscriberMessage, SubscriberMessage } from './subscriberDispatch.js';
import { dispatchWarningAlert, LatencyWarningMessage, SslExpiryWarningMessage, TooFrequentMessage } from './warningDispatch.js';

export type { AlertDispatchOptions, ChannelOutcome } from './delivery.js';

const id = z.number().int().positive();

const IncidentAlert = z.object({
  type: z.enum(['incident.opened', 'incident.severity_changed', 'incident.acknowledged', 'incident.monitoring', 'incident.resolved']),
  incidentId: id,
  workspaceId: id,
  projectId: id.nullable(),
  checkId: id.nullable(),
  severity: z.enum(SEVERITIES),
  at: instant,
  timelineKey: z.string().max(100).optional(),
}) satisfies z.ZodType<IncidentAlertMessage, unknown>;

/** Incident changes (core/incidents/events.ts) and check warnings (core/probes/warnings.ts). */
const AlertMessage = z.discriminatedUnion('type', [IncidentAlert, LatencyWarningMessage, SslExpiryWarningMessage, TooFrequentMessage]);

export type DispatchOutcome =
  | { status: 'SKIPPED'; reason: 'NOT_NOTIFIED' | 'NO_INCIDENT' | 'MUTED' | 'MAINTENANCE' | 'STOPPED' }
  | { status: 'DISPATCHED'; channels: ChannelOutcome[] };

export type AlertBatchResult = {
  failedIds: string[];
  /**
   * For failed messages whose endpoint answered 429/503 with Retry-After: the seconds it asked
   * for, so a queue adapter may hold the message back that long (SQS: ChangeMessageVisibility).
   */
  retryAfterSeconds: Record<string, number>;
};

/**
 * The consumer of the `alerts` queue. Each message is handled on its own: a failure is reported
 * by id (retried, then dead-lettered) and never holds up the rest of the batch. A malformed
 * message, or one about an incident or check that does not exist, can never succeed and is dropped.
 */
export type AlertHandlerOptions = AlertDispatchOptions & {
  /** Who hears an incident change: escalation routes it (core/escalation/dispatch.ts); by default every channel. */
  dispatchIncident?: typeof dispatchIncidentAlert;
};

export async function handleAlertMessages(deps: Deps, messages: QueueMessage[], options: AlertHandlerOptions = {}): Promise<AlertBatchResult> {
  const dispatchIncident = options.dispatchIncident ?? dispatchIncidentAlert;
  const result: AlertBatchResult = { failedIds: [], retryAfterSeconds: {} };
  for (const message of messages) {
    if (isSubscriberMessage(message.body)) {
      await subscriberMessage(deps, message, result, options);
      continue;
    }
    const parsed = AlertMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error(`alerts queue: dropping malformed message ${message.id}`, parsed.error.issues[0]);
      continue;
    }
    try {
      const body = parsed.data;
      const now = deps.clock.now();
      const outcome =
        body.type === 'check.latency_warning' || body.type === 'check.ssl_expiry_warning' || body.type === 'check.too_frequent'
          ? await dispatchWarningAlert(deps, body, now, options)
          : await dispatchIncident(deps, body, now, options);
      noteOutcome(result, message.id, outcome);
    } catch (err) {
      console.error(`alerts queue: message ${message.id} failed`, err);
      result.failedIds.push(message.id);
    }
  }
  return result;
}

/** A status page subscriber message (subscriberDispatch.ts), with the same failure reporting as alerts. */
async function subscriberMessage(deps: Deps, message: QueueMessage, result: AlertBatchResult, options: AlertDispatchOptions): Promise<void> {
  const parsed = SubscriberMessage.safeParse(message.body);
  if (!parsed.success) {
    console.error(`alerts queue: dropping malformed subscriber message ${message.id}`, parsed.error.issues[0]);
    return;
  }
  try {
    const outcome = await handleSubscriberMessage(deps, parsed.data, options);
    if (outcome.status !== 'FAILED') return;
    console.warn(`alerts queue: message ${message.id}: ${outcome.message}`);
    result.failedIds.push(message.id);
    if (outcome.retryAfterSeconds !== null) result.retryAfterSeconds[message.id] = outcome.retryAfterSeconds;
  } catch (err) {
    console.error(`alerts queue: message ${message.id} failed`, err);
    result.failedIds.push(message.id);
  }
}

/** A message with an unfinished delivery fails (the queue retries it), held back as long as a receiver asked. */
export function noteOutcome(result: AlertBatchResult, messageId: string, outcome: { status: 'SKIPPED' } | { status: 'DISPATCHED'; channels: ChannelOutcome[] }): void {
  if (outcome.status === 'SKIPPED') return;
  const unfinished = outcome.channels.filter((c) => c.status === 'FAILED' || c.status === 'IN_FLIGHT');
  if (unfinished.length === 0) return;
  for (const channel of unfinished) console.warn(`alerts queue: message ${messageId}, channel ${channel.channelId}: ${channel.message}`);
  result.failedIds.push(messageId);
  const waits = unfinished.map((c) => c.retryAfterSeconds).filter((s): s is number => s !== null);
  if (waits.length > 0) result.retryAfterSeconds[messageId] = Math.max(...waits);
}

/**
 * Sends one incident change to every enabled alert channel of the incident's workspace, unless
 * the check is muted or a maintenance window suppresses alerts at the time of the change. Each
 * (notification, channel) delivery happens at most once: a successful send is recorded as an
 * ALERT_SENT timeline event under the delivery's key, which later copies of the message find.
 */
export async function dispatchIncidentAlert(
  deps: Deps,
  message: IncidentAlertMessage,
  now: Date,
  options: AlertDispatchOptions = {},
): Promise<DispatchOutcome> {
  const notification = notificationFor(message);
  if (!notification) return { status: 'SKIPPED', reason: 'NOT_NOTIFIED' };
  const incident = await readIncident(deps, message.incidentId);
  // The stored incident, not the message, says which workspace may hear about it.
  if (!incident || incident.workspaceId !== message.workspaceId) {
    console.error(`alerts queue: incident ${message.incidentId} of workspace ${message.workspaceId} does not exist; dropping`);
    return { status: 'SKIPPED', reason: 'NO_INCIDENT' };
  }
  const check = incident.checkId !== undefined ? await readCheckEvenDeleted(deps, incident.checkId) : undefined;
  if (check?.muteNotifications) return { status: 'SKIPPED', reason: 'MUTED' };
  const target = { workspaceId: incident.workspaceId, projectId: incident.projectId ?? null };
  if ((await windowEffects(deps, target, new Date(message.at))).suppressAlerts) return { status: 'SKIPPED', reason: 'MAINTENANCE' };

  const channels = await enabledChannels(deps, incident.workspaceId);
  if (channels.length === 0) return { status: 'DISPATCHED', channels: [] };
  const timeline = await deps.store.entities.incidentEvent.get({ incidentId: incident.incidentId, eventKey: notification.timelineKey }).go();
  const context: AlertContext = {
    message,
    notification,
    incident,
    check: check ? { checkId: check.checkId, name: check.name } : undefined,
    detail: timeline.data?.message,
  };
  const outcomes = await Promise.all(channels.map((channel) => deliverOnce(deps, channel, incidentDelivery(deps, context, channel, now), now, options)));
  return { status: 'DISPATCHED', channels: outcomes };
}

const SYSTEM = { kind: 'system' } as const;

/** An incident's deliveries are recorded as ALERT_SENT events on its timeline. */
function incidentDelivery(deps: Deps, context: AlertContext, channel: AlertChannelItem, now: Date): Delivery {
  const { incident } = context;
  const key = deliveryKey(incident.incidentId, context.notification.kind, channel.channelId);
  return {
    key,
    event: context.notification.event,
    compose: (webhookId) => composeAlert(context, webhookId),
    sent: {
      isRecorded: () => alreadySent(deps, incident, key),
      record: async (summary) => {
        await appendIncidentEvent(deps, incident, { key, type: 'ALERT_SENT', message: summary, occurredAt: now.toISOString(), actor: SYSTEM }, now);
      },
    },
  };
}

async function alreadySent(deps: Deps, incident: IncidentItem, key: string): Promise<boolean> {
  const existing = await deps.store.entities.incidentEvent.get({ incidentId: incident.incidentId, eventKey: key }).go({ consistent: true });
  return existing.data !== null;
}
