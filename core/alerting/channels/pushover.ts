import { z } from '@hono/zod-openapi';
import type { Deps } from '../../deps.js';
import type { GuardedRequestDeps } from '../../outbound/index.js';
import type { AlertChannelItem } from '../../store/entities/alertChannel.js';
import { escapeHtml, plainText, singleLine } from '../../statuspages/render/sanitize.js';
import { incidentIdOf, type OutgoingMessage, postToProvider, ProviderApiBaseUrl, providerUrl, RAISING_EVENTS, severityOf, type SendResult } from './providerPost.js';

export const PUSHOVER_API = 'https://api.pushover.net';

/** Pushover's keys: 30 characters of [A-Za-z0-9] (its API documentation). */
const PushoverKey = z.string().regex(/^[A-Za-z0-9]{30}$/, { error: 'must be 30 letters and digits (a Pushover key)' });

export const PushoverChannelConfig = z
  .strictObject({
    userKey: PushoverKey.describe('The user or group key to notify. A secret: below ADMIN only its last four characters show'),
    appToken: PushoverKey.describe("Your Pushover application's API token. A secret: below ADMIN only its last four characters show"),
    apiBaseUrl: ProviderApiBaseUrl.optional().describe(`The API origin; default ${PUSHOVER_API}`),
  })
  .openapi('PushoverChannelConfig');

export const PushoverChannelView = z.object({
  userKey: z.string().describe('Whole for ADMIN and OWNER; below, `…` and the last four characters'),
  appToken: z.string().describe('Whole for ADMIN and OWNER; below, `…` and the last four characters'),
  apiBaseUrl: z.string().describe('The API origin alerts go to (the default when none was given)'),
});

const hint = (secret: string): string => `…${secret.slice(-4)}`;

export const viewPushover = (ch: AlertChannelItem, whole: boolean) => ({
  userKey: whole ? (ch.userKey ?? '') : hint(ch.userKey ?? ''),
  appToken: whole ? (ch.appToken ?? '') : hint(ch.appToken ?? ''),
  apiBaseUrl: ch.apiBaseUrl ?? PUSHOVER_API,
});

/**
 * Emergency (priority 2) repeats every EMERGENCY_RETRY_SECONDS until someone acknowledges it in
 * Pushover, for at most EMERGENCY_EXPIRE_SECONDS (Pushover's bounds: retry >= 30, expire <= 10800).
 */
export const EMERGENCY_RETRY_SECONDS = 60;
export const EMERGENCY_EXPIRE_SECONDS = 3600;
const PRIORITY = { P1: 2, P2: 1, P3: 0, P4: -1 } as const;
const TITLE_MAX = 250;
const MESSAGE_MAX = 1024;

/** Tags name an incident's emergency messages, so its acknowledgement or end stops their repeats. */
const tagOf = (incidentId: number): string => `vigil-incident-${incidentId}`;

/** Text escaped for Pushover's HTML mode, cut whole (never inside an entity) to fit `max`. */
function escapedWithin(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    const escaped = escapeHtml(ch);
    if (out.length + escaped.length > max - 1) return `${out}…`;
    out += escaped;
  }
  return out;
}

/**
 * The messages API form. A raising event goes out at its severity's priority (P1 as emergency,
 * tagged with its incident); an acknowledgement or an end goes out quiet (-1): nobody needs
 * waking for it. With html=1 every tenant string is HTML-escaped and only Vigil's own links are
 * markup; the title is plain text in Pushover.
 */
export function pushoverForm(channel: AlertChannelItem, message: OutgoingMessage): URLSearchParams {
  const severity = severityOf(message.data);
  const raising = RAISING_EVENTS.has(message.type);
  const priority = raising && severity ? PRIORITY[severity] : message.type.startsWith('incident.') ? -1 : 0;
  const { acknowledgeUrl, resolveUrl } = message.actions ?? {};
  const links = [
    ...(acknowledgeUrl ? [`<a href="${escapeHtml(acknowledgeUrl)}">Acknowledge</a>`] : []),
    ...(resolveUrl ? [`<a href="${escapeHtml(resolveUrl)}">Resolve</a>`] : []),
  ].join(' · ');
  const room = MESSAGE_MAX - (links ? links.length + 2 : 0);
  const form = new URLSearchParams({
    token: channel.appToken ?? '',
    user: channel.userKey ?? '',
    title: singleLine(message.subject, TITLE_MAX),
    message: `${escapedWithin(plainText(message.text), room)}${links ? `\n\n${links}` : ''}`,
    html: '1',
    priority: String(priority),
  });
  const incidentId = incidentIdOf(message.data);
  if (priority === 2) {
    form.set('retry', String(EMERGENCY_RETRY_SECONDS));
    form.set('expire', String(EMERGENCY_EXPIRE_SECONDS));
    if (incidentId !== undefined) form.set('tags', tagOf(incidentId));
  }
  const link = acknowledgeUrl ?? resolveUrl;
  if (link) {
    form.set('url', link);
    form.set('url_title', acknowledgeUrl ? 'Acknowledge' : 'Resolve');
  }
  return form;
}

/**
 * Sends one message. An acknowledgement or an end first cancels the incident's emergency repeats
 * (by tag; cancelling none is fine), then says so: a failed cancel sends nothing, and the retry
 * cancels again, so a retried delivery never posts the message twice.
 */
export async function sendPushover(deps: Deps, channel: AlertChannelItem, message: OutgoingMessage, outbound: GuardedRequestDeps): Promise<SendResult> {
  const incidentId = incidentIdOf(message.data);
  if (incidentId !== undefined && (message.type === 'incident.acknowledged' || message.type === 'incident.resolved')) {
    const cancel = await postToProvider(
      deps,
      {
        url: providerUrl(channel.apiBaseUrl, PUSHOVER_API, `/1/receipts/cancel_by_tag/${tagOf(incidentId)}.json`),
        contentType: 'application/x-www-form-urlencoded',
        body: new URLSearchParams({ token: channel.appToken ?? '' }).toString(),
      },
      outbound,
    );
    if (!cancel.ok) return cancel;
  }
  const body = pushoverForm(channel, message).toString();
  return postToProvider(deps, { url: providerUrl(channel.apiBaseUrl, PUSHOVER_API, '/1/messages.json'), contentType: 'application/x-www-form-urlencoded', body }, outbound);
}
