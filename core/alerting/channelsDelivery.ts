import { newUlid } from '../ids.js';
import type { Actor } from '../context.js';
import type { Deps } from '../deps.js';
import { guardedRequest, retryAfterSeconds, type GuardedRequestDeps } from '../outbound/index.js';
import type { AlertChannelItem } from '../store/entities/alertChannel.js';
import { getAlertChannel } from './channels.js';
import { signWebhook } from './webhookSignature.js';
import { awaitingConfirmation } from './emailConfirm.js';
import { consumeRateLimit, enforce, type RateLimitRule } from '../http/rateLimit.js';
import { plainText, singleLine } from '../statuspages/render/sanitize.js';
import { HTTP_CHANNELS, isHttpChannelType } from './channels/index.js';
import { alertMailBody } from './alertMail.js';
import { sendPagerDuty } from './channels/pagerduty.js';
import { sendPushover } from './channels/pushover.js';
import { sendSms } from './channels/sms.js';

/** One notification, whatever the channel. `id` stays the same across retries (webhook-id). */
export type ChannelMessage = {
  id: string;
  /** Event type, e.g. `incident.opened`; carried as `type` in webhook payloads. */
  type: string;
  subject: string;
  text: string;
  data: Record<string, unknown>;
  /** Signed one-click links for this incident (core/alerting/ackLinks.ts); absent where no action applies. */
  actions?: { acknowledgeUrl?: string | undefined; resolveUrl?: string | undefined } | undefined;
};

export type DeliveryResult = {
  ok: boolean;
  statusCode: number | null;
  /** An outbound failure reason (SSRF_BLOCKED, TIMEOUT, ...), UNEXPECTED_STATUS, MAIL_ERROR, SMS_ERROR or null. */
  failureReason: string | null;
  message: string;
  /** From a 429/503 answer's Retry-After, for the caller's retry schedule. */
  retryAfterSeconds: number | null;
};

const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Slack reads `&`, `<` and `>` as control characters (`<!channel>`, `<@U123>`, `<url|label>`); a
 * message is text throughout, so every one is escaped as Slack's formatting reference says
 * (&amp; &lt; &gt;). mrkdwn marks (`*`, `_`, `~`, backticks) have no escape in Slack and only style.
 */
export const slackEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const USER_AGENT = 'Vigil-Webhooks/1.0';

/** The links as Slack links (`<url|label>`, the URL escaped as Slack asks) on a line of their own. */
function slackActions(actions: ChannelMessage['actions']): string {
  const links = [
    ...(actions?.acknowledgeUrl ? [`<${slackEscape(actions.acknowledgeUrl)}|Acknowledge>`] : []),
    ...(actions?.resolveUrl ? [`<${slackEscape(actions.resolveUrl)}|Resolve>`] : []),
  ];
  return links.length > 0 ? `\n\n${links.join('  |  ')}` : '';
}

/**
 * Sends one message to one channel: EMAIL through the mailer port, SMS through the SMS port, every
 * other type through the SSRF-guarded outbound module (no redirects: a delivery endpoint has no
 * reason to move): one-POST types through their registry entry, Pushover and PagerDuty through
 * their own files in channels/. Never throws for the destination's behaviour; the result says what
 * happened.
 */
export async function deliverToChannel(deps: Deps, channel: AlertChannelItem, message: ChannelMessage, outbound: GuardedRequestDeps = {}): Promise<DeliveryResult> {
  if (channel.type === 'EMAIL') {
    if (awaitingConfirmation(channel)) {
      return { ok: false, statusCode: null, failureReason: 'EMAIL_UNCONFIRMED', message: 'The address has not confirmed yet', retryAfterSeconds: null };
    }
    try {
      // Subject and body are plain text: one header line (no CR/LF), no bidi overrides.
      await deps.mailer.send({ to: channel.email ?? '', subject: singleLine(message.subject, 300), ...alertMailBody(message) });
      return { ok: true, statusCode: null, failureReason: null, message: `Mail sent to ${channel.email}`, retryAfterSeconds: null };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { ok: false, statusCode: null, failureReason: 'MAIL_ERROR', message: reason, retryAfterSeconds: null };
    }
  }
  if (channel.type === 'PUSHOVER') return sendPushover(deps, channel, message, outbound);
  if (channel.type === 'PAGERDUTY') return sendPagerDuty(deps, channel, message, outbound);
  if (channel.type === 'SMS') return sendSms(deps, channel, message);
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  let url: string;
  let body: string;
  let headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (isHttpChannelType(channel.type)) {
    const request = HTTP_CHANNELS[channel.type].request(channel, message);
    url = request.url;
    body = request.body;
    headers = { ...headers, ...request.headers };
  } else if (channel.type === 'SLACK') {
    url = channel.webhookUrl ?? '';
    body = JSON.stringify({ text: `*${slackEscape(singleLine(message.subject, 300))}*\n${slackEscape(plainText(message.text))}${slackActions(message.actions)}` });
  } else {
    url = channel.url ?? '';
    // The links ride in `data.actions` (docs/guide/alerting.md): a receiver may offer them as buttons.
    const data = message.actions ? { ...message.data, actions: message.actions } : message.data;
    body = JSON.stringify({ type: message.type, timestamp: new Date(nowSeconds * 1000).toISOString(), data });
    headers = { ...headers, ...signWebhook(channel.secret ?? '', message.id, nowSeconds, body) };
  }
  const result = await guardedRequest(
    { url, method: 'POST', headers, body, timeoutMs: DELIVERY_TIMEOUT_MS, followRedirects: false, maxRedirects: 0, blockHttpDowngrade: true, maxBodyBytes: 1024 },
    { allowLoopback: deps.config.probeAllowPrivate, ...outbound },
  );
  if (!result.ok) {
    return { ok: false, statusCode: result.statusCode ?? null, failureReason: result.failureReason, message: result.message, retryAfterSeconds: null };
  }
  const ok = result.statusCode >= 200 && result.statusCode < 300;
  return {
    ok,
    statusCode: result.statusCode,
    failureReason: ok ? null : 'UNEXPECTED_STATUS',
    message: ok ? `Delivered (HTTP ${result.statusCode})` : `The endpoint answered HTTP ${result.statusCode}`,
    retryAfterSeconds:
      retryAfterSeconds(result.headers, deps.clock.now()) ?? (isHttpChannelType(channel.type) ? (HTTP_CHANNELS[channel.type].retryAfterInBody?.(result.bodyText) ?? null) : null),
  };
}

