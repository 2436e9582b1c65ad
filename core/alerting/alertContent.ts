import { createHash } from 'node:crypto';
import type { CheckLatencyWarning, CheckSslExpiryWarning, CheckTooFrequent } from '../checks/events.js';
import type { IncidentAlertMessage } from '../incidents/events.js';
import { toIncident } from '../incidents/enrich.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { plainText, singleLine } from '../statuspages/render/sanitize.js';
import type { ChannelMessage } from './channelsDelivery.js';

/** The event types alert channels receive for incidents (docs/guide/alerting.md). */
export const INCIDENT_ALERT_EVENTS = ['incident.opened', 'incident.escalated', 'incident.severity_changed', 'incident.acknowledged', 'incident.resolved'] as const;
export type IncidentAlertEvent = (typeof INCIDENT_ALERT_EVENTS)[number];

/**
 * What one queue message notifies: the channel event type, `kind` (the part of the delivery key
 * that names the notification within its incident) and the timeline key of the change it reports.
 */
export type AlertNotification = { event: IncidentAlertEvent; kind: string; timelineKey: string };

/**
 * Maps a queue message to its notification, or null when it notifies nobody. MONITORING is a
 * step a person took by hand on an incident everybody already knows about, and the alert event
 * list has no type for it, so it sends nothing. A severity raise is `incident.severity_changed`
 * (`incident.escalated` is an escalation step), its kind carries the severity because an
 * incident may be raised twice (P3 -> P2 -> P1) and each raise is its own notification. The kind
 * keeps its old `escalated#` spelling: a delivery owed across an upgrade keeps its key, so it is
 * not sent twice.
 */
export function notificationFor(message: IncidentAlertMessage): AlertNotification | null {
  switch (message.type) {
    case 'incident.opened':
      return { event: 'incident.opened', kind: 'opened', timelineKey: 'opened' };
    case 'incident.severity_changed':
      return { event: 'incident.severity_changed', kind: `escalated#${message.severity}`, timelineKey: `severity#${message.severity}` };
    case 'incident.acknowledged':
      // After an ack timeout re-escalated, a new acknowledgement is a new notification.
      return { event: 'incident.acknowledged', kind: message.timelineKey ?? 'acknowledged', timelineKey: message.timelineKey ?? 'acknowledged' };
    case 'incident.resolved':
      return { event: 'incident.resolved', kind: 'resolved', timelineKey: 'resolved' };
    case 'incident.monitoring':
      return null;
  }
}

/**
 * The key of one (notification, channel) delivery. It names the ALERT_SENT timeline event, the
 * in-flight claim and (hashed) the webhook-id, so every retry of one delivery carries the same id.
 */
export const deliveryKey = (incidentId: number, kind: string, channelId: number): string => `alert#${incidentId}#${kind}#${channelId}`;

/** Standard Webhooks ids are opaque; a hash keeps the id stable without exposing the key's shape. */
export const webhookIdFor = (key: string): string => `msg_${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;

const HEADLINES: Record<IncidentAlertEvent, (severity: string) => string> = {
  'incident.opened': () => 'Incident opened',
  'incident.escalated': (severity) => `Incident escalated to ${severity}`,
  'incident.severity_changed': (severity) => `Incident severity raised to ${severity}`,
  'incident.acknowledged': () => 'Incident acknowledged',
  'incident.resolved': () => 'Incident resolved',
};

/**
 * Tenant strings land in a mail subject and a Slack line: no line breaks or bidi overrides,
 * bounded length. Escaping for the channel's own syntax is the sender's (channelsDelivery.ts).
 */
const oneLine = (value: string, max: number): string => singleLine(value, max);

export type AlertContext = {
  message: IncidentAlertMessage;
  notification: AlertNotification;
  /** The incident as stored when the alert is sent (it may have moved on since the change). */
  incident: IncidentItem;
  check: { checkId: number; name: string } | undefined;
  /** The timeline event's own words for the change ("Check "x" went DOWN (sweep)"), if found. */
  detail: string | undefined;
};

/** The channel-neutral message; channelsDelivery renders it per channel type. `actions`: the recipient's signed links (ackLinks.ts alertActions). */
export function composeAlert(context: AlertContext, id: string, actions?: ChannelMessage['actions']): ChannelMessage {
  const { message, notification, incident, check, detail } = context;
  const headline = HEADLINES[notification.event](message.severity);
  const lines = [
    oneLine(incident.title, 500),
    ...(detail ? [oneLine(detail, 1000)] : []),
    '',
    `Severity: ${message.severity}`,
    `State: ${incident.state}`,
    `Started: ${incident.startedAt}`,
    ...(incident.acknowledgedAt ? [`Acknowledged: ${incident.acknowledgedAt}`] : []),
    ...(incident.resolvedAt ? [`Resolved: ${incident.resolvedAt}`] : []),
    ...(check ? [`Check: ${oneLine(check.name, 255)} (#${check.checkId})`] : []),
    ...(incident.dependencyName ? [`Dependency: ${oneLine(incident.dependencyName, 255)}`] : []),
    `Incident: #${incident.incidentId} (${incident.publicId})`,
    ...(incident.summary ? ['', plainText(incident.summary)] : []),
  ];
  return {
    id,
    type: notification.event,
    subject: `[${message.severity}] ${headline}: ${oneLine(incident.title, 200)}`,
    text: lines.join('\n'),
    data: {
      incident: toIncident(incident),
      check: check ? { id: check.checkId, name: check.name } : null,
      severity: message.severity,
      occurredAt: message.at,
      detail: detail ?? null,
    },
    ...(actions ? { actions } : {}),
  };
}

