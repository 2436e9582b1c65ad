import { timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex } from '../../auth/secrets.js';
import type { Deps } from '../../deps.js';
import { mailUnavailable, notFound } from '../../http/errors.js';
import type { GuardedRequestDeps } from '../../outbound/index.js';
import { isConditionalFailure, undoIfFails } from '../../store/conditional.js';
import type { StatusSubscriberItem } from '../../store/entities/statusSubscriber.js';
import { acquireLock, lockOwner, releaseLock } from '../../store/locks.js';
import type { PageSnapshot } from '../store/snapshotShape.js';
import { confirmUrl, listUnsubscribeHeaders, oneLine, unsubscribeUrl } from './links.js';
import { releaseSubscriberSlot, takeSubscriberSlot } from './quota.js';
import type { SubscribeBody } from './schema.js';
import { subscribeWebhook, webhookLockValue, type EndpointVerifier, type WebhookAnswer } from './webhook.js';

/**
 * Subscribing (docs/guide/status-pages.md "Subscribing"). EMAIL is double opt-in: the first request for an address on
 * a page takes the address's lock, stores a PENDING subscriber and mails one confirmation link;
 * later requests for that address answer the same 202 and mail nothing while the link is fresh
 * (one pending mail per address and page), so the endpoint cannot be used to flood a mailbox or
 * to learn who subscribed. WEBHOOK URLs are webhook.ts': guarded, verified by a challenge, one
 * subscription per URL. Every new subscriber takes a slot of the page's cap (quota.ts).
 */

export const SUBSCRIBER_LOCK_SCOPE = (statusPageId: number): string => `statuspage-subscriber#${statusPageId}`;
const emailLockValue = (email: string): string => `email:${email.toLowerCase()}`;
/** A confirmation link older than this may be sent again (a lost mail does not lock an address out for good). */
export const CONFIRMATION_RESEND_MS = 24 * 3600 * 1000;
/** A lock younger than this whose subscriber is not written yet belongs to a request still running. */
const LOCK_SETTLE_MS = 30_000;

/** componentIds must all be components of the page (404 as every foreign id); empty or absent: all. */
function pageComponents(snapshot: PageSnapshot, componentIds: readonly number[] | undefined): number[] {
  const ids = [...new Set(componentIds ?? [])];
  const known = new Set(snapshot.components.map((c) => c.id));
  if (ids.some((componentId) => !known.has(componentId))) throw notFound('Component');
  return ids;
}

export type SubscribeResult = { status: 202; body: { status: 'PENDING_CONFIRMATION' } } | { status: 201; body: WebhookAnswer };

export async function subscribe(deps: Deps, snapshot: PageSnapshot, body: SubscribeBody, verify: EndpointVerifier, outbound: GuardedRequestDeps = {}): Promise<SubscribeResult> {
  const componentIds = pageComponents(snapshot, body.componentIds);
  if (body.channel === 'WEBHOOK') {
    const hooks = {
      scope: SUBSCRIBER_LOCK_SCOPE(snapshot.page.id),
      verify,
      read: (id: number) => readSubscriber(deps, id),
      remove: (s: StatusSubscriberItem) => removeSubscriber(deps, s),
    };
    return { status: 201, body: await subscribeWebhook(deps, snapshot, body.webhookUrl, componentIds, outbound, hooks) };
  }
  await subscribeEmail(deps, snapshot, body.email.toLowerCase(), componentIds);
  return { status: 202, body: { status: 'PENDING_CONFIRMATION' } };
}

