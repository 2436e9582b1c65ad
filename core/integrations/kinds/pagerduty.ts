import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Severity } from '../../incidents/transition.js';
import { singleLine } from '../../statuspages/render/sanitize.js';
import type { IntakeAlert, IntakeParser } from '../intakeAlert.js';
import { parsePayload } from './payload.js';

/*
 * PagerDuty Events API v2, so a tool that pages PagerDuty pages Vigil once its URL is the intake
 * URL. https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
 *
 * `routing_key` is read and ignored: the intake URL's secret (in the path or as a Bearer token)
 * already chose and authenticated the integration, and tools insist on a 32-character key that
 * cannot be Vigil's secret. It is never stored.
 */

const PD_SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
type PagerDutySeverity = (typeof PD_SEVERITIES)[number];

/** critical, error, warning and info are Vigil's four levels; an integration's severityMap may move them. */
const DEFAULT_SEVERITY: Record<PagerDutySeverity, Severity> = { critical: 'P1', error: 'P2', warning: 'P3', info: 'P4' };

const MAX_DESCRIPTION = 2000;
const MAX_LABELS = 32;

const customDetails = z.union([z.record(z.string(), z.unknown()), z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.null()]).optional();

const TriggerPayload = z.object({
  summary: z.string().trim().min(1).max(1024),
  source: z.string().trim().min(1).max(255),
  severity: z.enum(PD_SEVERITIES),
  timestamp: z.iso.datetime({ offset: true }).optional(),
  component: z.string().max(255).optional(),
  group: z.string().max(255).optional(),
  class: z.string().max(255).optional(),
  custom_details: customDetails,
});

const PagerDutyEvent = z
  .object({
    routing_key: z.string().max(255).optional(),
    event_action: z.enum(['trigger', 'acknowledge', 'resolve']),
    dedup_key: z.string().min(1).max(255).optional(),
    payload: TriggerPayload.optional(),
  })
  .superRefine((event, context) => {
    if (event.event_action === 'trigger' && event.payload === undefined) {
      context.addIssue({ code: 'custom', path: ['payload'], message: 'payload is required for a trigger' });
    }
    if (event.event_action !== 'trigger' && event.dedup_key === undefined) {
      context.addIssue({ code: 'custom', path: ['dedup_key'], message: `dedup_key is required for ${event.event_action}` });
    }
  });

/** A Change Events API event: no event_action, a payload without severity. Vigil opens nothing for it. */
const ChangeEvent = z.object({
  routing_key: z.string().max(255).optional(),
  payload: z.object({
    summary: z.string().trim().min(1).max(1024),
    source: z.string().max(255).optional(),
    timestamp: z.iso.datetime({ offset: true }).optional(),
    custom_details: customDetails,
  }),
});

/** One intake URL takes both APIs: an event without event_action whose payload has no severity is a change. */
const isChangeEvent = (body: unknown): boolean => {
  if (typeof body !== 'object' || body === null) return false;
  const { event_action: action, payload } = body as { event_action?: unknown; payload?: unknown };
  return action === undefined && typeof payload === 'object' && payload !== null && (payload as { severity?: unknown }).severity === undefined;
};

function label(value: unknown): string | undefined {
  if (typeof value === 'string') return value.slice(0, 255);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function describe(summary: string, details: unknown): string | undefined {
  const parts: string[] = [];
  // The title keeps one line of 255 characters; the rest of a long summary is not lost.
  if (summary.length > 255) parts.push(summary);
  if (details !== undefined && details !== null) parts.push(typeof details === 'string' ? details : JSON.stringify(details, null, 2));
  const text = parts.join('\n\n');
  return text === '' ? undefined : text.slice(0, MAX_DESCRIPTION);
}

function labelsOf(payload: z.infer<typeof TriggerPayload>): Record<string, string> {
  const labels: Record<string, string> = {};
  const add = (name: string, value: unknown): void => {
    const text = label(value);
    if (text !== undefined && Object.keys(labels).length < MAX_LABELS && !(name in labels)) labels[name.slice(0, 100)] = text;
  };
  add('component', payload.component);
  add('group', payload.group);
  add('class', payload.class);
  const details = payload.custom_details;
  if (typeof details === 'object' && details !== null && !Array.isArray(details)) {
    for (const [name, value] of Object.entries(details)) add(name, value);
  }
  return labels;
}

export const pagerDutyParser: IntakeParser = async (request) => {
  if (isChangeEvent(request.body)) {
    parsePayload(ChangeEvent, request.body, 'PagerDuty change event');
    return { kind: 'handled', status: 202, body: { status: 'success', message: 'Change event processed' } };
  }
  const event = parsePayload(PagerDutyEvent, request.body, 'PagerDuty event');
  // PagerDuty makes up a key for a trigger without one and answers it, so the sender can resolve later.
  const dedupKey = event.dedup_key ?? randomUUID().replaceAll('-', '');
  const payload = event.payload;
  if (payload === undefined || event.event_action !== 'trigger') {
    // Acknowledge and resolve act on the key alone, as PagerDuty's do; their payload is ignored.
    const title = payload === undefined ? dedupKey : singleLine(payload.summary, 255);
    return { kind: 'alerts', alerts: [{ dedupKey, action: event.event_action, title }] };
  }
  const alert: IntakeAlert = {
    dedupKey,
    action: 'trigger',
    title: singleLine(payload.summary, 255),
    description: describe(payload.summary, payload.custom_details),
    severity: request.integration.severityMap?.[payload.severity] ?? DEFAULT_SEVERITY[payload.severity],
    source: payload.source,
    labels: labelsOf(payload),
    occurredAt: payload.timestamp === undefined ? undefined : new Date(payload.timestamp).toISOString(),
  };
  return { kind: 'alerts', alerts: [alert] };
};

/** PagerDuty's own answer, the key included: a sender that sent none resolves with it later. */
export function pagerDutyAnswer(alerts: IntakeAlert[], incidentIds: number[]): { status: 202; body: Record<string, unknown> } {
  return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: alerts[0]?.dedupKey, incidentIds } };
}
