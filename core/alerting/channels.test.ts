import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam, type Team } from '../../test/support/identity.js';
import { startLoopbackServer, type LoopbackServer } from '../../test/support/outbound.js';
import { confirmAddress } from '../../test/support/alerting.js';

type Channel = { id: number; workspaceId: number; name: string; type: string; enabled: boolean; config: Record<string, string>; secret?: string };
type TestResult = { channelId: number; type: string; ok: boolean; statusCode: number | null; failureReason: string | null; message: string };

let t: TestContext;
let team: Team;
beforeAll(async () => {
  t = await createTestContext();
  team = await createTeam(t, 'ch');
});
beforeEach(() => t.clock.advanceSeconds(61));

const create = (token: string, body: unknown) => t.request<Channel>('POST', '/alert-channels', { token, body });

describe('alert channel CRUD', () => {
  it('creates one channel of each type; the webhook secret is shown once', async () => {
    const { owner, workspaceId } = team;
    const email = await create(owner.token, { workspaceId, name: 'On-call mail', type: 'EMAIL', config: { email: 'oncall@example.com' } });
    expect(email.status).toBe(201);
    expect(email.body).toMatchObject({ workspaceId, name: 'On-call mail', type: 'EMAIL', enabled: true, config: { email: 'oncall@example.com' } });
    expect(email.body.secret).toBeUndefined();
    const slack = await create(owner.token, { workspaceId, name: 'Slack', type: 'SLACK', config: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/abc' }, enabled: false });
    expect(slack.status).toBe(201);
    expect(slack.body).toMatchObject({ type: 'SLACK', enabled: false, config: { webhookUrl: 'https://hooks.slack.com/services/T0/B0/abc' } });
    const hook = await create(owner.token, { workspaceId, name: 'Hook', type: 'WEBHOOK', config: { url: 'https://example.com/hooks/vigil' } });
    expect(hook.status).toBe(201);
    const secret = hook.body.secret ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(hook.body.config).toEqual({ url: 'https://example.com/hooks/vigil', secretHint: `whsec_...${secret.slice(-4)}` });

    const got = await t.request<Channel>('GET', `/alert-channels/${hook.body.id}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(secret);
    const list = await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${workspaceId}`, { token: team.viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.map((c) => c.id)).toEqual(expect.arrayContaining([email.body.id, slack.body.id, hook.body.id]));
    expect(list.text).not.toContain(secret);
  });

  it('updates name, enabled and config within the channel type, and deletes', async () => {
    const { admin, workspaceId } = team;
    const hook = await create(admin.token, { workspaceId, name: 'To change', type: 'WEBHOOK', config: { url: 'https://example.com/a' } });
    const path = `/alert-channels/${hook.body.id}`;
    const updated = await t.request<Channel>('PATCH', path, { token: admin.token, body: { name: 'Changed', enabled: false, config: { url: 'https://example.org/b' } } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Changed', enabled: false, config: { url: 'https://example.org/b', secretHint: hook.body.config.secretHint } });
    expect((await t.request('DELETE', path, { token: admin.token })).status).toBe(204);
    expectError(await t.request('GET', path, { token: admin.token }), 404);
    expectError(await t.request('DELETE', path, { token: admin.token }), 404);
  });

  it('refuses bad bodies with 400 and field details, creating or changing nothing', async () => {
    const { owner, workspaceId } = team;
    const slack = (await create(owner.token, { workspaceId, name: 'S', type: 'SLACK', config: { webhookUrl: 'https://hooks.slack.com/s' } })).body;
    const before = await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${workspaceId}`, { token: owner.token });
    const bad: unknown[] = [
      { workspaceId, name: 'x', type: 'PAGER', config: {} },
      { workspaceId, name: 'x', config: { email: 'a@example.com' } },
      { workspaceId, name: '', type: 'EMAIL', config: { email: 'a@example.com' } },
      { workspaceId, name: 'x', type: 'EMAIL', config: { email: 'not-an-email' } },
      { workspaceId, name: 'x', type: 'EMAIL', config: { webhookUrl: 'https://hooks.slack.com/x' } },
      { workspaceId, name: 'x', type: 'SLACK', config: { webhookUrl: 'http://hooks.slack.com/x' } },
      { workspaceId, name: 'x', type: 'WEBHOOK', config: { url: 'ftp://example.com/x' } },
      { workspaceId, name: 'x', type: 'WEBHOOK', config: { url: `https://example.com/${'a'.repeat(2048)}` } },
      { workspaceId, name: 'x', type: 'WEBHOOK', config: { url: 'http://localhost:8080/x' } },
      { workspaceId, name: 'x', type: 'WEBHOOK', config: { url: 'http://169.254.169.254/latest' } },
      { workspaceId, name: 'x', type: 'WEBHOOK', config: { url: 'http://2130706433/' } },
      { workspaceId, name: 'x', type: 'WEBHOOK', config: { url: 'https://example.com/x' }, secret: 'whsec_mine' },
    ];
    for (const body of bad) {
      const err = expectError(await create(owner.token, body), 400) as { details?: { path: string }[] };
      expect(err.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
    }
    const path = `/alert-channels/${slack.id}`;
    const original = await t.request<Channel>('GET', path, { token: owner.token });
    for (const body of [{ type: 'EMAIL' }, { config: { email: 'a@example.com' } }, { config: { webhookUrl: 'http://insecure.example.com' } }, { name: '' }, { enabled: 'no' }]) {
      expectError(await t.request('PATCH', path, { token: owner.token, body }), 400);
    }
    expectError(await t.request('PATCH', '/alert-channels/0', { token: owner.token, body: { name: 'x' } }), 400);
    expect((await t.request<Channel>('GET', path, { token: owner.token })).body).toEqual(original.body);
    const after = await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${workspaceId}`, { token: owner.token });
    expect(after.body).toEqual(before.body);
  });

  it('lets VIEWER read, and only ADMIN or higher manage and test', async () => {
    const { workspaceId, admin, member, viewer } = team;
    const ch = await create(admin.token, { workspaceId, name: 'Roles', type: 'EMAIL', config: { email: 'roles@example.com' } });
    const path = `/alert-channels/${ch.body.id}`;
    expect((await t.request('GET', path, { token: viewer.token })).status).toBe(200);
    expect((await t.request('GET', path, { token: member.token })).status).toBe(200);
    for (const who of [member, viewer]) {
      expectError(await create(who.token, { workspaceId, name: 'No', type: 'EMAIL', config: { email: 'no@example.com' } }), 403);
      expectError(await t.request('PATCH', path, { token: who.token, body: { name: 'No' } }), 403);
      expectError(await t.request('DELETE', path, { token: who.token }), 403);
      expectError(await t.request('POST', `${path}/test`, { token: who.token }), 403);
    }
    expect((await t.request<Channel>('GET', path, { token: admin.token })).body.name).toBe('Roles');
  });

  it('answers 404 for channels of another workspace, and for a foreign workspaceId', async () => {
    const { owner, outsider, workspaceId } = team;
    const ch = await create(owner.token, { workspaceId, name: 'Private', type: 'EMAIL', config: { email: 'p@example.com' } });
    const path = `/alert-channels/${ch.body.id}`;
    expectError(await t.request('GET', path, { token: outsider.token }), 404);
    expectError(await t.request('PATCH', path, { token: outsider.token, body: { name: 'Mine now' } }), 404);
    expectError(await t.request('DELETE', path, { token: outsider.token }), 404);
    expectError(await t.request('POST', `${path}/test`, { token: outsider.token }), 404);
    expectError(await t.request('GET', `/alert-channels?workspaceId=${workspaceId}`, { token: outsider.token }), 404);
    expectError(await create(outsider.token, { workspaceId, name: 'Sneaky', type: 'EMAIL', config: { email: 's@example.com' } }), 404);
    expect((await t.request<Channel>('GET', path, { token: owner.token })).body.name).toBe('Private');
    const key = await t.apiKey(owner);
    expectError(await t.request('GET', path, { token: key }), 401);
  });
});

describe('alert channel test send', () => {
  it('sends an EMAIL test through the mailer', async () => {
    const { admin, workspaceId } = team;
    const ch = await create(admin.token, { workspaceId, name: 'Mail test', type: 'EMAIL', config: { email: 'mailtest@example.com' } });
    await confirmAddress(t, 'mailtest@example.com');
    const res = await t.request<TestResult>('POST', `/alert-channels/${ch.body.id}/test`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ channelId: ch.body.id, type: 'EMAIL', ok: true, failureReason: null });
    const mail = t.deps.mailer.outbox.filter((m) => m.to === 'mailtest@example.com');
    expect(mail).toHaveLength(1);
    expect(mail[0]?.text).toContain('Mail test');
  });
});

describe('webhook test send to a loopback receiver (VIGIL_PROBE_ALLOW_PRIVATE)', () => {
  let local: TestContext;
  let receiver: LoopbackServer;
  let status = 200;
  beforeAll(async () => {
    local = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
    receiver = await startLoopbackServer((_req, res) => {
      res.statusCode = status;
      res.end('ok');
    });
  });
  afterAll(() => receiver.close());

  it('delivers a Standard Webhooks signed POST that verifies with the secret shown at creation', async () => {
    const owner = await local.signup('hook-owner');
    const ch = await local.request<Channel>('POST', '/alert-channels', {
      token: owner.token,
      body: { name: 'Local hook', type: 'WEBHOOK', config: { url: `${receiver.origin}/hook?x=1` } },
    });
    expect(ch.status).toBe(201);
    const res = await local.request<TestResult>('POST', `/alert-channels/${ch.body.id}/test`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, statusCode: 200, failureReason: null });
    const delivered = receiver.requests.at(-1);
    expect(delivered?.method).toBe('POST');
    expect(delivered?.url).toBe('/hook?x=1');
    const id = String(delivered?.headers['webhook-id']);
    const timestamp = String(delivered?.headers['webhook-timestamp']);
    expect(id).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(Number(timestamp)).toBe(Math.floor(local.clock.now().getTime() / 1000));
    const key = Buffer.from((ch.body.secret ?? '').slice('whsec_'.length), 'base64');
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${delivered?.body}`).digest('base64')}`;
    expect(delivered?.headers['webhook-signature']).toBe(expected);
    expect(JSON.parse(delivered?.body ?? '{}')).toMatchObject({ type: 'alert_channel.test', data: { channelId: ch.body.id } });
  });

  it('reports a non-2xx answer as a failed test, still 200', async () => {
    const owner = await local.signup('hook-fail');
    const ch = await local.request<Channel>('POST', '/alert-channels', {
      token: owner.token,
      body: { name: 'Failing hook', type: 'WEBHOOK', config: { url: `${receiver.origin}/down` } },
    });
    status = 503;
    const res = await local.request<TestResult>('POST', `/alert-channels/${ch.body.id}/test`, { token: owner.token });
    status = 200;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: false, statusCode: 503, failureReason: 'UNEXPECTED_STATUS' });
  });
});