async function subscribeEmail(deps: Deps, snapshot: PageSnapshot, email: string, componentIds: number[]): Promise<void> {
  const now = deps.clock.now();
  const scope = SUBSCRIBER_LOCK_SCOPE(snapshot.page.id);
  const subscriberId = await deps.store.nextId('statusSubscriber');
  const alive = async (owner: string, lockedAt: string) => now.getTime() - Date.parse(lockedAt) < LOCK_SETTLE_MS || (await readSubscriber(deps, Number(owner))) !== null;
  if (await acquireLock(deps.store, scope, emailLockValue(email), String(subscriberId), now, alive)) {
    const token = `${subscriberId}.${randomToken()}`;
    const unsubscribeKey = randomToken(24);
    const giveBackLock = () => releaseLock(deps.store, scope, emailLockValue(email), String(subscriberId));
    await undoIfFails(() => takeSubscriberSlot(deps, snapshot.page), giveBackLock, `the address lock of subscriber ${subscriberId}`);
    await deps.store.entities.statusSubscriber
      .create({
        subscriberId,
        statusPageId: snapshot.page.id,
        workspaceId: snapshot.page.workspaceId,
        channel: 'EMAIL',
        state: 'PENDING_CONFIRMATION',
        email,
        componentIds,
        confirmTokenHash: sha256Hex(token),
        confirmationSentAt: now.toISOString(),
        unsubscribeKey,
        createdAt: now.toISOString(),
      })
      .go();
    await mailConfirmation(deps, snapshot, { subscriberId, unsubscribeKey, email, sentAt: now.toISOString() }, token);
    return;
  }
  // Subscribed already, or pending: the same answer; a stale pending link is sent once more.
  const owner = await lockOwner(deps.store, scope, emailLockValue(email));
  const existing = owner === undefined ? null : await readSubscriber(deps, Number(owner));
  if (!existing || existing.state !== 'PENDING_CONFIRMATION') return;
  if (existing.confirmationSentAt && now.getTime() - Date.parse(existing.confirmationSentAt) < CONFIRMATION_RESEND_MS) return;
  const token = `${existing.subscriberId}.${randomToken()}`;
  try {
    await deps.store.entities.statusSubscriber
      .patch({ subscriberId: existing.subscriberId })
      .set({ confirmTokenHash: sha256Hex(token), confirmationSentAt: now.toISOString(), componentIds })
      .where((attr, op) => op.eq(attr.confirmationSentAt, existing.confirmationSentAt ?? ''))
      .go();
  } catch (err) {
    if (isConditionalFailure(err)) return; // another request re-sent it just now
    throw err;
  }
  await mailConfirmation(deps, snapshot, { subscriberId: existing.subscriberId, unsubscribeKey: existing.unsubscribeKey, email, sentAt: now.toISOString() }, token);
}

/** A link whose mail failed counts as sent long ago: the client's retry sends one, not "pending" for a day. */
const NEVER_SENT = new Date(0).toISOString();

/**
 * Mails the link, and if the mail fails gives the send back before the error answers the request:
 * the subscriber's `confirmationSentAt` (which holds back a second mail for a day) is set long ago,
 * on the condition that it is still this send's, so the client's retry mails a link instead of
 * answering 202 with nothing sent.
 */
async function mailConfirmation(
  deps: Deps,
  snapshot: PageSnapshot,
  to: { subscriberId: number; unsubscribeKey: string; email: string; sentAt: string },
  token: string,
): Promise<void> {
  const name = oneLine(snapshot.page.name);
  // The confirmation is subscriber mail too: whoever did not ask for it can say no in one click.
  const { footer, headers } = subscriberMailParts(deps, snapshot.page.slug, to);
  await undoIfFails(
    () =>
      deps.mailer
        .send({
          to: to.email,
          subject: `Confirm your subscription to ${name}`,
          text: `Someone asked for status updates of "${name}" to be mailed to this address. To receive them, open:\n${confirmUrl(deps, snapshot.page.slug, token)}\n\nIgnore this mail and nothing more will be sent to you.${footer}`,
          headers,
        })
        .catch((err: unknown) => {
          throw mailUnavailable(err);
        }),
    () =>
      deps.store.entities.statusSubscriber
        .patch({ subscriberId: to.subscriberId })
        .set({ confirmationSentAt: NEVER_SENT })
        .where((attr, op) => op.eq(attr.confirmationSentAt, to.sentAt))
        .go(),
    `the confirmation mail of subscriber ${to.subscriberId}`,
  );
}

