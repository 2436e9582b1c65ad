import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { alertsSent, declare, timeline } from '../../../test/support/alerting.js';
import { createTeam, type Team } from '../../../test/support/identity.js';
import { PAGERDUTY_CONFIG, PUSHOVER_CONFIG } from '../../../test/support/providers.js';
import { smsUnits } from './sms.js';

/** The API side of PUSHOVER, PAGERDUTY and SMS channels: what is accepted, who sees the secrets, whose channel it is. */
type Channel = { id: number; type: string; config: Record<string, string | null>; name: string; updatedAt: string };

let t: TestContext;
let team: Team;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' });
  team = await createTeam(t, 'providers');
});
beforeEach(() => t.clock.advanceSeconds(61));

const PHONE = '+447700900123';
const create = (body: Record<string, unknown>, token = team.admin.token) =>
  t.request<Channel>('POST', '/alert-channels', { token, body: { workspaceId: team.workspaceId, name: 'on call', ...body } });
const list = async () => (await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: team.owner.token })).body;

describe('creating PUSHOVER, PAGERDUTY and SMS channels', () => {
  it.each([
    ['PUSHOVER', { userKey: PUSHOVER_CONFIG.userKey }, 'config.appToken'],
    ['PUSHOVER', { ...PUSHOVER_CONFIG, userKey: 'short' }, 'config.userKey'],
    ['PUSHOVER', { ...PUSHOVER_CONFIG, appToken: `${'a'.repeat(29)}!` }, 'config.appToken'],
    ['PUSHOVER', { ...PUSHOVER_CONFIG, apiBaseUrl: 'http://api.pushover.example' }, 'config.apiBaseUrl'],
    ['PUSHOVER', { ...PUSHOVER_CONFIG, apiBaseUrl: 'https://api.pushover.example/?user=x' }, 'config.apiBaseUrl'],
    ['PUSHOVER', { ...PUSHOVER_CONFIG, sound: 'siren' }, 'config'],
    ['PAGERDUTY', { routingKey: 'R0123' }, 'config.routingKey'],
    ['PAGERDUTY', { ...PAGERDUTY_CONFIG, apiBaseUrl: 'https://10.1.2.3' }, 'config.apiBaseUrl'],
    ['PAGERDUTY', { ...PAGERDUTY_CONFIG, apiBaseUrl: 'https://[::1]:8443' }, 'config.apiBaseUrl'],
    ['PAGERDUTY', { url: 'https://events.pagerduty.com' }, 'config'],
    ['SMS', { phoneNumber: '07700 900123' }, 'config.phoneNumber'],
    ['SMS', { phoneNumber: '+0447700900123' }, 'config.phoneNumber'],
    ['SMS', { phoneNumber: '+4477009001234567' }, 'config.phoneNumber'],
    ['SMS', { phoneNumber: '+44' }, 'config.phoneNumber'],
    ['SMS', { email: 'a@example.com' }, 'config'],
  ])('refuses %s config %j with a 400 naming %s, and makes nothing', async (type, config, path) => {
    const before = await list();
    const res = await create({ type, config });
    const error = expectError(res, 400);
    expect(JSON.stringify(error)).toContain(path);
    expect(await list()).toEqual(before);
  });

  it('accepts each with its config (apiBaseUrl optional), and lists them', async () => {
    const pushover = await create({ type: 'PUSHOVER', config: { userKey: PUSHOVER_CONFIG.userKey, appToken: PUSHOVER_CONFIG.appToken } });
    expect(pushover.status, pushover.text).toBe(201);
    expect(pushover.body.config).toEqual({ userKey: PUSHOVER_CONFIG.userKey, appToken: PUSHOVER_CONFIG.appToken, apiBaseUrl: 'https://api.pushover.net' });
    const pagerDuty = await create({ type: 'PAGERDUTY', config: PAGERDUTY_CONFIG });
    expect(pagerDuty.body.config).toEqual(PAGERDUTY_CONFIG);
    const sms = await create({ type: 'SMS', config: { phoneNumber: PHONE } });
    expect(sms.body.config).toEqual({ phoneNumber: PHONE });
    expect((await list()).map((c) => c.id)).toEqual(expect.arrayContaining([pushover.body.id, pagerDuty.body.id, sms.body.id]));
  });
});

