import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { failNextMail, mailTo, startReceiver, type Receiver } from '../../../test/support/alerting.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { addToWorkspace } from '../../../test/support/identity.js';
import { changeStatus, checkComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';
import { handleAlertMessages } from '../../escalation/dispatch.js';
import { verifyWebhook } from '../../alerting/webhookSignature.js';

/**
 * Subscribers over HTTP into the embedded store, deliveries through the alerts queue: double
 * opt-in, the component filter, the outbound guard at subscribe, exactly-once delivery under
 * redelivery, unsubscribe (link and RFC 8058 headers), foreign ids, the 5-per-60-s limit.
 */
let t: TestContext;
let owner: User;
let stranger: User;
let receiver: Receiver;
let ip = 0;
const fresh = () => ({ 'x-test-ip': `198.51.100.${(++ip % 250) + 1}` });
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  owner = await t.signup('sub-owner');
  stranger = await t.signup('sub-stranger');
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => freshRateWindow(t));

const subscribe = (slug: string, body: Record<string, unknown>, headers = fresh()) =>
  t.request<Record<string, unknown>>('POST', `/public/status/${slug}/subscribe`, { body, headers });
const linkIn = (text: string, path: string): string => {
  const found = new RegExp(`https?://[^\\s]+${path}\\?token=[^\\s]+`).exec(text)?.[0];
  if (!found) throw new Error(`no ${path} link in ${text}`);
  return new URL(found).pathname.replace(/^\/api/, '') + new URL(found).search;
};
const flip = async (check: { id: number }, from: string, to: string) => {
  await changeStatus(t, check, owner, from, to);
  await t.deps.queue.drain();
};

