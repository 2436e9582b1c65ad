import { z } from 'zod';
import type { Deps } from '../deps.js';
import { instant } from '../instant.js';
import { guardedRequest, retryAfterSeconds } from '../outbound/index.js';
import type { StatusPageNotifyMessage } from '../statuspages/events.js';
import { sha256Hex } from '../auth/secrets.js';
import { oneLine, readSubscriber, subscriberMailParts } from '../statuspages/subscribers/index.js';
import { isConditionalFailure } from '../store/conditional.js';
import type { StatusSubscriberItem } from '../store/entities/statusSubscriber.js';
import { webhookIdFor } from './alertContent.js';
import { lastErrorOf } from './channelsDelivery.js';
import type { AlertDispatchOptions } from './delivery.js';
import { claimDelivery } from './deliveryClaim.js';
import { SENT_MARKER_TTL_SECONDS } from './warningDispatch.js';
import { signWebhook } from './webhookSignature.js';

/**
 * Status page subscribers on the alerts queue (docs/guide/status-pages.md "Subscribing",
 * docs/guarantees.md): a `statuspage.notify` (owed by the snapshot rebuild, once per change) fans out, in
 * batches of FANOUT_BATCH subscribers chained through the queue, to one `statuspage.deliver` per
 * ACTIVE subscriber whose filter matches; each delivery is keyed
 * `statuspage#<eventKey>#<subscriberId>`, claimed while it sends and recorded once sent (an
 * alertSent marker), so a redelivered message or a repeated fan-out sends nothing twice. A
 * failure fails the message: the queue's backoff, Retry-After and DLQ are the alerts' own.
 */

const id = z.number().int().positive();
const Notice = z.enum(['component.status_changed', 'announcement.created', 'announcement.updated', 'announcement.resolved', 'maintenance.scheduled']);
const Change = {
  statusPageId: id,
  workspaceId: id,
  eventKey: z.string().min(1).max(200),
  pageName: z.string().max(500),
  slug: z.string().max(200),
  summary: z.string().max(2000),
  notice: Notice,
  componentIds: z.array(id),
  data: z.record(z.string(), z.unknown()),
  at: instant,
};
export const StatusPageNotify = z.object({
  type: z.literal('statuspage.notify'),
  ...Change,
  /** Where this batch of the page's subscribers starts (the query cursor the previous batch ended on); absent: the first. */
  cursor: z.string().min(1).max(4096).optional(),
}) satisfies z.ZodType<StatusPageNotifyMessage, unknown>;
export const StatusPageDeliver = z.object({ type: z.literal('statuspage.deliver'), subscriberId: id, ...Change });
export type StatusPageDeliverMessage = z.infer<typeof StatusPageDeliver>;
export const SubscriberMessage = z.discriminatedUnion('type', [StatusPageNotify, StatusPageDeliver]);
export type SubscriberMessage = z.infer<typeof SubscriberMessage>;

export type SubscriberOutcome = { status: 'DONE' | 'ALREADY_SENT' | 'SKIPPED' } | { status: 'FAILED'; message: string; retryAfterSeconds: number | null };

/** Subscribers one notify message reads and fans out; the rest go to the next message, whatever the page's size. */
export const FANOUT_BATCH = 100;
const DELIVERY_TIMEOUT_MS = 10_000;
const GONE = 'The endpoint answered 410 Gone: it asked for no more deliveries';

const hears = (subscriber: StatusSubscriberItem, componentIds: readonly number[]): boolean =>
  subscriber.componentIds.length === 0 || componentIds.length === 0 || componentIds.some((c) => subscriber.componentIds.includes(c));

export async function handleSubscriberMessage(deps: Deps, message: SubscriberMessage, options: AlertDispatchOptions = {}): Promise<SubscriberOutcome> {
  if (message.type === 'statuspage.notify') return fanOut(deps, message);
  return deliverToSubscriber(deps, message, options);
}