export const readSubscriber = async (deps: Deps, subscriberId: number): Promise<StatusSubscriberItem | null> =>
  Number.isSafeInteger(subscriberId) && subscriberId > 0 ? (await deps.store.entities.statusSubscriber.get({ subscriberId }).go({ consistent: true })).data : null;

/** The subscriber a `<id>.<secret>` token names on this page, or 404 (unknown, foreign page, wrong secret alike). */
async function byToken(
  deps: Deps,
  slug: string,
  token: string,
  secretOf: (s: StatusSubscriberItem) => string | undefined,
  digest: (t: string) => string,
): Promise<StatusSubscriberItem> {
  const subscriber = await readSubscriber(deps, Number(token.split('.')[0]));
  const page = subscriber ? (await deps.store.entities.statusPage.get({ statusPageId: subscriber.statusPageId }).go()).data : null;
  const stored = Buffer.from((subscriber && secretOf(subscriber)) ?? '');
  const given = Buffer.from(digest(token));
  if (!subscriber || !page || page.slug !== slug || stored.length === 0 || stored.length !== given.length || !timingSafeEqual(stored, given)) throw notFound('Subscription');
  return subscriber;
}

/** `POST /public/status/:slug/subscriptions/confirm?token=` (the button of the link's page): the address said yes. */
export async function confirmSubscription(deps: Deps, slug: string, token: string): Promise<void> {
  const subscriber = await byToken(deps, slug, token, (s) => s.confirmTokenHash, sha256Hex);
  try {
    await deps.store.entities.statusSubscriber
      .patch({ subscriberId: subscriber.subscriberId })
      .set({ state: 'ACTIVE', confirmedAt: deps.clock.now().toISOString() })
      .remove(['confirmTokenHash'])
      .where((attr, op) => op.eq(attr.confirmTokenHash, subscriber.confirmTokenHash ?? ''))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** `POST /public/status/:slug/unsubscribe?token=` (the page's button or RFC 8058 one-click): the subscription ends (the address may subscribe again). */
export async function unsubscribe(deps: Deps, slug: string, token: string): Promise<void> {
  const subscriber = await byToken(
    deps,
    slug,
    token,
    (s) => `${s.subscriberId}.${s.unsubscribeKey}`,
    (t) => t,
  );
  await removeSubscriber(deps, subscriber);
}

/** Deletes the subscriber and gives back what it held (its address or URL lock, its slot), once even when two removals race. */
export async function removeSubscriber(deps: Deps, subscriber: StatusSubscriberItem): Promise<void> {
  try {
    await deps.store.entities.statusSubscriber.remove({ subscriberId: subscriber.subscriberId }).go();
  } catch (err) {
    if (isConditionalFailure(err)) return;
    throw err;
  }
  const value = subscriber.email ? emailLockValue(subscriber.email) : subscriber.webhookUrl ? webhookLockValue(subscriber.webhookUrl) : undefined;
  if (value !== undefined) await releaseLock(deps.store, SUBSCRIBER_LOCK_SCOPE(subscriber.statusPageId), value, String(subscriber.subscriberId));
  await releaseSubscriberSlot(deps, subscriber.statusPageId);
}

/** What every subscriber mail carries: the unsubscribe link in the text and RFC 8058 headers. */
export function subscriberMailParts(deps: Deps, slug: string, subscriber: Pick<StatusSubscriberItem, 'subscriberId' | 'unsubscribeKey'>) {
  const url = unsubscribeUrl(deps, slug, subscriber);
  return { footer: `\n\nUnsubscribe: ${url}`, headers: listUnsubscribeHeaders(url) };
}