describe('status page subscribers', () => {
  it('e-mail: double opt-in with one pending mail, then status mails with an unsubscribe link and RFC 8058 headers, until unsubscribed', async () => {
    const page = await createPage(t, owner, { name: 'Acme <status>' });
    const { check } = await checkComponent(t, owner, page.id, { name: 'Checkout' });
    await flip(check, 'NEW', 'OK');
    const email = `Reader-${page.id}@example.com`;
    expect(expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email }), 202)).toEqual({ status: 'PENDING_CONFIRMATION' });
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email: email.toLowerCase() }), 202);
    const address = email.toLowerCase();
    expect(mailTo(t, address)).toHaveLength(1);
    const confirmation = mailTo(t, address)[0];
    expect(confirmation?.subject).toBe('Confirm your subscription to Acme <status>');

    // Not confirmed: a change mails nothing.
    await flip(check, 'OK', 'DOWN');
    expect(mailTo(t, address)).toHaveLength(1);
    expectError(await t.request('POST', `/public/status/${page.slug}/subscriptions/confirm?token=1.nope`), 404);
    expect(expectStatus(await t.request('POST', linkIn(confirmation?.text ?? '', '/subscriptions/confirm')), 200)).toEqual({ status: 'ACTIVE' });

    await flip(check, 'DOWN', 'OK');
    const [, update] = mailTo(t, address);
    expect(update?.subject).toBe('[Acme <status>] Checkout is now operational (was a major outage)');
    const unsubscribe = linkIn(update?.text ?? '', '/unsubscribe');
    expect(update?.headers?.['List-Unsubscribe']).toBe(`<${t.config.publicUrl}/api${unsubscribe}>`);
    expect(update?.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');

    // The dashboard list: masked below ADMIN, in full for the owner.
    const viewer = await t.signup('sub-viewer');
    await addToWorkspace(t, owner, viewer, 'MEMBER');
    const full = expectStatus(await t.request<{ email: string; status: string }[]>('GET', `/status-pages/${page.id}/subscribers`, { token: owner.token }), 200);
    expect(full.map((s) => [s.email, s.status])).toEqual([[address, 'ACTIVE']]);
    const masked = expectStatus(await t.request<{ email: string }[]>('GET', `/status-pages/${page.id}/subscribers`, { token: viewer.token }), 200);
    expect(masked[0]?.email).toBe(`r***@example.com`);

    // One-click unsubscribe (RFC 8058 POST); afterwards nothing more arrives.
    expect(
      expectStatus(await t.request('POST', unsubscribe, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 200),
    ).toEqual({ status: 'UNSUBSCRIBED' });
    expectError(await t.request('POST', unsubscribe), 404);
    await flip(check, 'OK', 'DOWN');
    expect(mailTo(t, address)).toHaveLength(2);
    expect(expectStatus(await t.request<unknown[]>('GET', `/status-pages/${page.id}/subscribers`, { token: owner.token }), 200)).toEqual([]);
  });

  it('a confirmation mail that fails is sent on the retry, not held back for a day as pending', async () => {
    const page = await createPage(t, owner, { name: 'Mail outage' });
    const address = `retry-${page.id}@example.com`;
    // The first send fails; the request fails with it and nothing was mailed.
    failNextMail(t);
    const refused = await subscribe(page.slug, { channel: 'EMAIL', email: address });
    expectError(refused, 503, 'MAIL_UNAVAILABLE');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(mailTo(t, address)).toHaveLength(0);

    // The client's retry mails the link, whose confirmation works; a third request mails nothing more.
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email: address }), 202);
    expect(mailTo(t, address)).toHaveLength(1);
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email: address }), 202);
    expect(mailTo(t, address)).toHaveLength(1);
    expect(expectStatus(await t.request('POST', linkIn(mailTo(t, address)[0]?.text ?? '', '/subscriptions/confirm')), 200)).toEqual({ status: 'ACTIVE' });
  });

  it('componentIds filter what each subscriber hears; webhooks are signed with their own secret', async () => {
    const page = await createPage(t, owner);
    const one = await checkComponent(t, owner, page.id, { name: 'One' });
    const two = await checkComponent(t, owner, page.id, { name: 'Two' });
    await flip(one.check, 'NEW', 'OK');
    await flip(two.check, 'NEW', 'OK');
    const path = `/filter-${page.id}`;
    const hook = expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(path), componentIds: [two.component.id] }), 201) as {
      id: number;
      secret: string;
      unsubscribeUrl: string;
    };
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.unsubscribeUrl).toContain(`/api/public/status/${page.slug}/unsubscribe?token=`);
    const email = `filter-${page.id}@example.com`;
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email, componentIds: [one.component.id] }), 202);
    expectStatus(await t.request('POST', linkIn(mailTo(t, email)[0]?.text ?? '', '/subscriptions/confirm')), 200);

    await flip(two.check, 'OK', 'DOWN');
    expect(mailTo(t, email)).toHaveLength(1);
    expect(receiver.at(path)).toHaveLength(1);
    const request = receiver.at(path)[0];
    const headers = request?.headers ?? {};
    const signed = {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    };
    expect(verifyWebhook(hook.secret, signed, request?.body ?? '', Math.floor(t.clock.now().getTime() / 1000))).toBe(true);
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({
      type: 'component.status_changed',
      data: { componentId: two.component.id, status: 'MAJOR_OUTAGE', previous: 'OPERATIONAL' },
    });

    await flip(one.check, 'OK', 'DOWN');
    expect(mailTo(t, email)).toHaveLength(2);
    expect(receiver.at(path)).toHaveLength(1);
  });

  it('a webhook to a private address is refused at subscribe (400), and foreign or unknown ids are 404', async () => {
    const page = await createPage(t, owner);
    const { component } = await checkComponent(t, owner, page.id);
    for (const webhookUrl of ['http://10.0.0.7/hook', 'http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/x', 'ftp://example.com/']) {
      const refused = expectError(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl }), 400);
      expect(refused.message).not.toContain('10.0.0.7');
    }
    expectError(await subscribe(page.slug, { channel: 'EMAIL', email: 'not-an-address' }), 400);
    expectError(await subscribe(page.slug, { channel: 'SMS', email: 'a@example.com' }), 400);
    const foreignPage = await createPage(t, stranger);
    const foreign = await checkComponent(t, stranger, foreignPage.id);
    expectError(await subscribe(page.slug, { channel: 'EMAIL', email: 'x@example.com', componentIds: [foreign.component.id] }), 404);
    expectError(await subscribe('no-such-page-anywhere', { channel: 'EMAIL', email: 'x@example.com' }), 404);
    const hidden = await createPage(t, owner, { visibility: 'PRIVATE' });
    expectError(await subscribe(hidden.slug, { channel: 'EMAIL', email: 'x@example.com' }), 404);

    const hook = expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url('/foreign'), componentIds: [component.id] }), 201) as { id: number };
    expectError(await t.request('GET', `/status-pages/${page.id}/subscribers`, { token: stranger.token }), 404);
    expectError(await t.request('DELETE', `/status-pages/${page.id}/subscribers/${hook.id}`, { token: stranger.token }), 404);
    expectError(await t.request('DELETE', `/status-pages/${foreignPage.id}/subscribers/${hook.id}`, { token: stranger.token }), 404);
    expectStatus(await t.request('DELETE', `/status-pages/${page.id}/subscribers/${hook.id}`, { token: owner.token }), 204);
    expectError(await t.request('DELETE', `/status-pages/${page.id}/subscribers/${hook.id}`, { token: owner.token }), 404);

    // Deleting the page deletes its subscribers and frees their addresses.
    const email = `gone-${page.id}@example.com`;
    expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email }), 202);
    const pending = expectStatus(await t.request<{ id: number }[]>('GET', `/status-pages/${page.id}/subscribers`, { token: owner.token }), 200);
    expect(pending).toHaveLength(1);
    expectStatus(await t.request('DELETE', `/status-pages/${page.id}`, { token: owner.token }), 204);
    expect((await t.deps.store.entities.statusSubscriber.get({ subscriberId: pending[0]?.id ?? 0 }).go()).data).toBeNull();
    expect((await t.deps.store.entities.statusSubscriber.query.byPage({ statusPageId: page.id }).go()).data).toEqual([]);
  });

  it('a redelivered message is delivered once; a failing endpoint is retried by the queue', async () => {
    const page = await createPage(t, owner);
    const { check } = await checkComponent(t, owner, page.id);
    await flip(check, 'NEW', 'OK');
    const path = `/once-${page.id}`;
    expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(path) }), 201);
    receiver.answer(path, { status: 500 });
    await changeStatus(t, check, owner, 'OK', 'DOWN');
    await t.deps.queue.drain();
    // The first attempt failed (500) and the queue retried it: one success, two requests in all.
    expect(receiver.at(path).map(() => 'hit')).toHaveLength(2);
    const ids = new Set(receiver.at(path).map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    // The same deliver and notify messages handed over again: nothing more is sent.
    const webhookId = String(receiver.at(path)[0]?.headers['webhook-id']);
    const again = await replayLastChange(page.id);
    expect(again.failedIds).toEqual([]);
    await t.deps.queue.drain();
    expect(receiver.at(path)).toHaveLength(2);
    expect(receiver.at(path).every((r) => r.headers['webhook-id'] === webhookId)).toBe(true);
  });

  it('the outbound guard judges a webhook again at every delivery: a destination it now refuses gets nothing', async () => {
    const page = await createPage(t, owner);
    const { check } = await checkComponent(t, owner, page.id);
    await flip(check, 'NEW', 'OK');
    const path = `/guarded-${page.id}`;
    const hook = expectStatus(await subscribe(page.slug, { channel: 'WEBHOOK', webhookUrl: receiver.url(path) }), 201) as { id: number };
    const deliver = {
      type: 'statuspage.deliver',
      subscriberId: hook.id,
      statusPageId: page.id,
      workspaceId: owner.workspaceId,
      eventKey: `${page.id}:guard:0`,
      pageName: page.name,
      slug: page.slug,
      summary: 'guarded',
      notice: 'component.status_changed',
      componentIds: [],
      data: {},
      at: t.clock.now().toISOString(),
    };
    // Loopback was allowed when it subscribed; a delivery under a guard that refuses it fails and sends nothing.
    const refused = await handleAlertMessages(t.deps, [{ id: 'guarded', body: deliver }], { outbound: { allowLoopback: false } });
    expect(refused.failedIds).toEqual(['guarded']);
    expect(receiver.at(path)).toHaveLength(0);
    const subscribers = expectStatus(await t.request<{ id: number; lastError: string }[]>('GET', `/status-pages/${page.id}/subscribers`, { token: owner.token }), 200);
    expect(subscribers.find((s) => s.id === hook.id)?.lastError).toMatch(/^SSRF_BLOCKED/);
  });

  it('5 subscribe requests per 60 s per page and address, exact under concurrency', async () => {
    const page = await createPage(t, owner);
    const address = { 'x-test-ip': '192.0.2.77' };
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => subscribe(page.slug, { channel: 'EMAIL', email: `flood-${i}@example.com` }, address)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const limited = answers.find((a) => a.status === 429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(expectStatus(await subscribe(page.slug, { channel: 'EMAIL', email: 'other-address@example.com' }), 202)).toEqual({ status: 'PENDING_CONFIRMATION' });
  });
});

/** Builds the notify message of the page's last change again and hands it to the consumer, as a redelivery would. */
async function replayLastChange(statusPageId: number) {
  const snapshot = (await t.deps.store.entities.statusPageSnapshot.get({ statusPageId }).go()).data;
  const revision = snapshot?.revision ?? 0;
  const page = (await t.deps.store.entities.statusPage.get({ statusPageId }).go()).data;
  const notify = {
    type: 'statuspage.notify',
    statusPageId,
    workspaceId: page?.workspaceId ?? 0,
    eventKey: `${statusPageId}:${revision}:0`,
    pageName: page?.name ?? '',
    slug: page?.slug ?? '',
    summary: 'replayed',
    notice: 'component.status_changed',
    componentIds: [],
    data: {},
    at: t.clock.now().toISOString(),
  };
  return handleAlertMessages(t.deps, [
    { id: 'replay-1', body: notify },
    { id: 'replay-2', body: notify },
  ]);
}
