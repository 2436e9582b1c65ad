import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { ACK_BASE, CHAT_TYPES, chatConfig, shapeProblems, startChatReceiver, type ChatReceiver, type ChatType } from '../../test/support/chatChannels.js';
import { startReceiver } from '../../test/support/alerting.js';
import { createTeam, type Team } from '../../test/support/identity.js';
import { fakeResolver, spyConnect } from '../../test/support/outbound.js';
import { handleAlertMessages } from '../escalation/dispatch.js';
import { deliverToChannel, testAlertChannel } from './channelsDelivery.js';

/**
 * TEAMS, DISCORD, NTFY and TELEGRAM over the API into the embedded store, delivered through the
 * outbound guard to a loopback TLS receiver that checks each provider's documented shape
 * (test/support/chatChannels.ts).
 */
type Channel = { id: number; type: string; name: string; config: Record<string, string | null> };

let t: TestContext;
let team: Team;
let receiver: ChatReceiver;
beforeAll(async () => {
  // Loopback allowed, for the one test send over HTTP to a plain http receiver; other private addresses stay refused.
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  team = await createTeam(t, 'chat');
  receiver = await startChatReceiver();
  t.deps.queue.consume('alerts', (messages) => handleAlertMessages(t.deps, messages, { outbound: receiver.outbound }));
}, 120_000);
afterAll(() => receiver.close());
beforeEach(() => t.clock.advanceSeconds(61));

