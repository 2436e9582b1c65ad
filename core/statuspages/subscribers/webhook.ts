import { randomToken, sha256Hex } from '../../auth/secrets.js';
import { generateWebhookSecret, signWebhook } from '../../alerting/webhookSignature.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict } from '../../http/errors.js';
import { decideTarget, guardedRequest, parseTargetUrl, systemResolver, type GuardedRequestDeps } from '../../outbound/index.js';
import { isConditionalFailure, undoIfFails } from '../../store/conditional.js';
import type { StatusSubscriberItem } from '../../store/entities/statusSubscriber.js';
import { acquireLock, lockOwner, releaseLock } from '../../store/locks.js';
import type { PageSnapshot } from '../store/snapshotShape.js';
import { unsubscribeUrl } from './links.js';
import { releaseSubscriberSlot, takeSubscriberSlot } from './quota.js';

/**
 * Webhook subscribers (README "Subscribing"). Anyone may type any URL into a public form, so the
 * endpoint must say yes before it receives anything: within the subscribe request Vigil POSTs it a
 * signed `subscription.verification` event carrying a random `challenge` (through the guarded
 * outbound client, like every delivery), and the subscription is ACTIVE only if the endpoint
 * answers 2xx echoing the challenge (the bare text, or JSON `{"challenge": ...}`), as Slack's URL
 * check does. Otherwise it stays PENDING_VERIFICATION and the fan-out passes it by. One URL holds
 * one subscription per page (a lock item on the URL's hash): subscribing it again while ACTIVE is
 * 409; while PENDING_VERIFICATION the pending one (never delivered to) is replaced by a fresh one
 * and the check runs again, which is how a visitor retries.
 */

export const webhookLockValue = (url: string): string => `webhook:${sha256Hex(url)}`;
const VERIFICATION_TIMEOUT_MS = 5_000;
/** A lock younger than this whose subscriber is not written yet belongs to a request still running. */
const LOCK_SETTLE_MS = 30_000;

export type WebhookAnswer = { id: number; secret: string; unsubscribeUrl: string; status: 'ACTIVE' | 'PENDING_VERIFICATION' };

type Hooks = {
  scope: string;
  remove: (subscriber: StatusSubscriberItem) => Promise<void>;
  read: (subscriberId: number) => Promise<StatusSubscriberItem | null>;
};

export async function subscribeWebhook(deps: Deps, snapshot: PageSnapshot, rawUrl: string, componentIds: number[], outbound: GuardedRequestDeps, hooks: Hooks): Promise<WebhookAnswer> {
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
    if (existing?.state !== 'PENDING_VERIFICATION') throw conflict('This webhook URL is already subscribed to this page');
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
          secret: generateWebhookSecret(),
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
  const verified = await verifyEndpoint(deps, subscriber, snapshot.page, outbound);
  if (verified) await activate(deps, subscriber);
  return { id: subscriberId, secret: subscriber.secret ?? '', unsubscribeUrl: unsubscribeUrl(deps, snapshot.page.slug, subscriber), status: verified ? 'ACTIVE' : 'PENDING_VERIFICATION' };
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

/** The challenge exchange: true only for a 2xx answer that echoes this request's challenge. */
async function verifyEndpoint(deps: Deps, subscriber: StatusSubscriberItem, page: { name: string; slug: string }, outbound: GuardedRequestDeps): Promise<boolean> {
  const challenge = randomToken(24);
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const body = JSON.stringify({
    type: 'subscription.verification',
    timestamp: new Date(nowSeconds * 1000).toISOString(),
    data: { challenge, subscriberId: subscriber.subscriberId, page: { name: page.name, slug: page.slug } },
  });
  const webhookId = `msg_verify_${randomToken(12)}`;
  const result = await guardedRequest(
    {
      url: subscriber.webhookUrl ?? '',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Vigil-Webhooks/1.0', ...signWebhook(subscriber.secret ?? '', webhookId, nowSeconds, body) },
      body,
      timeoutMs: VERIFICATION_TIMEOUT_MS,
      followRedirects: false,
      maxRedirects: 0,
      blockHttpDowngrade: true,
      maxBodyBytes: 1024,
    },
    { allowLoopback: deps.config.probeAllowPrivate, ...outbound },
  );
  if (!result.ok || result.statusCode < 200 || result.statusCode >= 300) return false;
  return echoes(result.bodyText, challenge);
}

function echoes(text: string, challenge: string): boolean {
  if (text.trim() === challenge) return true;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && (parsed as { challenge?: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}
