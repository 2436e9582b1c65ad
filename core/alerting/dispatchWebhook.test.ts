import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { handleAlertMessages } from '../escalation/dispatch.js';
import { alertsSent, createChannel, declare, emailChannel, mailTo, openedMessage, startReceiver, type Receiver, type User } from '../../test/support/alerting.js';
import { verifyWebhook } from './webhookSignature.js';

/** Webhook deliveries to a real receiver on loopback, which only the local-testing switch opens. */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

let paths = 0;
/** A workspace with an incident already open (declared before any channel existed) and a webhook channel on its own path. */
async function setup(name: string) {
  const user: User = await t.signup(name);
  const key = await t.apiKey(user);
  const incident = await declare(t, key);
  const path = `/hook-${++paths}`;
  const channel = await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url(path) } });
  if (!channel.secret) throw new Error('a webhook channel is created with its secret');
  return { user, key, incident, path, channel: { id: channel.id, secret: channel.secret } };
}

const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);
const headerOf = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
const signatureHeaders = (request: { headers: Record<string, string | string[] | undefined> }) => ({
  'webhook-id': headerOf(request.headers['webhook-id']),
  'webhook-timestamp': headerOf(request.headers['webhook-timestamp']),
  'webhook-signature': headerOf(request.headers['webhook-signature']),
});

describe('alert dispatch to webhooks', () => {
  it('posts a Standard Webhooks signed incident.opened, once, however often the message comes', async () => {
    const { user, incident, path, channel } = await setup('signed');
    const message = openedMessage(t, user, incident.id);
    await t.deps.queue.publish('alerts', [message, message]);
    await t.deps.queue.drain();
    await handleAlertMessages(t.deps, [{ id: 'third-copy', body: message }]);

    const received = receiver.at(path);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(verifyWebhook(channel.secret, signatureHeaders(request!), request!.body, nowSeconds())).toBe(true);
    expect(verifyWebhook(channel.secret, signatureHeaders(request!), request!.body.replace('P2', 'P1'), nowSeconds())).toBe(false);
    expect(request?.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
    const payload = JSON.parse(request!.body) as { type: string; timestamp: string; data: { incident: { id: number; state: string }; severity: string } };
    expect(payload).toMatchObject({ type: 'incident.opened', timestamp: t.clock.now().toISOString(), data: { incident: { id: incident.id, state: 'ACTIVE' }, severity: 'P2' } });
    expect(await alertsSent(t, user, incident.id)).toHaveLength(1);
  });

  it('reports 503 and 429 with their Retry-After as failed, retries with the same webhook-id, and never resends what got through', async () => {
    const { user, incident, path, channel } = await setup('busy');
    const { email } = await emailChannel(t, user);
    const message = openedMessage(t, user, incident.id);
    receiver.answer(path, { status: 503, headers: { 'retry-after': '120' } });
    expect(await handleAlertMessages(t.deps, [{ id: 'first', body: message }])).toEqual({ failedIds: ['first'], retryAfterSeconds: { first: 120 } });
    expect(mailTo(t, email)).toHaveLength(1);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(1);

    // Through the queue: a 429 fails the next receive, the one after gets through.
    receiver.answer(path, { status: 429, headers: { 'retry-after': '5' } });
    t.clock.advanceSeconds(120);
    await t.deps.queue.publish('alerts', [message]);
    await t.deps.queue.drain();
    const attempts = receiver.at(path);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    expect(verifyWebhook(channel.secret, signatureHeaders(attempts[2]!), attempts[2]!.body, nowSeconds())).toBe(true);
    expect(mailTo(t, email)).toHaveLength(1);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(2);
    expect(t.deps.queue.deadLetters.alerts ?? []).toEqual([]);
  });

  it('disables the channel on 410 Gone and sends it nothing more', async () => {
    const { user, key, incident, path, channel } = await setup('gone');
    receiver.answer(path, { status: 410 });
    expect(await handleAlertMessages(t.deps, [{ id: 'gone', body: openedMessage(t, user, incident.id) }])).toEqual({ failedIds: [], retryAfterSeconds: {} });
    const stored = await t.request<{ enabled: boolean }>('GET', `/alert-channels/${channel.id}`, { token: user.token });
    expect(stored.body.enabled).toBe(false);
    expect(await alertsSent(t, user, incident.id)).toEqual([]);

    expect((await t.request('POST', `/v1/incidents/${incident.id}/acknowledge`, { token: key })).status).toBe(200);
    await t.deps.queue.drain();
    expect(receiver.at(path)).toHaveLength(1);
  });

  it('fails only the messages whose deliveries failed, and dead-letters one that keeps failing after 5 receives', async () => {
    const broken = await setup('broken');
    const healthy = await setup('healthy');
    receiver.answer(broken.path, ...Array.from({ length: 6 }, () => ({ status: 500 })));
    const result = await handleAlertMessages(t.deps, [
      { id: 'healthy', body: openedMessage(t, healthy.user, healthy.incident.id) },
      { id: 'broken', body: openedMessage(t, broken.user, broken.incident.id) },
    ]);
    expect(result).toEqual({ failedIds: ['broken'], retryAfterSeconds: {} });
    expect(receiver.at(healthy.path)).toHaveLength(1);

    await t.deps.queue.publish('alerts', [openedMessage(t, broken.user, broken.incident.id)]);
    await t.deps.queue.drain();
    expect(receiver.at(broken.path)).toHaveLength(6);
    expect(t.deps.queue.deadLetters.alerts).toEqual([expect.objectContaining({ body: openedMessage(t, broken.user, broken.incident.id) })]);
    expect(await alertsSent(t, broken.user, broken.incident.id)).toEqual([]);
  });
});