/** A test send reaches a user-chosen address: a few per channel per minute, not a mailing cannon. */
export const CHANNEL_TEST_LIMIT: RateLimitRule = { name: 'channel-test', limit: 5, windowSeconds: 60 };

const FAILURE_WORDS: Record<string, string> = {
  SSRF_BLOCKED: 'address not allowed',
  DNS_ERROR: 'the host name could not be resolved',
  CONNECTION_ERROR: 'the connection failed',
  TLS_ERROR: 'the TLS handshake failed',
  TIMEOUT: 'no complete answer in time',
  TOO_MANY_REDIRECTS: 'the endpoint redirected',
  HTTP_DOWNGRADE_BLOCKED: 'the endpoint redirected',
  MAIL_ERROR: 'The mail could not be sent',
  SMS_ERROR: 'The text message could not be sent',
  EMAIL_UNCONFIRMED: 'The address has not followed its confirmation link yet',
};

/**
 * A failed delivery in words fit to show a workspace (a test send's answer, a channel's or a
 * subscriber's `lastError`): the reason code in words, never the outbound module's own message,
 * which names the addresses a host resolved to ("resolves to 10.0.0.5", "connect ECONNREFUSED
 * 10.0.0.5:443"), an internal network map for whoever asks. The full message goes to the log.
 */
export function failureWords(result: Pick<DeliveryResult, 'failureReason' | 'statusCode'>): string {
  if (result.failureReason === 'UNEXPECTED_STATUS') return `The endpoint answered HTTP ${result.statusCode ?? '?'}`;
  return FAILURE_WORDS[result.failureReason ?? ''] ?? 'Not delivered';
}

/** `REASON: words`, as a channel's and a subscriber's `lastError` show it. */
export const lastErrorOf = (result: Pick<DeliveryResult, 'failureReason' | 'statusCode'>): string => `${result.failureReason ?? 'FAILED'}: ${failureWords(result)}`;

function testMessage(result: DeliveryResult): string {
  if (result.ok) return 'Delivered';
  if (result.failureReason === 'UNEXPECTED_STATUS' || result.failureReason === 'MAIL_ERROR' || result.failureReason === 'SMS_ERROR' || result.failureReason === 'EMAIL_UNCONFIRMED')
    return failureWords(result);
  return `Not delivered: ${lastErrorOf(result)}`;
}

/** `POST /alert-channels/:id/test`: ADMIN sends a test message and sees what happened. */
export async function testAlertChannel(ctx: { deps: Deps; actor: Actor }, channelId: number, outbound: GuardedRequestDeps = {}) {
  const channel = await getAlertChannel(ctx, channelId, 'ADMIN');
  enforce(await consumeRateLimit(ctx.deps, CHANNEL_TEST_LIMIT, `channel:${channel.channelId}`), 'Too many test sends for this channel');
  const now = ctx.deps.clock.now();
  const result = await deliverToChannel(
    ctx.deps,
    channel,
    {
      id: `msg_${newUlid(now.getTime()).toLowerCase()}`,
      type: 'alert_channel.test',
      subject: 'Vigil test alert',
      text: `This is a test message for the alert channel "${singleLine(channel.name)}". If you can read it, alerts will reach you here.`,
      data: { channelId: channel.channelId, workspaceId: channel.workspaceId, name: channel.name, sentAt: now.toISOString() },
    },
    outbound,
  );
  return {
    channelId: channel.channelId,
    type: channel.type,
    ok: result.ok,
    statusCode: result.statusCode,
    failureReason: result.failureReason,
    message: testMessage(result),
  };
}
