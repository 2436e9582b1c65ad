import { z } from '@hono/zod-openapi';
import type { Deps } from '../../deps.js';
import type { GuardedRequestDeps } from '../../outbound/index.js';
import type { AlertChannelItem } from '../../store/entities/alertChannel.js';
import { plainText, singleLine } from '../../statuspages/render/sanitize.js';
import { incidentIdOf, type OutgoingMessage, postToProvider, ProviderApiBaseUrl, providerUrl, severityOf, type SendResult } from './providerPost.js';

export const PAGERDUTY_API = 'https://events.pagerduty.com';

export const PagerDutyChannelConfig = z
  .strictObject({
    routingKey: z
      .string()
      .regex(/^[A-Za-z0-9]{32}$/, { error: 'must be 32 letters and digits (an Events API v2 integration key)' })
      .describe('The Events API v2 integration key of the PagerDuty service to page. A secret: below ADMIN only its last four characters show'),
    apiBaseUrl: ProviderApiBaseUrl.optional().describe(`The Events API origin; default ${PAGERDUTY_API}`),
  })
  .openapi('PagerDutyChannelConfig');

export const PagerDutyChannelView = z.object({
  routingKey: z.string().describe('Whole for ADMIN and OWNER; below, `…` and the last four characters'),
  apiBaseUrl: z.string().describe('The API origin events go to (the default when none was given)'),
});

export const viewPagerDuty = (ch: AlertChannelItem, whole: boolean) => ({
  routingKey: whole ? (ch.routingKey ?? '') : `…${(ch.routingKey ?? '').slice(-4)}`,
  apiBaseUrl: ch.apiBaseUrl ?? PAGERDUTY_API,
});

const SEVERITY = { P1: 'critical', P2: 'error', P3: 'warning', P4: 'info' } as const;

/**
 * The one PagerDuty alert a Vigil incident is: every trigger, acknowledge and resolve of incident
 * 42 names `vigil-incident-42`, whichever channel or retry sends it, so PagerDuty keeps it in step.
 */
export const dedupKeyOf = (incidentId: number): string => `vigil-incident-${incidentId}`;

type EventAction = 'trigger' | 'acknowledge' | 'resolve';
const ACTIONS: Record<string, EventAction> = {
  'incident.opened': 'trigger',
  'incident.escalated': 'trigger',
  'incident.severity_changed': 'trigger',
  'incident.acknowledged': 'acknowledge',
  'incident.resolved': 'resolve',
};

/**
 * An Events API v2 event. Warnings (no incident behind them) trigger an alert of their own, keyed
 * by the message id, which stays the same across retries. Tenant text goes in as JSON strings:
 * the summary one line, the details plain text, and PagerDuty shows both as text.
 */
export function pagerDutyEvent(channel: AlertChannelItem, message: OutgoingMessage, action: EventAction = ACTIONS[message.type] ?? 'trigger', dedupKey?: string) {
  const incidentId = incidentIdOf(message.data);
  const dedup_key = dedupKey ?? (incidentId !== undefined ? dedupKeyOf(incidentId) : `vigil-${message.id}`);
  const base = { routing_key: channel.routingKey ?? '', event_action: action, dedup_key };
  if (action !== 'trigger') return base;
  const severity = severityOf(message.data);
  const check = message.data.check as { name?: unknown } | null | undefined;
  const occurredAt = typeof message.data.occurredAt === 'string' ? message.data.occurredAt : undefined;
  const { acknowledgeUrl, resolveUrl } = message.actions ?? {};
  const links = [...(acknowledgeUrl ? [{ href: acknowledgeUrl, text: 'Acknowledge in Vigil' }] : []), ...(resolveUrl ? [{ href: resolveUrl, text: 'Resolve in Vigil' }] : [])];
  return {
    ...base,
    client: 'Vigil',
    payload: {
      summary: singleLine(message.subject, 1024),
      source: typeof check?.name === 'string' ? singleLine(check.name, 255) : 'Vigil',
      severity: severity ? SEVERITY[severity] : message.type.startsWith('check.') ? 'warning' : 'info',
      ...(occurredAt ? { timestamp: occurredAt } : {}),
      class: message.type,
      custom_details: { details: plainText(message.text) },
    },
    ...(links.length > 0 ? { links } : {}),
  };
}

const enqueueUrl = (channel: AlertChannelItem): string => providerUrl(channel.apiBaseUrl, PAGERDUTY_API, '/v2/enqueue');

/**
 * Sends one event. A test send triggers an `info` alert of its own and resolves it at once, so
 * it shows in PagerDuty without leaving anything open.
 */
export async function sendPagerDuty(deps: Deps, channel: AlertChannelItem, message: OutgoingMessage, outbound: GuardedRequestDeps): Promise<SendResult> {
  const post = (event: object) => postToProvider(deps, { url: enqueueUrl(channel), contentType: 'application/json', body: JSON.stringify(event) }, outbound);
  if (message.type !== 'alert_channel.test') return post(pagerDutyEvent(channel, message));
  const dedupKey = `vigil-test-${message.id}`;
  const triggered = await post(pagerDutyEvent(channel, message, 'trigger', dedupKey));
  return triggered.ok ? post(pagerDutyEvent(channel, message, 'resolve', dedupKey)) : triggered;
}
