import { randomBytes } from 'node:crypto';
import { randomToken, sha256Hex } from '../../auth/secrets.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict } from '../../http/errors.js';
import { decideTarget, parseTargetUrl, systemResolver, type GuardedRequestDeps } from '../../outbound/index.js';
import { isConditionalFailure, undoIfFails } from '../../store/conditional.js';
import type { StatusSubscriberItem } from '../../store/entities/statusSubscriber.js';
import { acquireLock, lockOwner, releaseLock } from '../../store/locks.js';
import type { PageSnapshot } from '../store/snapshotShape.js';
import { unsubscribeUrl } from './links.js';
import { releaseSubscriberSlot, takeSubscriberSlot } from './quota.js';

/**
 * Webhook subscribers (docs/guide/status-pages.md "Subscribing"). Anyone may type any URL into a public form, so the
 * endpoint must say yes before it receives anything: within the subscribe request Vigil POSTs it a
 * signed `subscription.verification` event carrying a random `challenge` (through the guarded
 * outbound client, like every delivery), and the subscription is ACTIVE only if the endpoint
 * answers 2xx echoing the challenge (the bare text, or JSON `{"challenge": ...}`), as Slack's URL
 * check does. Otherwise it stays PENDING_VERIFICATION and the fan-out passes it by. One URL holds
 * one subscription per page (a lock item on the URL's hash): subscribing it again while ACTIVE is
 * 409; while PENDING_VERIFICATION (or DISABLED by a 410) the old one is replaced by a fresh one
 * and the check runs again, which is how a visitor retries.
 */

export const webhookLockValue = (url: string): string => `webhook:${sha256Hex(url)}`;
/** A lock younger than this whose subscriber is not written yet belongs to a request still running. */
const LOCK_SETTLE_MS = 30_000;

export type WebhookAnswer = { id: number; secret: string; unsubscribeUrl: string; status: 'ACTIVE' | 'PENDING_VERIFICATION' };

/**
 * The challenge exchange (core/alerting/subscriberVerify.ts: signing is alerting's, which sits
 * above status pages; the app passes it in): true only when the endpoint echoed the challenge.
 */
export type EndpointVerifier = (
  deps: Deps,
  target: { subscriberId: number; url: string; secret: string; page: { name: string; slug: string } },
  outbound: GuardedRequestDeps,
) => Promise<boolean>;

type Hooks = {
  scope: string;
  verify: EndpointVerifier;
  remove: (subscriber: StatusSubscriberItem) => Promise<void>;
  read: (subscriberId: number) => Promise<StatusSubscriberItem | null>;
};

export async function subscribeWebhook(
  deps: Deps,
  snapshot: PageSnapshot,
  rawUrl: string,
  componentIds: number[],
  outbound: GuardedRequestDeps,
  hooks: Hooks,
): Promise<WebhookAnswer> {
  const parsed = parseTargetUrl(rawUrl);
  const refuse = (message: string) => badRequest(`Validation failed: webhookUrl: ${message}`, [{ path: 'webhookUrl', message }]);
  if (!parsed.ok) throw refuse(parsed.message);
  const decision = await decideTarget(parsed.target, { resolve: outbound.resolve ?? systemResolver, allowLoopback: outbound.allowLoopback ?? deps.config.probeAllowPrivate });
  // The reason in words only: the addresses a name resolved to are nobody's business.
  if (!decision.ok) throw refuse(decision.failureReason === 'SSRF_BLOCKED' ? 'the address is not a public address' : 'the host name does not resolve');
  const url = parsed.target.url.toString();
  const now = deps.clock.now();
  const subscriberId = await deps.store.nextId('statusSubscriber');
  const lockValue = webhookLockValue(url);
  const alive = async (owner: string, lockedAt: string) => now.getTime() - Date.parse(lockedAt) < LOCK_SETTLE_MS || (await hooks.read(Number(owner))) !== null;
  if (!(await acquireLock(deps.store, hooks.scope, lockValue, String(subscriberId), now, alive))) {
    const owner = await lockOwner(deps.store, hooks.scope, lockValue);
    const existing = owner === undefined ? null : await hooks.read(Number(owner));
    if (!existing) throw conflict('This webhook URL is being subscribed to this page right now');
    if (existing.state === 'ACTIVE') throw conflict('This webhook URL is already subscribed to this page');
    // Never verified, or turned off by a 410: nothing relies on it, the new request takes its place.
    await hooks.remove(existing);
    if (!(await acquireLock(deps.store, hooks.scope, lockValue, String(subscriberId), now, alive))) throw conflict('This webhook URL is being subscribed to this page right now');
  }
  const giveBackLock = () => releaseLock(deps.store, hooks.scope, lockValue, String(subscriberId));
  await undoIfFails(() => takeSubscriberSlot(deps, snapshot.page), giveBackLock, `the webhook lock of subscriber ${subscriberId}`);
  const created = await undoIfFails(
    () =>
      deps.store.entities.statusSubscriber
        .create({
          subscriberId,
          statusPageId: snapshot.page.id,
          workspaceId: snapshot.page.workspaceId,
          channel: 'WEBHOOK',
          state: 'PENDING_VERIFICATION',
          webhookUrl: url,
          secret: `whsec_${randomBytes(32).toString('base64')}`,
          componentIds,
          unsubscribeKey: randomToken(24),
          createdAt: now.toISOString(),
        })
        .go(),
    async () => {
      await releaseSubscriberSlot(deps, snapshot.page.id);
      await giveBackLock();
    },
    `the slot of subscriber ${subscriberId}`,
  );
  const subscriber = created.data;
  const verified = await hooks.verify(deps, { subscriberId, url, secret: subscriber.secret ?? '', page: { name: snapshot.page.name, slug: snapshot.page.slug } }, outbound);
  if (verified) await activate(deps, subscriber);
  return {
    id: subscriberId,
    secret: subscriber.secret ?? '',
    unsubscribeUrl: unsubscribeUrl(deps, snapshot.page.slug, subscriber),
    status: verified ? 'ACTIVE' : 'PENDING_VERIFICATION',
  };
}

async function activate(deps: Deps, subscriber: StatusSubscriberItem): Promise<void> {
  try {
    await deps.store.entities.statusSubscriber
      .patch({ subscriberId: subscriber.subscriberId })
      .set({ state: 'ACTIVE', confirmedAt: deps.clock.now().toISOString() })
      .where((attr, op) => op.eq(attr.state, 'PENDING_VERIFICATION'))
      .go();
  } catch (err) {
    // Removed meanwhile (unsubscribed, replaced): nothing to activate.
    if (!isConditionalFailure(err)) throw err;
  }
}
