import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { mailTo, startReceiver, type Receiver } from '../../../test/support/alerting.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { changeStatus, checkComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';
import { PLAN_LIMITS } from '../../auth/plans.js';
import { handleAlertMessages } from '../../escalation/dispatch.js';
import { FANOUT_BATCH } from '../../alerting/subscriberDispatch.js';
import { verifyWebhook } from '../../alerting/webhookSignature.js';
import { clientAddresses } from '../../../test/support/users.js';

/**
 * Subscribers are not a mail or webhook cannon, over HTTP into the embedded
 * store: a webhook proves it wants the deliveries (challenge echo) before it is ACTIVE, one
 * subscription per page and URL or address, and a page holds at most its plan's subscribers.
 */
let t: TestContext;
let owner: User;
let receiver: Receiver;
const fresh = clientAddresses('203.0.113');
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  owner = await t.signup('cannon-owner');
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => freshRateWindow(t));

type Hook = { id: number; secret: string; unsubscribeUrl: string; status: string };
const subscribe = (slug: string, body: Record<string, unknown>) => t.request<Record<string, unknown>>('POST', `/public/status/${slug}/subscribe`, { body, headers: fresh() });
const listed = async (pageId: number) =>
  expectStatus(await t.request<{ id: number; status: string; webhookUrl: string | null }[]>('GET', `/status-pages/${pageId}/subscribers`, { token: owner.token }), 200);

describe('webhook subscribers verify their endpoint', () => {
  it('ACTIVE only when the endpoint echoes the signed challenge; one that does not stays PENDING_VERIFICATION and receives nothing until a retry passes', async () => {
    const page = await createPage(t, owner, { name: 'Verify' });
    const { check } = await checkComponent(t, owner, page.id);
    await changeStatus(t, check, owner, 'NEW', 'OK');
    await t.deps.queue.drain();

    const echoing = `/echo-${page.id}`;
    const hook = expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(echoing) }), 201) as Hook;
    expect(hook.status).toBe('ACTIVE');
    const [verification] = receiver.verifications(echoing);
    const payload = JSON.parse(verification?.body ?? '{}') as { type: string; data: { challenge: string } };
    expect(payload.type).toBe('subscription.verification');
    expect(payload.data.challenge.length).toBeGreaterThanOrEqual(20);
    const headers = verification?.headers ?? {};
    const signed = {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    };
    expect(verifyWebhook(hook.secret, signed, verification?.body ?? '', Math.floor(t.clock.now().getTime() / 1000))).toBe(true);

    // Answers 200 without the challenge: stored, but pending, and a change reaches it not.
    const silent = `/silent-${page.id}`;
    receiver.answer(silent, { status: 200, body: 'ok' });
    const pending = expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(silent) }), 201) as Hook;
    expect(pending.status).toBe('PENDING_VERIFICATION');
    // Echoing a different challenge, or failing, is no better.
    const wrong = `/wrong-${page.id}`;
    receiver.answer(wrong, { status: 200, body: JSON.stringify({ challenge: 'not-the-one' }) });
    expect((expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(wrong) }), 201) as Hook).status).toBe('PENDING_VERIFICATION');
    const failing = `/failing-${page.id}`;
    receiver.answer(failing, { status: 500 });
    expect((expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(failing) }), 201) as Hook).status).toBe('PENDING_VERIFICATION');
    expect(Object.fromEntries((await listed(page.id)).map((s) => [s.id, s.status]))).toMatchObject({ [hook.id]: 'ACTIVE', [pending.id]: 'PENDING_VERIFICATION' });

    await changeStatus(t, check, owner, 'OK', 'DOWN');
    await t.deps.queue.drain();
    expect(receiver.at(echoing)).toHaveLength(1);
    expect(receiver.at(silent)).toHaveLength(0);
    expect(receiver.at(wrong)).toHaveLength(0);
    expect(receiver.at(failing)).toHaveLength(0);

    // The endpoint now echoes: subscribing the same URL again replaces the pending one with an ACTIVE one.
    const retried = expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(silent) }), 201) as Hook;
    expect(retried.status).toBe('ACTIVE');
    const urls = (await listed(page.id)).filter((s) => s.webhookUrl === receiver.url(silent));
    expect(urls.map((s) => [s.id, s.status])).toEqual([[retried.id, 'ACTIVE']]);
    await changeStatus(t, check, owner, 'DOWN', 'OK');
    await t.deps.queue.drain();
    expect(receiver.at(silent)).toHaveLength(1);
    expect(receiver.at(echoing)).toHaveLength(2);
  });
});

describe('one subscription per page and URL or address', () => {
  it('the same webhook URL again is 409 while ACTIVE; the same address again is the same 202, one subscriber; another page may have both', async () => {
    const page = await createPage(t, owner);
    const path = `/once-${page.id}`;
    expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(path) }), 201);
    const again = expectError(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(path) }), 409, 'CONFLICT');
    expect(again.message).toMatch(/already subscribed/);
    const email = `once-${page.id}@example.com`;
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email }), 202);
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email: email.toUpperCase() }), 202);
    expect(await listed(page.id)).toHaveLength(2);
    expect(receiver.verifications(path)).toHaveLength(1);
    expect(mailTo(t, email)).toHaveLength(1);

    const other = await createPage(t, owner);
    expectStatus(await subscribe(other.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(path) }), 201);
    expectStatus(await subscribe(other.slug, { channel: 'EMAIL', email }), 202);
    expect(await listed(other.id)).toHaveLength(2);

    // Removed, the URL may subscribe again.
    const [hook] = (await listed(page.id)).filter((s) => s.webhookUrl !== null);
    expectStatus(await t.request('DELETE', `/status-pages/${page.id}/subscribers/${hook?.id}`, { token: owner.token }), 204);
    expect((expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(path) }), 201) as Hook).status).toBe('ACTIVE');
  });
});