const ownerActor = () => ({ kind: 'user' as const, userId: team.owner.userId, email: team.owner.email });
let made = 0;
async function create(type: ChatType, config: Record<string, string> = chatConfig(type, ++made)) {
  const res = await t.request<Channel>('POST', '/alert-channels', { token: team.owner.token, body: { workspaceId: team.workspaceId, name: `${type} ops`, type, config } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const item = async (channelId: number) => {
  const found = (await t.deps.store.entities.alertChannel.get({ channelId }).go()).data;
  if (!found) throw new Error(`channel ${channelId} missing`);
  return found;
};
const nOf = (channel: Channel): string => {
  const config = channel.config;
  return String(config.url ?? config.chatId)
    .replace(/^.*\/(teams|webhooks|ntfy)\/(alerts-)?/, '')
    .replace(/[/?].*$/, '')
    .replace(/^-100/, '');
};

describe('chat and push channel types', { timeout: 120_000 }, () => {
  it("test-sends each type to a receiver that checks the provider's documented shape", async () => {
    for (const type of CHAT_TYPES) {
      const channel = await create(type);
      const result = await testAlertChannel({ deps: t.deps, actor: ownerActor() }, channel.id, receiver.outbound);
      expect(result, type).toMatchObject({ ok: true, type, failureReason: null });
      const [request, ...more] = receiver.at(type, nOf(channel));
      expect(more, type).toEqual([]);
      expect(shapeProblems(request ?? { method: '', url: '', headers: {}, body: '' }), type).toEqual([]);
      expect(request?.body, type).toContain('Vigil test alert');
    }
    // ntfy: the JSON publish goes to the server root, with the token as a Bearer credential.
    const ntfy = receiver.server.requests.find((r) => r.url === '/ntfy/');
    expect(ntfy?.headers.authorization).toMatch(/^Bearer tk_SECRETntfy\d+$/);
    expect(receiver.server.requests.some((r) => r.url.startsWith('/tg/bot123456:') && r.url.endsWith('/sendMessage'))).toBe(true);
  });

  it('test-sends over HTTP: POST /alert-channels/:id/test to a self-hosted ntfy server, as the dashboard does', async () => {
    const plain = await startReceiver();
    try {
      const channel = await create('NTFY', { url: plain.url('/ntfy/alerts-self-hosted'), token: 'tk_SECRETselfhosted' });
      const res = await t.request<{ ok: boolean; type: string }>('POST', `/alert-channels/${channel.id}/test`, { token: team.owner.token });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ ok: true, type: 'NTFY' });
      const [request] = plain.at('/ntfy/');
      expect(shapeProblems(request ?? { method: '', url: '', headers: {}, body: '' })).toEqual([]);
      expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ topic: 'alerts-self-hosted', title: 'Vigil test alert', priority: 3 });
      expect(request?.headers.authorization).toBe('Bearer tk_SECRETselfhosted');
      // A member may not test-send (ADMIN), and sees no token.
      expectError(await t.request('POST', `/alert-channels/${channel.id}/test`, { token: team.member.token }), 403);
    } finally {
      await plain.close();
    }
  });

  it('carries the acknowledge and resolve links in each format, and maps severity to colour and priority', async () => {
    const actions = { acknowledgeUrl: `${ACK_BASE}ack-token`, resolveUrl: `${ACK_BASE}resolve-token` };
    const message = { id: 'msg_links', type: 'incident.opened', subject: '[P1] Incident opened: API down', text: 'API down\n\nSeverity: P1', data: { severity: 'P1' }, actions };
    const bodies: Record<string, Record<string, unknown>> = {};
    for (const type of CHAT_TYPES) {
      const channel = await create(type);
      const result = await deliverToChannel(t.deps, await item(channel.id), message, receiver.outbound);
      expect(result.ok, type).toBe(true);
      const request = receiver.at(type, nOf(channel)).at(-1);
      expect(shapeProblems(request ?? { method: '', url: '', headers: {}, body: '' }), type).toEqual([]);
      bodies[type] = JSON.parse(request?.body ?? '{}');
    }
    expect(bodies.TEAMS).toMatchObject({
      attachments: [
        {
          content: {
            actions: [
              { type: 'Action.OpenUrl', title: 'Acknowledge', url: actions.acknowledgeUrl },
              { type: 'Action.OpenUrl', title: 'Resolve', url: actions.resolveUrl },
            ],
          },
        },
      ],
    });
    expect(bodies.DISCORD).toMatchObject({ allowed_mentions: { parse: [] }, embeds: [{ color: 0xd92d20, url: actions.acknowledgeUrl }] });
    expect(JSON.stringify(bodies.DISCORD)).toContain(`[Acknowledge](${actions.acknowledgeUrl}) · [Resolve](${actions.resolveUrl})`);
    expect(bodies.NTFY).toMatchObject({
      priority: 5,
      actions: [
        { action: 'view', label: 'Acknowledge', url: actions.acknowledgeUrl },
        { action: 'view', label: 'Resolve', url: actions.resolveUrl },
      ],
    });
    expect(bodies.TELEGRAM).toMatchObject({
      parse_mode: 'HTML',
      reply_markup: {
        inline_keyboard: [
          [
            { text: 'Acknowledge', url: actions.acknowledgeUrl },
            { text: 'Resolve', url: actions.resolveUrl },
          ],
        ],
      },
    });
  });

  it("delivers an incident alert through the alerts queue, waiting out a 429's Retry-After", async () => {
    const key = await t.apiKey(team.owner);
    const channels = [];
    for (const type of CHAT_TYPES) {
      const channel = await create(type);
      // Telegram says it in the body's parameters.retry_after (its flood control), the others in the header.
      receiver.answer(
        type,
        nOf(channel),
        type === 'TELEGRAM'
          ? { status: 429, body: JSON.stringify({ ok: false, error_code: 429, description: 'Too Many Requests: retry after 90', parameters: { retry_after: 90 } }) }
          : { status: 429, headers: { 'retry-after': '90' } },
      );
      channels.push(channel);
    }
    // Older channels of this workspace get it too; each channel here is looked at by its own path.
    await t.request('POST', '/v1/incidents', { token: key, body: { title: 'Checkout is failing', severity: 'P1' } });
    await t.deps.queue.deliverDue();
    for (const channel of channels) expect(receiver.at(channel.type as ChatType, nOf(channel)), channel.type).toHaveLength(1);
    t.clock.advanceSeconds(89);
    await t.deps.queue.deliverDue();
    for (const channel of channels) expect(receiver.at(channel.type as ChatType, nOf(channel)), channel.type).toHaveLength(1);
    t.clock.advanceSeconds(1);
    await t.deps.queue.deliverDue();
    for (const channel of channels) {
      const requests = receiver.at(channel.type as ChatType, nOf(channel));
      expect(requests, channel.type).toHaveLength(2);
      expect(requests[1]?.body, channel.type).toContain('Checkout is failing');
      expect(shapeProblems(requests[1] ?? { method: '', url: '', headers: {}, body: '' }), channel.type).toEqual([]);
    }
    const view = await t.request<Channel & { lastError: string }>('GET', `/alert-channels/${channels[0]?.id}`, { token: team.owner.token });
    expect(view.body.lastError).toBe('UNEXPECTED_STATUS: The endpoint answered HTTP 429');
  });

  it("reads how long Telegram's flood control asks to wait from its answer's body (parameters.retry_after)", async () => {
    const channel = await create('TELEGRAM');
    const flood = JSON.stringify({ ok: false, error_code: 429, description: 'Too Many Requests: retry after 37', parameters: { retry_after: 37 } });
    receiver.answer('TELEGRAM', nOf(channel), { status: 429, body: flood }, { status: 429, headers: { 'retry-after': '12' }, body: flood });
    const message = { id: 'msg_flood', type: 'incident.opened', subject: 's', text: 't', data: {} };
    expect(await deliverToChannel(t.deps, await item(channel.id), message, receiver.outbound)).toMatchObject({ ok: false, statusCode: 429, retryAfterSeconds: 37 });
    // A Retry-After header, where one is sent, is the answer's word.
    expect(await deliverToChannel(t.deps, await item(channel.id), message, receiver.outbound)).toMatchObject({ ok: false, statusCode: 429, retryAfterSeconds: 12 });
  });

  it('masks each secret below ADMIN (one channel and the list), whole for ADMIN and OWNER', async () => {
    const made = await Promise.all(CHAT_TYPES.map((type) => create(type)));
    for (const user of [team.viewer, team.member]) {
      const list = await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: user.token });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain('SECRET');
      expect(list.text).not.toContain('AAbbCC');
      for (const channel of made) {
        const one = await t.request<Channel>('GET', `/alert-channels/${channel.id}`, { token: user.token });
        expect(one.status).toBe(200);
        expect(one.text).not.toMatch(/SECRET|AAbbCC/);
      }
    }
    const [teams, discord, ntfy, telegram] = made;
    const asViewer = async (id: number | undefined) => (await t.request<Channel>('GET', `/alert-channels/${id}`, { token: team.viewer.token })).body.config;
    expect((await asViewer(teams?.id)).url).toMatch(/^https:\/\/vigil-tls\.test\/…/);
    expect((await asViewer(discord?.id)).url).toMatch(/^https:\/\/vigil-tls\.test\/…/);
    expect(await asViewer(ntfy?.id)).toMatchObject({ token: expect.stringMatching(/^…/) });
    expect(await asViewer(telegram?.id)).toEqual({ botToken: '…OOpp', chatId: expect.any(String), apiBaseUrl: 'https://vigil-tls.test/tg' });
    for (const user of [team.admin, team.owner]) {
      for (const channel of made) {
        const one = await t.request<Channel>('GET', `/alert-channels/${channel.id}`, { token: user.token });
        expect(one.body.config).toEqual(channel.config);
      }
    }
    expect(telegram?.config.botToken).toBe('123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOpp');
    expect(ntfy?.config.token).toMatch(/^tk_SECRETntfy/);
  });

  it('refuses a bad config with a 400 naming the field, on create and on PATCH, and changes nothing', async () => {
    const bad: [ChatType, Record<string, unknown>][] = [
      ['TEAMS', { url: 'http://prod.example/teams' }],
      ['TEAMS', { url: 'not a url' }],
      ['DISCORD', {}],
      ['DISCORD', { url: 'https://discord.example/x', extra: 1 }],
      ['DISCORD', { url: 'https://10.1.2.3/api/webhooks/1/x' }],
      ['NTFY', { url: 'https://ntfy.example/' }],
      ['NTFY', { url: 'https://ntfy.example/topic?x=1' }],
      ['NTFY', { url: 'https://ntfy.example/has%20space' }],
      ['NTFY', { url: 'https://ntfy.example/ok', token: 'two words' }],
      ['NTFY', { url: 'http://10.0.0.1/ntfy/alerts' }],
      ['TELEGRAM', { botToken: 'nope', chatId: '-1001' }],
      ['TELEGRAM', { botToken: '123456:AAbbCCddEEffGGhhIIjjKKll', chatId: 'a chat' }],
      ['TELEGRAM', { botToken: '123456:AAbbCCddEEffGGhhIIjjKKll', chatId: '42', apiBaseUrl: 'http://api.example' }],
      ['TELEGRAM', { botToken: '123456:AAbbCCddEEffGGhhIIjjKKll', chatId: '42', apiBaseUrl: 'https://192.168.1.10' }],
    ];
    const before = await t.request('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: team.owner.token });
    for (const [type, config] of bad) {
      const res = await t.request('POST', '/alert-channels', { token: team.owner.token, body: { workspaceId: team.workspaceId, name: 'bad', type, config } });
      const error = expectError(res, 400);
      expect(error.message, `${type} ${JSON.stringify(config)}`).toMatch(/config/);
    }
    expect((await t.request('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: team.owner.token })).text).toBe(before.text);

    const channels = Object.fromEntries(await Promise.all(CHAT_TYPES.map(async (type) => [type, await create(type)] as const)));
    for (const [type, config] of [
      ...bad,
      ['DISCORD', chatConfig('TELEGRAM', 1)] as [ChatType, Record<string, unknown>],
      ['TELEGRAM', { email: 'a@example.com' }] as [ChatType, Record<string, unknown>],
    ]) {
      const channel = channels[type];
      const res = await t.request('PATCH', `/alert-channels/${channel?.id}`, { token: team.owner.token, body: { name: 'renamed', config } });
      expectError(res, 400);
      const after = await t.request<Channel>('GET', `/alert-channels/${channel?.id}`, { token: team.owner.token });
      expect(after.body, `${type} ${JSON.stringify(config)}`).toMatchObject({ name: channel?.name, config: channel?.config });
    }
  });

  it("PATCH replaces a channel's config: a new destination is used, and an optional field left out is removed", async () => {
    const channel = await create('NTFY');
    const patched = await t.request<Channel>('PATCH', `/alert-channels/${channel.id}`, {
      token: team.owner.token,
      body: { config: { url: 'https://vigil-tls.test/ntfy/alerts-patched' } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.config).toEqual({ url: 'https://vigil-tls.test/ntfy/alerts-patched', token: null });
    expect(await testAlertChannel({ deps: t.deps, actor: ownerActor() }, channel.id, receiver.outbound)).toMatchObject({ ok: true });
    expect(receiver.at('NTFY', 'patched').at(-1)?.headers.authorization).toBeUndefined();
  });

  it('answers 404 to another workspace for each type: read, change, test, delete', async () => {
    for (const type of CHAT_TYPES) {
      const channel = await create(type);
      const as = { token: team.outsider.token };
      expectError(await t.request('GET', `/alert-channels/${channel.id}`, as), 404);
      expectError(await t.request('PATCH', `/alert-channels/${channel.id}`, { ...as, body: { name: 'mine now' } }), 404);
      expectError(await t.request('POST', `/alert-channels/${channel.id}/test`, as), 404);
      expectError(await t.request('DELETE', `/alert-channels/${channel.id}`, as), 404);
      expect((await t.request<Channel>('GET', `/alert-channels/${channel.id}`, { token: team.owner.token })).body.name).toBe(channel.name);
    }
  });

  it('refuses, before any socket, a provider name that resolves to a private address', async () => {
    for (const type of CHAT_TYPES) {
      const channel = await create(type);
      const spy = spyConnect();
      const result = await testAlertChannel({ deps: t.deps, actor: ownerActor() }, channel.id, {
        resolve: fakeResolver({ 'vigil-tls.test': ['10.0.0.7'] }).resolve,
        connect: spy.connect,
      });
      expect(result, type).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
      expect(result.message).not.toContain('10.0.0.7');
      expect(spy.calls, type).toHaveLength(0);
    }
  });

  it('uses api.telegram.org when no apiBaseUrl is given', async () => {
    const channel = await create('TELEGRAM', { botToken: '123456:AAbbCCddEEffGGhhIIjjKKll', chatId: '@vigil_ops' });
    expect(channel.config.apiBaseUrl).toBe('https://api.telegram.org');
    const spy = spyConnect();
    const resolver = fakeResolver({ 'api.telegram.org': ['10.9.9.9'] });
    await testAlertChannel({ deps: t.deps, actor: ownerActor() }, channel.id, { resolve: resolver.resolve, connect: spy.connect });
    expect(resolver.calls).toEqual(['api.telegram.org']);
  });
});