/**
 * One batch of a page's fan-out: reads at most FANOUT_BATCH subscribers from the message's cursor,
 * publishes a delivery for each that hears the change and, if the page has more, the notify for
 * the next batch. A batch done once is marked (alertSent, keyed by event and cursor), so a
 * redelivered message starts no second chain; a crash before the mark re-publishes the batch, whose
 * deliveries are keyed per subscriber and send nothing twice.
 */
async function fanOut(deps: Deps, message: z.infer<typeof StatusPageNotify>): Promise<SubscriberOutcome> {
  const { type: _type, cursor, ...change } = message;
  const marker = deps.store.entities.alertSent;
  const doneKey = `statuspage-fanout#${message.eventKey}#${cursor === undefined ? 'first' : sha256Hex(cursor)}`;
  if ((await marker.get({ deliveryKey: doneKey }).go({ consistent: true })).data !== null) return { status: 'ALREADY_SENT' };
  const batch = await deps.store.entities.statusSubscriber.query.byPage({ statusPageId: message.statusPageId }).go({ cursor: cursor ?? null, limit: FANOUT_BATCH });
  const listeners = batch.data.filter(
    (s) => s.statusPageId === message.statusPageId && s.state === 'ACTIVE' && s.workspaceId === message.workspaceId && hears(s, message.componentIds),
  );
  const bodies: StatusPageDeliverMessage[] = listeners.map((s) => ({ type: 'statuspage.deliver', subscriberId: s.subscriberId, ...change }));
  if (bodies.length > 0) await deps.queue.publish('alerts', bodies);
  if (batch.cursor) await deps.queue.publish('alerts', [{ ...message, cursor: batch.cursor }]);
  const now = deps.clock.now();
  try {
    await marker
      .create({
        deliveryKey: doneKey,
        workspaceId: message.workspaceId,
        channelId: message.statusPageId,
        event: 'statuspage.fanout',
        sentAt: now.toISOString(),
        expiresAt: Math.floor(now.getTime() / 1000) + SENT_MARKER_TTL_SECONDS,
      })
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  return { status: 'DONE' };
}

async function deliverToSubscriber(deps: Deps, message: StatusPageDeliverMessage, options: AlertDispatchOptions): Promise<SubscriberOutcome> {
  const subscriber = await readSubscriber(deps, message.subscriberId);
  // Unsubscribed, disabled or not (yet) confirmed meanwhile: nothing to send, nothing to retry.
  if (!subscriber || subscriber.state !== 'ACTIVE' || subscriber.statusPageId !== message.statusPageId) return { status: 'SKIPPED' };
  if (!(await pageStillOpenTo(deps, subscriber))) return { status: 'SKIPPED' };
  const key = `statuspage#${message.eventKey}#${subscriber.subscriberId}`;
  const marker = deps.store.entities.alertSent;
  const sent = async () => (await marker.get({ deliveryKey: key }).go({ consistent: true })).data !== null;
  if (await sent()) return { status: 'ALREADY_SENT' };
  const now = deps.clock.now();
  const release = await claimDelivery(deps, key, now);
  if (!release) return { status: 'FAILED', message: 'another worker is delivering it now', retryAfterSeconds: null };
  try {
    if (await sent()) return { status: 'ALREADY_SENT' };
    const result = await send(deps, subscriber, message, webhookIdFor(key), options);
    if (result.ok) {
      try {
        await marker
          .create({
            deliveryKey: key,
            workspaceId: subscriber.workspaceId,
            channelId: subscriber.subscriberId,
            event: message.notice,
            sentAt: now.toISOString(),
            expiresAt: Math.floor(now.getTime() / 1000) + SENT_MARKER_TTL_SECONDS,
          })
          .go();
      } catch (err) {
        if (!isConditionalFailure(err)) throw err;
      }
      return { status: 'DONE' };
    }
    if (result.statusCode === 410) {
      await note(deps, subscriber, { state: 'DISABLED', disabledReason: GONE, lastError: GONE, lastErrorAt: now.toISOString() });
      return { status: 'SKIPPED' };
    }
    // The page's owners read lastError: words naming no address; the log keeps the message.
    await note(deps, subscriber, { lastError: lastErrorOf(result), lastErrorAt: now.toISOString() });
    return { status: 'FAILED', message: result.message, retryAfterSeconds: result.statusCode === 429 || result.statusCode === 503 ? result.retryAfterSeconds : null };
  } finally {
    await release();
  }
}

/**
 * Whether the page still lets this subscriber in, read at delivery time (one get): a page deleted,
 * disabled or turned PRIVATE, or given a new password after the subscriber came, delivers nothing more.
 */
async function pageStillOpenTo(deps: Deps, subscriber: StatusSubscriberItem): Promise<boolean> {
  const page = (await deps.store.entities.statusPage.get({ statusPageId: subscriber.statusPageId }).go()).data;
  if (!page || !page.enabled || page.visibility === 'PRIVATE') return false;
  return page.visibility === 'PUBLIC' || page.passwordSetAt === undefined || page.passwordSetAt <= subscriber.createdAt;
}

type SendResult = { ok: boolean; statusCode: number | null; failureReason: string | null; message: string; retryAfterSeconds: number | null };

async function send(deps: Deps, subscriber: StatusSubscriberItem, message: StatusPageDeliverMessage, webhookId: string, options: AlertDispatchOptions): Promise<SendResult> {
  const { footer, headers } = subscriberMailParts(deps, message.slug, subscriber);
  if (subscriber.channel === 'EMAIL') {
    try {
      await deps.mailer.send({
        to: subscriber.email ?? '',
        subject: oneLine(`[${message.pageName}] ${message.summary}`),
        text: `${oneLine(message.summary, 2000)}\n\n${deps.config.publicUrl}/status/${encodeURIComponent(message.slug)}${footer}`,
        headers,
      });
      return { ok: true, statusCode: null, failureReason: null, message: 'mailed', retryAfterSeconds: null };
    } catch (err) {
      return { ok: false, statusCode: null, failureReason: 'MAIL_ERROR', message: `MAIL_ERROR: ${err instanceof Error ? err.message : String(err)}`, retryAfterSeconds: null };
    }
  }
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const body = JSON.stringify({
    type: message.notice,
    timestamp: new Date(nowSeconds * 1000).toISOString(),
    data: { page: { name: message.pageName, slug: message.slug }, summary: message.summary, ...message.data },
  });
  const signed = signWebhook(subscriber.secret ?? '', webhookId, nowSeconds, body);
  // The guard judges the URL again on every delivery: a name may resolve elsewhere today.
  const result = await guardedRequest(
    {
      url: subscriber.webhookUrl ?? '',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Vigil-Webhooks/1.0', ...signed },
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      followRedirects: false,
      maxRedirects: 0,
      blockHttpDowngrade: true,
      maxBodyBytes: 1024,
    },
    { allowLoopback: deps.config.probeAllowPrivate, ...options.outbound },
  );
  if (!result.ok)
    return {
      ok: false,
      statusCode: result.statusCode ?? null,
      failureReason: result.failureReason,
      message: `${result.failureReason}: ${result.message}`,
      retryAfterSeconds: null,
    };
  const ok = result.statusCode >= 200 && result.statusCode < 300;
  return {
    ok,
    statusCode: result.statusCode,
    failureReason: ok ? null : 'UNEXPECTED_STATUS',
    message: ok ? 'delivered' : `The endpoint answered HTTP ${result.statusCode}`,
    retryAfterSeconds: retryAfterSeconds(result.headers, deps.clock.now()),
  };
}

async function note(
  deps: Deps,
  subscriber: StatusSubscriberItem,
  set: Partial<Pick<StatusSubscriberItem, 'state' | 'disabledReason' | 'lastError' | 'lastErrorAt'>>,
): Promise<void> {
  try {
    await deps.store.entities.statusSubscriber.patch({ subscriberId: subscriber.subscriberId }).set(set).go();
  } catch (err) {
    if (!isConditionalFailure(err)) console.warn(`status subscriber ${subscriber.subscriberId}: could not note the delivery`, err);
  }
}