/** Writes ACTIVE e-mail subscribers straight into the store (many, fast): what years of sign-ups leave behind. */
async function seedSubscribers(page: { id: number }, workspaceId: number, count: number, prefix: string): Promise<string[]> {
  const now = t.clock.now().toISOString();
  const emails: string[] = [];
  for (let i = 0; i < count; i++) {
    const email = `${prefix}-${i}-${page.id}@example.com`;
    emails.push(email);
    await t.deps.store.entities.statusSubscriber
      .create({
        subscriberId: await t.deps.store.nextId('statusSubscriber'),
        statusPageId: page.id,
        workspaceId,
        channel: 'EMAIL',
        state: 'ACTIVE',
        email,
        componentIds: [],
        unsubscribeKey: randomBytes(12).toString('base64url'),
        createdAt: now,
      })
      .go();
  }
  return emails;
}

describe('the page-wide fan-out runs through the queue in bounded batches', () => {
  it(`each notify reads at most ${FANOUT_BATCH} subscribers and chains the next batch; everyone gets the change once, also when every message is handed over again`, async () => {
    const page = await createPage(t, owner);
    const { check } = await checkComponent(t, owner, page.id);
    await changeStatus(t, check, owner, 'NEW', 'OK');
    await t.deps.queue.drain();
    const count = FANOUT_BATCH + 20;
    const emails = await seedSubscribers(page, owner.workspaceId, count, 'fan');
    const published: unknown[][] = [];
    const queue = t.deps.queue;
    const original = queue.publish.bind(queue);
    const publish = vi.spyOn(queue, 'publish').mockImplementation(async (name, bodies) => {
      published.push(bodies);
      await original(name, bodies);
    });
    try {
      await changeStatus(t, check, owner, 'OK', 'DOWN');
      await t.deps.queue.drain();
    } finally {
      publish.mockRestore();
    }
    const typed = published.flat() as { type?: string; cursor?: string }[];
    const chained = typed.filter((b) => b.type === 'statuspage.notify' && b.cursor !== undefined);
    expect(chained.length).toBeGreaterThanOrEqual(1);
    for (const bodies of published) expect((bodies as { type?: string }[]).filter((b) => b.type === 'statuspage.deliver').length).toBeLessThanOrEqual(FANOUT_BATCH);
    expect(emails.map((email) => mailTo(t, email).length)).toEqual(emails.map(() => 1));

    // Every notify and delivery handed over once more (redelivery): nothing is sent twice.
    const again = typed.filter((b) => b.type === 'statuspage.notify' || b.type === 'statuspage.deliver').map((body, i) => ({ id: `again-${i}`, body }));
    expect((await handleAlertMessages(t.deps, again)).failedIds).toEqual([]);
    await t.deps.queue.drain();
    expect(emails.map((email) => mailTo(t, email).length)).toEqual(emails.map(() => 1));
  }, 180_000);
});

describe("a page holds at most its plan's subscribers", () => {
  it(`a FREE workspace's page takes ${PLAN_LIMITS.FREE.statusPageSubscribers} subscribers, then 403 PLAN_LIMIT_EXCEEDED for e-mail and webhook alike, until one leaves`, async () => {
    const free = await t.signup('cannon-free');
    await t.deps.store.entities.workspace.patch({ workspaceId: free.workspaceId }).set({ plan: 'FREE' }).go();
    const page = await createPage(t, free);
    const limit = PLAN_LIMITS.FREE.statusPageSubscribers;
    // Subscribers from before the cap existed: the counter is seeded from them.
    const now = t.clock.now().toISOString();
    for (let i = 0; i < limit - 1; i++) {
      await t.deps.store.entities.statusSubscriber
        .create({
          subscriberId: await t.deps.store.nextId('statusSubscriber'),
          statusPageId: page.id,
          workspaceId: free.workspaceId,
          channel: 'EMAIL',
          state: 'ACTIVE',
          email: `seed-${i}-${page.id}@example.com`,
          componentIds: [],
          unsubscribeKey: randomBytes(12).toString('base64url'),
          createdAt: now,
        })
        .go();
    }
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email: `last-${page.id}@example.com` }), 202);
    const full = expectError(await subscribe(page.slug, { channel: 'EMAIL', email: `over-${page.id}@example.com` }), 403, 'PLAN_LIMIT_EXCEEDED');
    expect(full.message).toContain(String(limit));
    expectError(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(`/over-${page.id}`) }), 403, 'PLAN_LIMIT_EXCEEDED');
    expect(mailTo(t, `over-${page.id}@example.com`)).toHaveLength(0);
    expect(receiver.verifications(`/over-${page.id}`)).toHaveLength(0);

    // Refused requests took nothing: the address is free to try again once there is room.
    const subscribers = expectStatus(await t.request<{ id: number }[]>('GET', `/status-pages/${page.id}/subscribers`, { token: free.token }), 200);
    expect(subscribers).toHaveLength(limit);
    expectStatus(await t.request('DELETE', `/status-pages/${page.id}/subscribers/${subscribers[0]?.id}`, { token: free.token }), 204);
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email: `over-${page.id}@example.com` }), 202);
    expect(mailTo(t, `over-${page.id}@example.com`)).toHaveLength(1);
    expectError(await subscribe(page.slug, { channel: 'EMAIL', email: `later-${page.id}@example.com` }), 403, 'PLAN_LIMIT_EXCEEDED');
  });
});
