import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserActor } from '../context.js';
import { createNodeConnect } from '../outbound/index.js';
import { fakeResolver, spyConnect, startLoopbackTlsServer, toLoopback, type LoopbackServer } from '../../test/support/outbound.js';
import { TEST_CERT_PEM, TEST_KEY_PEM } from '../../test/support/tlsFixture.js';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { deliverToChannel, testAlertChannel } from './channelsDelivery.js';

/**
 * The test-send verb with the outbound seams injected: "public" names come from a fake resolver
 * and every socket goes to a loopback server, so nothing leaves the machine.
 */
let t: TestContext;
let actor: UserActor;
let workspaceId: number;
let token: string;
let slackServer: LoopbackServer;
beforeAll(async () => {
  t = await createTestContext();
  const user = await t.signup('delivery');
  actor = { kind: 'user', userId: user.userId, email: user.email };
  workspaceId = user.workspaceId;
  token = user.token;
  slackServer = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, (_req, res) => res.end('ok'));
});
afterAll(() => slackServer.close());

describe('SLACK and WEBHOOK deliveries through the outbound guard', () => {
  it('posts the Slack message over https to the resolved, pinned address', async () => {
    const channelId = await createChannel({ name: 'Slack', type: 'SLACK', config: { webhookUrl: 'https://vigil-tls.test/services/T0/B0/xyz' } });
    const resolver = fakeResolver({ 'vigil-tls.test': ['93.184.216.34'] });
    const spy = spyConnect(toLoopback(slackServer.port, createNodeConnect({ ca: TEST_CERT_PEM })));
    const result = await testAlertChannel({ deps: t.deps, actor }, channelId, { resolve: resolver.resolve, connect: spy.connect });
    expect(result).toMatchObject({ ok: true, statusCode: 200, failureReason: null, type: 'SLACK' });
    expect(spy.calls[0]?.address).toBe('93.184.216.34');
    const received = slackServer.requests.at(-1);
    expect(received?.url).toBe('/services/T0/B0/xyz');
    expect(received?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(received?.body ?? '{}').text).toContain('Vigil test alert');
  });

  it('refuses a name that resolves to a private address before any socket exists', async () => {
    const channelId = await createChannel({ name: 'Rebinding', type: 'WEBHOOK', config: { url: 'https://hooks.example.test/x' } });
    const spy = spyConnect();
    const result = await testAlertChannel({ deps: t.deps, actor }, channelId, {
      resolve: fakeResolver({ 'hooks.example.test': ['93.184.216.34', '10.0.0.7'] }).resolve,
      connect: spy.connect,
    });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED', statusCode: null });
    expect(spy.calls).toHaveLength(0);
  });

  it('reports an unreachable endpoint as a failed delivery, never a throw', async () => {
    const channelId = await createChannel({ name: 'Gone', type: 'WEBHOOK', config: { url: 'https://gone.example.test/x' } });
    const item = (await t.deps.store.entities.alertChannel.get({ channelId }).go()).data;
    if (!item) throw new Error('channel missing');
    const result = await deliverToChannel(
      t.deps,
      item,
      { id: 'msg_1', type: 'incident.opened', subject: 's', text: 't', data: {} },
      { resolve: fakeResolver({}).resolve, connect: spyConnect().connect },
    );
    expect(result).toMatchObject({ ok: false, failureReason: 'DNS_ERROR', retryAfterSeconds: null });
  });
});

/** Created through the API: names are only resolved at send time, by the injected resolver. */
async function createChannel(body: { name: string; type: 'SLACK' | 'WEBHOOK'; config: Record<string, string> }): Promise<number> {
  const res = await t.request<{ id: number }>('POST', '/alert-channels', { token, body: { workspaceId, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}
