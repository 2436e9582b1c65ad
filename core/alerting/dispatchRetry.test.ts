import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { MAX_RECEIVE_COUNT } from '../ports/index.js';
import { alertsSent, createChannel, declare, openedMessage, startReceiver, type Receiver, type User } from '../../test/support/alerting.js';
import { createPage, expectStatus } from '../../test/support/statuspages.js';
import { handleAlertMessages } from '../escalation/dispatch.js';

/**
 * Delivery retries through the durable local queue, on the test's clock: the runtime's
 * `deliverDue` honours every delay (the `drain` test hook would skip them).
 */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

let paths = 0;
async function setup(name: string) {
  const user: User = await t.signup(name);
  const incident = await declare(t, await t.apiKey(user));
  const path = `/retry-${++paths}`;
  const channel = await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url(path) } });
  return { user, incident, path, channelId: channel.id };
}

type ChannelView = { enabled: boolean; disabledReason: string | null; lastError: string | null; lastErrorAt: string | null };
const channelOf = async (user: User, channelId: number) => (await t.request<ChannelView>('GET', `/alert-channels/${channelId}`, { token: user.token })).body;
const webhookIds = (path: string) => receiver.at(path).map((request) => request.headers['webhook-id']);

describe('alert delivery retries', () => {
  it("waits out a 503's Retry-After before the retry, which carries the same webhook-id", async () => {
    const { user, incident, path } = await setup('after');
    receiver.answer(path, { status: 503, headers: { 'retry-after': '120' } });
    await t.deps.queue.publish('alerts', [openedMessage(t, user, incident.id)]);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(1);

    t.clock.advanceSeconds(119);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(1);
    t.clock.advanceSeconds(1);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(2);
    const [first, second] = webhookIds(path);
    expect(first).toMatch(/^msg_/);
    expect(second).toBe(first);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(1);
    expect(await t.deps.queue.pending('alerts')).toEqual([]);
  });

  it('honours a Retry-After given as an HTTP-date on the test clock (RFC 9110: delay-seconds or HTTP-date)', async () => {
    const { user, incident, path } = await setup('after-date');
    const at = new Date(t.clock.now().getTime() + 300_000).toUTCString();
    receiver.answer(path, { status: 503, headers: { 'retry-after': at } });
    await t.deps.queue.publish('alerts', [openedMessage(t, user, incident.id)]);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(1);
    // The normal backoff (at most 30 s for a first retry) is long past; the date is not.
    t.clock.advanceSeconds(299);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(1);
    t.clock.advanceSeconds(1);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(2);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(1);
  });

  it('retries with the normal backoff after a Retry-After date already past, or one that is no delay-seconds nor HTTP-date', async () => {
    for (const value of [new Date(t.clock.now().getTime() - 3_600_000).toUTCString(), '1e3', '600.5', 'Sun, 31 Feb 2099 10:00:00 GMT']) {
      const { user, incident, path } = await setup('after-odd');
      receiver.answer(path, { status: 429, headers: { 'retry-after': value } });
      await t.deps.queue.publish('alerts', [openedMessage(t, user, incident.id)]);
      await t.deps.queue.deliverDue();
      expect(receiver.at(path)).toHaveLength(1);
      t.clock.advanceSeconds(14);
      await t.deps.queue.deliverDue();
      expect(receiver.at(path), value).toHaveLength(1);
      t.clock.advanceSeconds(16);
      await t.deps.queue.deliverDue();
      expect(receiver.at(path), value).toHaveLength(2);
    }
  });

  it("asks the queue to hold a status page subscriber's delivery until its Retry-After HTTP-date", async () => {
    const user: User = await t.signup('subscriber-date');
    const page = await createPage(t, user);
    const path = `/retry-sub-${++paths}`;
    const hook = expectStatus(
      await t.request<{ id: number }>('POST', `/public/status/${page.slug}/subscribe`, { body: { channel: 'WEBHOOK', webhookUrl: receiver.url(path) } }),
      201,
    );
    receiver.answer(path, { status: 503, headers: { 'retry-after': new Date(t.clock.now().getTime() + 240_000).toUTCString() } });
    const deliver = {
      type: 'statuspage.deliver',
      subscriberId: hook.id,
      statusPageId: page.id,
      workspaceId: user.workspaceId,
      eventKey: `${page.id}:retry:0`,
      pageName: page.name,
      slug: page.slug,
      summary: 'API is now a major outage',
      notice: 'component.status_changed',
      componentIds: [],
      data: {},
      at: t.clock.now().toISOString(),
    };
    expect(await handleAlertMessages(t.deps, [{ id: 'sub', body: deliver }])).toEqual({ failedIds: ['sub'], retryAfterSeconds: { sub: 240 } });
    expect(receiver.at(path)).toHaveLength(1);
  });

  it('backs off between attempts, dead-letters after the last one, and leaves the last error on the channel', async () => {
    const { user, incident, path, channelId } = await setup('failing');
    receiver.answer(path, ...Array.from({ length: MAX_RECEIVE_COUNT }, () => ({ status: 500 })));
    const message = openedMessage(t, user, incident.id);
    await t.deps.queue.publish('alerts', [message]);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(1);
    const failedAt = t.clock.now().toISOString();
    expect(await channelOf(user, channelId)).toMatchObject({ enabled: true, lastError: 'UNEXPECTED_STATUS: The endpoint answered HTTP 500', lastErrorAt: failedAt });

    // The first retry waits at least half the 30 s base.
    t.clock.advanceSeconds(14);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(1);
    for (let attempt = 2; attempt <= MAX_RECEIVE_COUNT; attempt++) {
      t.clock.advanceSeconds(15 * 60);
      await t.deps.queue.deliverDue();
      expect(receiver.at(path)).toHaveLength(attempt);
    }
    t.clock.advanceSeconds(60 * 60);
    await t.deps.queue.deliverDue();
    expect(receiver.at(path)).toHaveLength(MAX_RECEIVE_COUNT);
    expect(new Set(webhookIds(path)).size).toBe(1);
    expect((await t.deps.queue.deadLettered('alerts')).map((m) => m.body)).toContainEqual(message);
    // Hours have passed on the test clock: the access token has expired, so sign in again.
    const login = await t.request<{ access_token: string }>('POST', '/oauth/token', { body: { grant_type: 'password', username: user.email, password: user.password } });
    const again = { ...user, token: login.body.access_token };
    expect(await alertsSent(t, again, incident.id)).toEqual([]);
    const channel = await channelOf(again, channelId);
    expect(channel.lastError).toBe('UNEXPECTED_STATUS: The endpoint answered HTTP 500');
    expect(Date.parse(channel.lastErrorAt ?? '')).toBeGreaterThan(Date.parse(failedAt));
  });

  it('notes a 410 on the channel it disables, and clears the reason when an admin enables it again', async () => {
    const { user, incident, path, channelId } = await setup('gone');
    receiver.answer(path, { status: 410 });
    await t.deps.queue.publish('alerts', [openedMessage(t, user, incident.id)]);
    await t.deps.queue.deliverDue();
    expect(await t.deps.queue.pending('alerts')).toEqual([]);
    const disabled = await channelOf(user, channelId);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('410 Gone'), lastError: expect.stringContaining('410 Gone') });

    const enabled = await t.request<ChannelView>('PATCH', `/alert-channels/${channelId}`, { token: user.token, body: { enabled: true } });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, lastError: disabled.lastError });
    expect(await channelOf(user, channelId)).toEqual(enabled.body);
  });
});
