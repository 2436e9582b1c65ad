import { createHash } from 'node:crypto';
import type { IncidentAlertMessage } from '../incidents/events.js';
import { toIncident } from '../incidents/enrich.js';
import type { IncidentItem } from '../store/entities/incident.js';
import type { ChannelMessage } from './channelsDelivery.js';

/** The event types alert channels receive for incidents (DESIGN 8). */
export const INCIDENT_ALERT_EVENTS = ['incident.opened', 'incident.escalated', 'incident.acknowledged', 'incident.resolved'] as const;
export type IncidentAlertEvent = (typeof INCIDENT_ALERT_EVENTS)[number];

/**
 * What one queue message notifies: the channel event type, `kind` (the part of the delivery key
 * that names the notification within its incident) and the timeline key of the change it reports.
 */
export type AlertNotification = { event: IncidentAlertEvent; kind: string; timelineKey: string };

/**
 * Maps a queue message to its notification, or null when it notifies nobody. MONITORING is a
 * step a person took by hand on an incident everybody already knows about, and DESIGN 8's event
 * list has no type for it, so it sends nothing. Severity only rises within an incident, so a
 * severity change is an escalation; its kind carries the severity because an incident may be
 * raised twice (P3 -> P2 -> P1) and each raise is its own notification.
 */
export function notificationFor(message: IncidentAlertMessage): AlertNotification | null {
  switch (message.type) {
    case 'incident.opened':
      return { event: 'incident.opened', kind: 'opened', timelineKey: 'opened' };
    case 'incident.severity_changed':
      return { event: 'incident.escalated', kind: `escalated#${message.severity}`, timelineKey: `severity#${message.severity}` };
    case 'incident.acknowledged':
      return { event: 'incident.acknowledged', kind: 'acknowledged', timelineKey: 'acknowledged' };
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
  'incident.acknowledged': () => 'Incident acknowledged',
  'incident.resolved': () => 'Incident resolved',
};

/** Tenant strings land in a mail subject and a Slack line: no line breaks, bounded length. */
const oneLine = (value: string, max: number): string => {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export type AlertContext = {
  message: IncidentAlertMessage;
  notification: AlertNotification;
  /** The incident as stored when the alert is sent (it may have moved on since the change). */
  incident: IncidentItem;
  check: { checkId: number; name: string } | undefined;
  /** The timeline event's own words for the change ("Check "x" went DOWN (sweep)"), if found. */
  detail: string | undefined;
};

/** The channel-neutral message; channelsDelivery renders it per channel type. */
export function composeAlert(context: AlertContext, id: string): ChannelMessage {
  const { message, notification, incident, check, detail } = context;
  const headline = HEADLINES[notification.event](message.severity);
  const lines = [
    oneLine(incident.title, 500),
    ...(detail ? [detail] : []),
    '',
    `Severity: ${message.severity}`,
    `State: ${incident.state}`,
    `Started: ${incident.startedAt}`,
    ...(incident.acknowledgedAt ? [`Acknowledged: ${incident.acknowledgedAt}`] : []),
    ...(incident.resolvedAt ? [`Resolved: ${incident.resolvedAt}`] : []),
    ...(check ? [`Check: ${oneLine(check.name, 255)} (#${check.checkId})`] : []),
    ...(incident.dependencyName ? [`Dependency: ${oneLine(incident.dependencyName, 255)}`] : []),
    `Incident: #${incident.incidentId} (${incident.publicId})`,
    ...(incident.summary ? ['', incident.summary] : []),
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
  };
}
