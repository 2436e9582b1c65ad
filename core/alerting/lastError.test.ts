import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { declare, openedMessage, startReceiver, type Receiver, type User } from '../../test/support/alerting.js';
import { fakeResolver, spyConnect } from '../../test/support/outbound.js';
import { createPage, expectStatus } from '../../test/support/statuspages.js';
import type { Connect } from '../outbound/index.js';
import { handleAlertMessages } from '../escalation/dispatch.js';

/**
 * `lastError` is read by the whole workspace (a VIEWER included): it says why a delivery failed
 * in words, never which address the endpoint's name resolved to or a socket error naming one
 * (an internal network map for anyone who can point a channel at a name).
 */
let t: TestContext;
let user: User;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  user = await t.signup('lasterror');
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** A connector that fails the way node's does, naming the address it tried. */
const refusedAt =
  (address: string): Connect =>
  async (request) => {
    throw Object.assign(new Error(`connect ECONNREFUSED ${address}:${request.port}`), { code: 'ECONNREFUSED' });
  };

const ADDRESSES = /\b\d{1,3}(?:\.\d{1,3}){3}\b|::1|fd00:/;

describe('lastError on alert channels', () => {
  it.each([
    [
      'a name resolving to a private address',
      { resolve: fakeResolver({ 'hooks.example.test': ['10.0.0.5'] }).resolve, connect: spyConnect().connect },
      'SSRF_BLOCKED: address not allowed',
    ],
    [
      'a name resolving to a private IPv6 address among public ones',
      { resolve: fakeResolver({ 'hooks.example.test': ['93.184.216.34', 'fd00::5'] }).resolve, connect: spyConnect().connect },
      'SSRF_BLOCKED: address not allowed',
    ],
    [
      'a refused connection',
      { resolve: fakeResolver({ 'hooks.example.test': ['93.184.216.34'] }).resolve, connect: refusedAt('93.184.216.34') },
      'CONNECTION_ERROR: the connection failed',
    ],
  ])('names no address after %s', async (_case, outbound, expected) => {
    const created = await t.request<{ id: number }>('POST', '/alert-channels', {
      token: user.token,
      body: { workspaceId: user.workspaceId, name: 'Hook', type: 'WEBHOOK', config: { url: 'https://hooks.example.test/in' } },
    });
    expect(created.status).toBe(201);
    const incident = await declare(t, await t.apiKey(user));
    const result = await handleAlertMessages(t.deps, [{ id: 'm', body: openedMessage(t, user, incident.id) }], { outbound });
    expect(result.failedIds).toEqual(['m']);
    const channel = await t.request<{ lastError: string | null }>('GET', `/alert-channels/${created.body.id}`, { token: user.token });
    expect(channel.body.lastError).toBe(expected);
    expect(channel.text).not.toMatch(ADDRESSES);
    expect((await t.request('DELETE', `/alert-channels/${created.body.id}`, { token: user.token })).status).toBe(204);
  });
});

describe('lastError on status page subscribers', () => {
  it('names no address when the guard refuses what the name resolves to at delivery time', async () => {
    const page = await createPage(t, user);
    // Subscribed while loopback was allowed (the local-testing switch); delivered under a guard that refuses it.
    const hook = expectStatus(
      await t.request<{ id: number }>('POST', `/public/status/${page.slug}/subscribe`, { body: { channel: 'WEBHOOK', webhookUrl: receiver.url('/sub') } }),
      201,
    );
    const deliver = {
      type: 'statuspage.deliver',
      subscriberId: hook.id,
      statusPageId: page.id,
      workspaceId: user.workspaceId,
      eventKey: `${page.id}:lasterror:0`,
      pageName: page.name,
      slug: page.slug,
      summary: 'api is now a major outage',
      notice: 'component.status_changed',
      componentIds: [],
      data: {},
      at: t.clock.now().toISOString(),
    };
    const refused = await handleAlertMessages(t.deps, [{ id: 'sub', body: deliver }], { outbound: { allowLoopback: false } });
    expect(refused.failedIds).toEqual(['sub']);
    const list = await t.request<{ id: number; lastError: string | null }[]>('GET', `/status-pages/${page.id}/subscribers`, { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.find((s) => s.id === hook.id)?.lastError).toBe('SSRF_BLOCKED: address not allowed');
    expect(JSON.stringify(list.body.map((s) => s.lastError))).not.toMatch(ADDRESSES);
  });
});