describe('their secrets below ADMIN', () => {
  it('show as the last four characters to MEMBERs and VIEWERs, whole to ADMINs and OWNERs', async () => {
    const ids = [
      (await create({ type: 'PUSHOVER', config: PUSHOVER_CONFIG })).body.id,
      (await create({ type: 'PAGERDUTY', config: PAGERDUTY_CONFIG })).body.id,
      (await create({ type: 'SMS', config: { phoneNumber: PHONE } })).body.id,
    ];
    const secrets = [PUSHOVER_CONFIG.userKey, PUSHOVER_CONFIG.appToken, PAGERDUTY_CONFIG.routingKey, PHONE];
    for (const user of [team.viewer, team.member]) {
      const listed = await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: user.token });
      expect(listed.status).toBe(200);
      for (const secret of secrets) expect(listed.text).not.toContain(secret.slice(0, 12));
      const [pushover, pagerDuty, sms] = await Promise.all(ids.map(async (id) => (await t.request<Channel>('GET', `/alert-channels/${id}`, { token: user.token })).body));
      expect(pushover?.config).toEqual({
        userKey: `…${PUSHOVER_CONFIG.userKey.slice(-4)}`,
        appToken: `…${PUSHOVER_CONFIG.appToken.slice(-4)}`,
        apiBaseUrl: PUSHOVER_CONFIG.apiBaseUrl,
      });
      expect(pagerDuty?.config).toEqual({ routingKey: `…${PAGERDUTY_CONFIG.routingKey.slice(-4)}`, apiBaseUrl: PAGERDUTY_CONFIG.apiBaseUrl });
      expect(sms?.config).toEqual({ phoneNumber: '+…0123' });
    }
    for (const user of [team.admin, team.owner]) {
      const one = await t.request<Channel>('GET', `/alert-channels/${ids[1]}`, { token: user.token });
      expect(one.body.config.routingKey).toBe(PAGERDUTY_CONFIG.routingKey);
    }
  });
});

