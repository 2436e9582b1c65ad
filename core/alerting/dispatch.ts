import { z } from 'zod';
import type { Deps } from '../deps.js';
import type { IncidentAlertMessage } from '../incidents/events.js';
import { appendIncidentEvent, readIncident } from '../incidents/repository.js';
import type { GuardedRequestDeps } from '../outbound/index.js';
import type { QueueMessage } from '../ports/index.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { SEVERITIES } from '../store/entities/check.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { isConditionalFailure } from '../store/locks.js';
import { windowEffects } from '../windows/holds.js';
import { composeAlert, deliveryKey, notificationFor, webhookIdFor, type AlertContext } from './alertContent.js';
import { deliverToChannel } from './channelsDelivery.js';
import { claimDelivery } from './deliveryClaim.js';

const instant = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not a date-time').transform((value) => new Date(value).toISOString());
const id = z.number().int().positive();

const AlertMessage = z.object({
  type: z.enum(['incident.opened', 'incident.severity_changed', 'incident.acknowledged', 'incident.monitoring', 'incident.resolved']),
  incidentId: id,
  workspaceId: id,
  projectId: id.nullable(),
  checkId: id.nullable(),
  severity: z.enum(SEVERITIES),
  at: instant,
}) satisfies z.ZodType<IncidentAlertMessage, unknown>;

export type AlertDispatchOptions = { outbound?: GuardedRequestDeps };

/** What happened to one channel. FAILED and IN_FLIGHT make the message fail (the queue retries it). */
export type ChannelOutcome = {
  channelId: number;
  status: 'SENT' | 'ALREADY_SENT' | 'IN_FLIGHT' | 'DISABLED' | 'FAILED';
  message: string;
  retryAfterSeconds: number | null;
};

export type DispatchOutcome =
  | { status: 'SKIPPED'; reason: 'NOT_NOTIFIED' | 'NO_INCIDENT' | 'MUTED' | 'MAINTENANCE' }
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
 * message, or one about an incident that does not exist, can never succeed and is dropped.
 */
export async function handleAlertMessages(deps: Deps, messages: QueueMessage[], options: AlertDispatchOptions = {}): Promise<AlertBatchResult> {
  const result: AlertBatchResult = { failedIds: [], retryAfterSeconds: {} };
  for (const message of messages) {
    const parsed = AlertMessage.safeParse(message.body);
    if (!parsed.success) {
      console.error(`alerts queue: dropping malformed message ${message.id}`, parsed.error.issues[0]);
      continue;
    }
    try {
      const outcome = await dispatchIncidentAlert(deps, parsed.data, deps.clock.now(), options);
      if (outcome.status === 'SKIPPED') continue;
      const unfinished = outcome.channels.filter((c) => c.status === 'FAILED' || c.status === 'IN_FLIGHT');
      if (unfinished.length === 0) continue;
      for (const channel of unfinished) console.warn(`alerts queue: message ${message.id}, channel ${channel.channelId}: ${channel.message}`);
      result.failedIds.push(message.id);
      const waits = unfinished.map((c) => c.retryAfterSeconds).filter((s): s is number => s !== null);
      if (waits.length > 0) result.retryAfterSeconds[message.id] = Math.max(...waits);
    } catch (err) {
      console.error(`alerts queue: message ${message.id} failed`, err);
      result.failedIds.push(message.id);
    }
  }
  return result;
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
  const outcomes = await Promise.all(channels.map((channel) => deliverOnce(deps, context, channel, now, options)));
  return { status: 'DISPATCHED', channels: outcomes };
}

const SYSTEM = { kind: 'system' } as const;

async function deliverOnce(deps: Deps, context: AlertContext, channel: AlertChannelItem, now: Date, options: AlertDispatchOptions): Promise<ChannelOutcome> {
  const { incident } = context;
  const key = deliveryKey(incident.incidentId, context.notification.kind, channel.channelId);
  const outcome = (status: ChannelOutcome['status'], message: string, retryAfterSeconds: number | null = null): ChannelOutcome => ({
    channelId: channel.channelId,
    status,
    message,
    retryAfterSeconds,
  });
  if (await alreadySent(deps, incident, key)) return outcome('ALREADY_SENT', 'already delivered');
  const release = await claimDelivery(deps.store, key, now);
  if (!release) return outcome('IN_FLIGHT', 'another worker is delivering it now');
  try {
    // The claim may have been freed by a worker that has just finished this very delivery.
    if (await alreadySent(deps, incident, key)) return outcome('ALREADY_SENT', 'already delivered');
    const result = await deliverToChannel(deps, channel, composeAlert(context, webhookIdFor(key)), options.outbound);
    if (result.ok) {
      const message = `Alert sent to ${channel.type} channel "${channel.name}" (${context.notification.event})`;
      await appendIncidentEvent(deps, incident, { key, type: 'ALERT_SENT', message, occurredAt: now.toISOString(), actor: SYSTEM }, now);
      return outcome('SENT', result.message);
    }
    // SECURITY "Outgoing webhooks": 410 Gone means the receiver wants no more deliveries.
    if (result.statusCode === 410 && channel.type !== 'EMAIL') {
      await disableChannel(deps, channel, now);
      console.warn(`alert channel ${channel.channelId} answered 410 Gone and is now disabled`);
      return outcome('DISABLED', 'the endpoint answered 410 Gone; channel disabled');
    }
    const honoured = result.statusCode === 429 || result.statusCode === 503 ? result.retryAfterSeconds : null;
    return outcome('FAILED', `${result.failureReason ?? 'FAILED'}: ${result.message}`, honoured);
  } catch (err) {
    return outcome('FAILED', err instanceof Error ? err.message : String(err));
  } finally {
    await release();
  }
}

async function alreadySent(deps: Deps, incident: IncidentItem, key: string): Promise<boolean> {
  const existing = await deps.store.entities.incidentEvent.get({ incidentId: incident.incidentId, eventKey: key }).go({ consistent: true });
  return existing.data !== null;
}

/** Deleted checks count too: a muted check's incident resolving on deletion stays quiet. */
async function readCheckEvenDeleted(deps: Deps, checkId: number) {
  const ref = (await deps.store.entities.checkRef.get({ checkId }).go()).data;
  return ref ? ((await deps.store.entities.check.get({ token: ref.token }).go()).data ?? undefined) : undefined;
}

async function enabledChannels(deps: Deps, workspaceId: number): Promise<AlertChannelItem[]> {
  const result = await deps.store.entities.alertChannel.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
  return result.data.filter((channel) => channel.enabled && channel.workspaceId === workspaceId).sort((a, b) => a.channelId - b.channelId);
}

/** A patch, so a channel deleted meanwhile is not written back; one already disabled is left as it is. */
async function disableChannel(deps: Deps, channel: AlertChannelItem, now: Date): Promise<void> {
  try {
    await deps.store.entities.alertChannel
      .patch({ channelId: channel.channelId })
      .set({ enabled: false, updatedAt: now.toISOString() })
      .where((attr, op) => op.eq(attr.enabled, true))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}