/**
 * Latency and SSL-expiry warnings: alerts about a check with no incident behind them. Their
 * event types are the queue message types, carried as such in webhook payloads.
 */
export type WarningAlertMessage = CheckLatencyWarning | CheckSslExpiryWarning | CheckTooFrequent;

/**
 * The key of one (warning, channel) delivery: it names the alertSent marker, the in-flight claim
 * and (hashed) the webhook-id. A warning is one per check, type and instant (the hour's cooldown
 * is claimed on the check before it is published), so those name it.
 */
export const warningDeliveryKey = (warning: Pick<WarningAlertMessage, 'checkId' | 'type' | 'at'>, channelId: number): string =>
  `alert#check${warning.checkId}#${warning.type}#${warning.at}#${channelId}`;

const inDays = (days: number): string => (days === 0 ? 'within a day' : days === 1 ? 'in 1 day' : `in ${days} days`);

/** The channel-neutral message of a warning; `check` is the check as stored when it is sent. */
export function composeWarningAlert(warning: WarningAlertMessage, check: { checkId: number; name: string }, id: string): ChannelMessage {
  const name = oneLine(check.name, 255);
  const common = [`Check: ${name} (#${check.checkId})`, `Region: ${warning.region}`, `At: ${warning.at}`];
  const base = { check: { id: check.checkId, name: check.name }, projectId: warning.projectId, region: warning.region, occurredAt: warning.at };
  if (warning.type === 'check.too_frequent') {
    return {
      id,
      type: warning.type,
      subject: `[Warning] Job ran too often: ${oneLine(check.name, 200)}`,
      text: [
        `Job "${name}" reported success ${warning.sinceSeconds} s after its previous success, sooner than its minimum interval of ${warning.minIntervalSeconds} s. It may be scheduled twice or stuck in a retry loop.`,
        '',
        `Check: ${name} (#${check.checkId})`,
        `At: ${warning.at}`,
        '',
        'One warning is sent per episode: the next one only after a success on time.',
      ].join('\n'),
      data: {
        check: { id: check.checkId, name: check.name },
        projectId: warning.projectId,
        occurredAt: warning.at,
        sinceSeconds: warning.sinceSeconds,
        minIntervalSeconds: warning.minIntervalSeconds,
      },
    };
  }
  if (warning.type === 'check.latency_warning') {
    return {
      id,
      type: warning.type,
      subject: `[Warning] Slow response: ${oneLine(check.name, 200)} took ${warning.latencyMs} ms`,
      text: [
        `Check "${name}" answered in ${warning.latencyMs} ms from ${warning.region}, above its latency warning threshold of ${warning.thresholdMs} ms.`,
        '',
        `Latency: ${warning.latencyMs} ms (threshold ${warning.thresholdMs} ms)`,
        ...common,
        '',
        'At most one latency warning is sent per check per hour.',
      ].join('\n'),
      data: { ...base, latencyMs: warning.latencyMs, thresholdMs: warning.thresholdMs },
    };
  }
  return {
    id,
    type: warning.type,
    subject: `[Warning] TLS certificate expires ${inDays(warning.daysLeft)}: ${oneLine(check.name, 200)}`,
    text: [
      `The TLS certificate served to check "${name}" expires at ${warning.sslExpiresAt} (${inDays(warning.daysLeft)}), within its warning window of ${warning.thresholdDays} days. Renew it before it expires.`,
      '',
      `Certificate expires: ${warning.sslExpiresAt}`,
      ...common,
      '',
      'At most one certificate warning is sent per check per hour.',
    ].join('\n'),
    data: { ...base, sslExpiresAt: warning.sslExpiresAt, daysLeft: warning.daysLeft, thresholdDays: warning.thresholdDays },
  };
}