describe('PATCH', () => {
  it("refuses a config that does not fit the channel's type, or is bad for it, and changes nothing", async () => {
    const id = (await create({ type: 'PAGERDUTY', config: PAGERDUTY_CONFIG })).body.id;
    const before = (await t.request<Channel>('GET', `/alert-channels/${id}`, { token: team.admin.token })).body;
    for (const config of [{ phoneNumber: PHONE }, PUSHOVER_CONFIG, { routingKey: 'nope' }, { ...PAGERDUTY_CONFIG, apiBaseUrl: 'https://127.0.0.1' }]) {
      expectError(await t.request('PATCH', `/alert-channels/${id}`, { token: team.admin.token, body: { name: 'renamed', config } }), 400);
    }
    expect((await t.request<Channel>('GET', `/alert-channels/${id}`, { token: team.admin.token })).body).toEqual(before);
  });

  it('replaces the whole config: a base URL left out returns to the provider default', async () => {
    const id = (await create({ type: 'PUSHOVER', config: PUSHOVER_CONFIG })).body.id;
    const appToken = 'b'.repeat(30);
    const res = await t.request<Channel>('PATCH', `/alert-channels/${id}`, { token: team.admin.token, body: { config: { userKey: PUSHOVER_CONFIG.userKey, appToken } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.config).toEqual({ userKey: PUSHOVER_CONFIG.userKey, appToken, apiBaseUrl: 'https://api.pushover.net' });
    expect((await t.request<Channel>('GET', `/alert-channels/${id}`, { token: team.admin.token })).body.config.apiBaseUrl).toBe('https://api.pushover.net');
    const renamed = await t.request<Channel>('PATCH', `/alert-channels/${id}`, { token: team.admin.token, body: { name: 'still default' } });
    expect(renamed.body.config).toEqual(res.body.config);
  });

  it('is for ADMINs: a MEMBER gets 403 and nothing changes', async () => {
    const id = (await create({ type: 'SMS', config: { phoneNumber: PHONE } })).body.id;
    expectError(await t.request('PATCH', `/alert-channels/${id}`, { token: team.member.token, body: { config: { phoneNumber: '+15005550006' } } }), 403);
    expect((await t.request<Channel>('GET', `/alert-channels/${id}`, { token: team.admin.token })).body.config.phoneNumber).toBe(PHONE);
  });
});

describe('another workspace', () => {
  it('gets 404 for each type on read, change, test and delete', async () => {
    const ids = [
      (await create({ type: 'PUSHOVER', config: PUSHOVER_CONFIG })).body.id,
      (await create({ type: 'PAGERDUTY', config: PAGERDUTY_CONFIG })).body.id,
      (await create({ type: 'SMS', config: { phoneNumber: PHONE } })).body.id,
    ];
    const token = team.outsider.token;
    for (const id of ids) {
      expectError(await t.request('GET', `/alert-channels/${id}`, { token }), 404);
      expectError(await t.request('PATCH', `/alert-channels/${id}`, { token, body: { name: 'mine' } }), 404);
      expectError(await t.request('POST', `/alert-channels/${id}/test`, { token }), 404);
      expectError(await t.request('DELETE', `/alert-channels/${id}`, { token }), 404);
      expect((await t.request('GET', `/alert-channels/${id}`, { token: team.admin.token })).status).toBe(200);
    }
    expect(t.deps.sms.outbox.filter((m) => m.to === PHONE && m.text.includes('test'))).toEqual([]);
  });
});

describe('SMS through the runtime’s SMS port (the embedded runtime logs it, as it does mail)', () => {
  let smsLink = '';
  it('test-sends over HTTP, and texts an incident opening with its words within one segment', async () => {
    const user = await t.signup('sms');
    const phone = '+15005550123';
    const created = await t.request<Channel>('POST', '/alert-channels', { token: user.token, body: { name: 'phone', type: 'SMS', config: { phoneNumber: phone } } });
    expect(created.status, created.text).toBe(201);
    const tested = await t.request<{ ok: boolean; type: string }>('POST', `/alert-channels/${created.body.id}/test`, { token: user.token });
    expect(tested.body).toMatchObject({ ok: true, type: 'SMS' });
    expect(t.deps.sms.outbox.filter((m) => m.to === phone).map((m) => m.text)).toEqual(['Vigil: Vigil test alert']);
    const incident = await declare(t, await t.apiKey(user), { title: 'Checkout is failing', severity: 'P1' });
    const [test, opened] = t.deps.sms.outbox.filter((m) => m.to === phone).map((m) => m.text);
    expect(test).toBe('Vigil: Vigil test alert');
    // The opening carries a short stored acknowledge link (core/alerting/ackLinks.ts), so the
    // incident's words arrive whole beside it, in one segment.
    const [words = '', link = '', ...rest] = (opened ?? '').split('\n');
    expect(rest).toEqual([]);
    expect(words).toBe('Vigil: [P1] Incident opened: Checkout is failing');
    expect(link).toMatch(/^http:\/\/localhost:3000\/api\/ack\/[\w-]{22}$/);
    expect(smsUnits(opened ?? '')).toMatchObject({ perSegment: 160 });
    expect(smsUnits(opened ?? '').units).toBeLessThanOrEqual(160);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(1);

    // The short link is answered like a signed one: GET only asks, POST acknowledges once.
    const asked = await t.request('GET', link, { headers: { accept: 'text/html' } });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Checkout is failing');
    const seen = async () => (await t.request<{ state: string; acknowledgedAt: string | null }>('GET', `/incidents/${incident.id}`, { token: user.token })).body;
    expect((await seen()).acknowledgedAt).toBeNull();
    expect((await t.request<{ changed: boolean }>('POST', link)).body).toMatchObject({ action: 'acknowledge', changed: true });
    expect((await t.request<{ changed: boolean }>('POST', link)).body).toMatchObject({ changed: false });
    expect((await seen()).acknowledgedAt).not.toBeNull();
    const events = await timeline(t, user, incident.id);
    expect(events.filter((e) => e.type === 'ACKNOWLEDGED').map((e) => e.message)).toEqual([expect.stringContaining('via link by SMS channel "phone"')]);
    // A made-up id of the same shape is refused; the last test here sees the link expire.
    expectError(await t.request('POST', link.replace(/[\w-]{22}$/, 'A'.repeat(22))), 401, 'UNAUTHORIZED');
    smsLink = link;
    // The acknowledgement's own text goes out now, not into the next test's one failing send.
    await t.deps.queue.drain();
  });

  it('retries a failed send through the queue and records it once', async () => {
    const user = await t.signup('sms-retry');
    const phone = '+15005550124';
    expect((await t.request('POST', '/alert-channels', { token: user.token, body: { name: 'phone', type: 'SMS', config: { phoneNumber: phone } } })).status).toBe(201);
    const sms = t.deps.sms;
    const send = sms.send.bind(sms);
    sms.send = async () => {
      sms.send = send;
      throw new Error('Throttling: Rate exceeded');
    };
    const res = await t.request<{ id: number }>('POST', '/v1/incidents', { token: await t.apiKey(user), body: { title: 'Flaky', severity: 'P2' } });
    await t.deps.queue.deliverDue();
    await t.deps.queue.deliverDue();
    expect(t.deps.sms.outbox.filter((m) => m.to === phone)).toHaveLength(0);
    const channels = await t.request<{ lastError: string | null }[]>('GET', `/alert-channels?workspaceId=${user.workspaceId}`, { token: user.token });
    expect(channels.body[0]?.lastError).toBe('SMS_ERROR: The text message could not be sent');
    t.clock.advanceSeconds(60);
    await t.deps.queue.deliverDue();
    expect(t.deps.sms.outbox.filter((m) => m.to === phone)).toHaveLength(1);
    expect(await alertsSent(t, user, res.body.id)).toHaveLength(1);
  });

  // Last in the file: the clock jumps past the links' lifetime.
  it('a short SMS link stops acting once it expires (401 TOKEN_EXPIRED)', async () => {
    expect(smsLink).toMatch(/\/api\/ack\/[\w-]{22}$/);
    t.clock.advanceSeconds(t.deps.config.ackLinkTtlSeconds + 1);
    expectError(await t.request('POST', smsLink), 401, 'TOKEN_EXPIRED');
    expectError(await t.request('GET', smsLink), 401, 'TOKEN_EXPIRED');
  });
});
