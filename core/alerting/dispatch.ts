import { z } from 'zod';
import { alertCheckOf, type AlertCheck } from '../checks/alertCheck.js';
import type { Deps } from '../deps.js';
import { instant } from '../instant.js';
import type { IncidentAlertMessage } from '../incidents/events.js';
import { readIncident } from '../incidents/repository.js';
import { handler, type MessageHandler, type Unfinished } from '../outbox/consumer.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { SEVERITIES } from '../store/entities/check.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { windowEffects } from '../windows/holds.js';
import { alertActions } from './ackLinks.js';
import { composeAlert, deliveryKey, notificationFor, type AlertContext } from './alertContent.js';
import { deliverOnce, enabledChannels, type AlertDispatchOptions, type ChannelOutcome, type Delivery } from './delivery.js';
import { timelineRecordClaim } from './recordClaim.js';
import { handleSubscriberMessage, SubscriberMessage } from './subscriberDispatch.js';
import { dispatchWarningAlert, LatencyWarningMessage, SslExpiryWarningMessage, TooFrequentMessage } from './warningDispatch.js';

export type { AlertDispatchOptions, ChannelOutcome } from './delivery.js';

const id = z.number().int().positive();

export const IncidentAlert = z.object({
  type: z.enum(['incident.opened', 'incident.severity_changed', 'incident.acknowledged', 'incident.monitoring', 'incident.resolved']),
  incidentId: id,
  workspaceId: id,
  projectId: id.nullable(),
  checkId: id.nullable(),
  severity: z.enum(SEVERITIES),
  at: instant,
  timelineKey: z.string().max(100).optional(),
}) satisfies z.ZodType<IncidentAlertMessage, unknown>;

/** Check warnings (core/probes/warnings.ts). */
const WarningMessage = z.discriminatedUnion('type', [LatencyWarningMessage, SslExpiryWarningMessage, TooFrequentMessage]);

export type DispatchOutcome =
  | { status: 'SKIPPED'; reason: 'NOT_NOTIFIED' | 'NO_INCIDENT' | 'MUTED' | 'MAINTENANCE' | 'STOPPED' }
  | { status: 'DISPATCHED'; channels: ChannelOutcome[] };

export type AlertHandlerOptions = AlertDispatchOptions;

/** Who hears an incident change: escalation routes it (core/escalation/dispatch.ts). */
export type IncidentDispatcher = (deps: Deps, message: IncidentAlertMessage, now: Date, options: AlertDispatchOptions) => Promise<DispatchOutcome>;

/**
 * The `alerts` queue's handlers for what this area delivers (core/outbox/consumer.ts): incident
 * changes (core/incidents/events.ts), check warnings (core/probes/warnings.ts) and status page
 * subscriber messages. The consumer itself, with the escalation steps, is core/escalation/dispatch.ts.
 */
export function alertHandlers(deps: Deps, options: AlertHandlerOptions, dispatchIncident: IncidentDispatcher): Record<string, MessageHandler> {
  const incident = handler(IncidentAlert, async (body) => unfinishedOf(await dispatchIncident(deps, body, deps.clock.now(), options)));
  const warning = handler(WarningMessage, async (body) => unfinishedOf(await dispatchWarningAlert(deps, body, deps.clock.now(), options)));
  const subscriber = handler(SubscriberMessage, async (body) => {
    const outcome = await handleSubscriberMessage(deps, body, options);
    return outcome.status === 'FAILED' ? { unfinished: outcome.message, retryAfterSeconds: outcome.retryAfterSeconds } : undefined;
  });
  return {
    ...Object.fromEntries(IncidentAlert.shape.type.options.map((type) => [type, incident])),
    ...Object.fromEntries(WarningMessage.options.map((option) => [option.shape.type.value, warning])),
    ...Object.fromEntries(SubscriberMessage.options.map((option) => [option.shape.type.value, subscriber])),
  };
}

/** A dispatch with an unfinished delivery is retried, held back as long as a receiver asked. */
export function unfinishedOf(outcome: { status: 'SKIPPED' } | { status: 'DISPATCHED'; channels: ChannelOutcome[] }): Unfinished | undefined {
  if (outcome.status === 'SKIPPED') return undefined;
  const unfinished = outcome.channels.filter((c) => c.status === 'FAILED' || c.status === 'IN_FLIGHT' || c.status === 'DEFERRED');
  if (unfinished.length === 0) return undefined;
  const waits = unfinished.map((c) => c.retryAfterSeconds).filter((s): s is number => s !== null);
  return {
    unfinished: unfinished.map((channel) => `channel ${channel.channelId}: ${channel.message}`).join('; '),
    retryAfterSeconds: waits.length > 0 ? Math.max(...waits) : null,
  };
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
  /** The incident and its check as the caller read them a moment ago for this same message (the routed dispatch): not read twice. */
  read?: { incident: IncidentItem | undefined; check: AlertCheck | undefined },
): Promise<DispatchOutcome> {
  const notification = notificationFor(message);
  if (!notification) return { status: 'SKIPPED', reason: 'NOT_NOTIFIED' };
  const incident = read ? read.incident : await readIncident(deps, message.incidentId);
  // The stored incident, not the message, says which workspace may hear about it.
  if (!incident || incident.workspaceId !== message.workspaceId) {
    console.error(`alerts queue: incident ${message.incidentId} of workspace ${message.workspaceId} does not exist; dropping`);
    return { status: 'SKIPPED', reason: 'NO_INCIDENT' };
  }
  const check = read ? read.check : incident.checkId !== undefined ? await alertCheckOf(deps, incident.checkId) : undefined;
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

/** An incident's deliveries are recorded as ALERT_SENT events on its timeline. */
function incidentDelivery(deps: Deps, context: AlertContext, channel: AlertChannelItem, now: Date): Delivery {
  const { incident } = context;
  const key = deliveryKey(incident.incidentId, context.notification.kind, channel.channelId);
  return {
    key,
    event: context.notification.event,
    compose: async (webhookId) => composeAlert(context, webhookId, await alertActions(deps, incident, context.notification.event, channel, now)),
    claim: timelineRecordClaim(deps, incident, key),
  };
}
