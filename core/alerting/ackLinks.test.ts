import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeJwt, SignJWT } from 'jose';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { confirmAddress, declare, mailTo, timeline, type User } from '../../test/support/alerting.js';
import { fakeResolver, startLoopbackTlsServer, toLoopback, type LoopbackServer } from '../../test/support/outbound.js';
import { TEST_CERT_PEM, TEST_KEY_PEM } from '../../test/support/tlsFixture.js';
import { createCheck, deliver, incidentsOf, statusChanged } from '../../test/support/incidents.js';
import { signingSecret } from '../auth/tokens.js';
import { handleAlertMessages } from '../escalation/dispatch.js';
import { createNodeConnect, type GuardedRequestDeps } from '../outbound/index.js';
import { ACK_LINK_RULE } from './ackLinkRoutes.js';
import { alertActions, verifyAckLink } from './ackLinks.js';

/**
 * Acknowledge and resolve from the alert itself, over HTTP: the links come out of delivered
 * messages (the local mailer's outbox, and Slack and webhook requests at a loopback TLS receiver
 * reached through the injected resolver and connector), and act through the public routes.
 */
let t: TestContext;
let server: LoopbackServer;
let outbound: GuardedRequestDeps;
beforeAll(async () => {
  t = await createTestContext();
  server = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, (_req, res) => res.end('ok'));
  outbound = { resolve: fakeResolver({ 'vigil-tls.test': ['93.184.216.34'] }).resolve, connect: toLoopback(server.port, createNodeConnect({ ca: TEST_CERT_PEM })) };
  t.deps.queue.consume('alerts', (messages) => handleAlertMessages(t.deps, messages, { outbound }));
});
afterAll(() => server.close());

type Incident = { id: number; state: string; acknowledgedAt?: string | null; resolvedAt?: string | null };
type Done = { message: string; incidentId: number; action: string; changed: boolean };
type Actions = { acknowledgeUrl?: string; resolveUrl?: string };

let n = 0;
/** A workspace with an e-mail, a Slack and a webhook channel, and an incident declared after them (so all three hear of it). */
async function setup(title = 'Checkout is failing') {
  n++;
  const user: User = await t.signup(`ack${n}`);
  const key = await t.apiKey(user);
  const email = `ack-${n}-${Date.now()}@example.com`;
  const create = async (name: string, type: string, config: Record<string, string>) => {
    const res = await t.request<{ id: number }>('POST', '/alert-channels', { token: user.token, body: { workspaceId: user.workspaceId, name, type, config } });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  };
  const mailId = await create('ops mail', 'EMAIL', { email });
  await confirmAddress(t, email);
  const slackId = await create('ops slack', 'SLACK', { webhookUrl: `https://vigil-tls.test/slack-${n}` });
  const hookId = await create('ops hook', 'WEBHOOK', { url: `https://vigil-tls.test/hook-${n}` });
  const incident = await declare(t, key, { title });
  return { user, key, email, mailId, slackId, hookId, incident, slackPath: `/slack-${n}`, hookPath: `/hook-${n}` };
}
type Setup = Awaited<ReturnType<typeof setup>>;

const hooks = (s: Setup) => server.requests.filter((r) => r.url === s.hookPath).map((r) => JSON.parse(r.body) as { type: string; data: { actions?: Actions } });
const slacks = (s: Setup) => server.requests.filter((r) => r.url === s.slackPath).map((r) => (JSON.parse(r.body) as { text: string }).text);
const mails = (s: Setup) => mailTo(t, s.email);
const getIncident = async (s: Setup) => (await t.request<Incident>('GET', `/incidents/${s.incident.id}`, { token: s.user.token })).body;
const linkIn = (text: string, label: 'Acknowledge' | 'Resolve'): string => {
  const url = new RegExp(`${label}: (\\S+)`).exec(text)?.[1];
  if (!url) throw new Error(`no ${label} link in: ${text}`);
  return url;
};
const slackLink = (text: string, label: 'Acknowledge' | 'Resolve'): string => {
  const url = new RegExp(`<(\\S+?)\\|${label}>`).exec(text)?.[1];
  if (!url) throw new Error(`no ${label} link in: ${text}`);
  return url.replace(/&amp;/g, '&');
};

describe('acknowledge and resolve from the message', () => {
  it('every channel gets both links on the opening alert; GET changes nothing, POST acknowledges once, the timeline names the recipient', async () => {
    const s = await setup();
    const [mail] = mails(s);
    expect(mail?.html).toContain('>Acknowledge</a>');
    const mailAck = linkIn(mail?.text ?? '', 'Acknowledge');
    expect(mail?.html).toContain(`href="${mailAck}"`);
    const [hook] = hooks(s);
    expect(hook?.type).toBe('incident.opened');
    expect(hook?.data.actions?.acknowledgeUrl).toMatch(/^http:\/\/localhost:3000\/api\/ack\/[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(hook?.data.actions?.resolveUrl).toMatch(/\/api\/ack\//);
    const [slack] = slacks(s);
    expect(slackLink(slack ?? '', 'Resolve')).toMatch(/\/api\/ack\//);

    // A mail scanner follows the link: a page, nothing acknowledged, nothing on the timeline.
    const page = await t.request('GET', mailAck);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'|script-src/);
    expect(page.text).toContain('<form');
    expect(page.text).toContain('Checkout is failing');
    expect((await getIncident(s)).acknowledgedAt ?? null).toBeNull();
    const before = (await timeline(t, s.user, s.incident.id)).length;

    const first = await t.request<Done>('POST', mailAck);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ incidentId: s.incident.id, action: 'acknowledge', changed: true });
    const acknowledged = await getIncident(s);
    expect(acknowledged.state).not.toBe('RESOLVED');
    expect(acknowledged.acknowledgedAt).toBe(t.clock.now().toISOString());
    const events = await timeline(t, s.user, s.incident.id);
    expect(events.filter((e) => e.type === 'ACKNOWLEDGED').map((e) => e.message)).toEqual([`Acknowledged via link by EMAIL channel "ops mail" (#${s.mailId})`]);

    // Once: the same link again, or another recipient's, says so and changes nothing.
    await t.deps.queue.drain();
    const settled = (await timeline(t, s.user, s.incident.id)).length;
    t.clock.advanceSeconds(30);
    const again = await t.request<Done>('POST', mailAck);
    expect(again.body).toMatchObject({ changed: false });
    expect(again.body.message).toMatch(/already acknowledged/);
    expect((await t.request<Done>('POST', hook?.data.actions?.acknowledgeUrl ?? '')).body.changed).toBe(false);
    await t.deps.queue.drain();
    expect(await timeline(t, s.user, s.incident.id)).toHaveLength(settled);
    expect((await getIncident(s)).acknowledgedAt).toBe(acknowledged.acknowledgedAt);
    expect(settled).toBeGreaterThan(before);
    // The page of an acknowledged incident's acknowledge link offers no button.
    const after = await t.request('GET', mailAck);
    expect(after.status).toBe(200);
    expect(after.text).toContain('Already acknowledged');
    expect(after.text).not.toContain('<form');
  });

  it('the acknowledged alert carries only a resolve link; it resolves through the one write path, and then every link is void (409)', async () => {
    const s = await setup();
    const opened = hooks(s)[0]?.data.actions ?? {};
    expect((await t.request<Done>('POST', opened.acknowledgeUrl ?? '')).body.changed).toBe(true);
    await t.deps.queue.drain();
    const ackAlert = hooks(s).find((h) => h.type === 'incident.acknowledged');
    expect(ackAlert?.data.actions).toEqual({ resolveUrl: expect.stringMatching(/\/api\/ack\//) });
    const ackMail = mails(s).find((m) => m.subject.includes('acknowledged'));
    expect(ackMail?.text).not.toMatch(/Acknowledge: /);
    const slackResolve = slackLink(slacks(s).at(-1) ?? '', 'Resolve');
    expect(slacks(s).at(-1)).not.toContain('|Acknowledge>');

    // As the page's form posts it: a form body (empty), HTML wanted back.
    const form = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };
    const resolved = await t.request<Done>('POST', slackResolve, { headers: form, rawBody: '' });
    expect(resolved.status).toBe(200);
    expect(resolved.text).toContain('Resolved');
    expect((await getIncident(s)).state).toBe('RESOLVED');
    const events = await timeline(t, s.user, s.incident.id);
    expect(events.find((e) => e.type === 'RESOLVED')?.message).toBe(`Resolved via link by SLACK channel "ops slack" (#${s.slackId})`);
    await t.deps.queue.drain();
    const resolvedAlert = hooks(s).find((h) => h.type === 'incident.resolved');
    expect(resolvedAlert).toBeDefined();
    expect(resolvedAlert?.data.actions).toBeUndefined();

    const settled = (await timeline(t, s.user, s.incident.id)).length;
    for (const url of [opened.acknowledgeUrl ?? '', opened.resolveUrl ?? '', slackResolve]) {
      expect(expectError(await t.request('GET', url), 409, 'INCIDENT_RESOLVED').message).toMatch(/no longer acts/);
      expectError(await t.request('POST', url), 409, 'INCIDENT_RESOLVED');
    }
    expect(await timeline(t, s.user, s.incident.id)).toHaveLength(settled);
  });

  it('an incident resolved in the dashboard voids its links', async () => {
    const s = await setup();
    const { acknowledgeUrl } = hooks(s)[0]?.data.actions ?? {};
    expect((await t.request('POST', `/incidents/${s.incident.id}/resolve`, { token: s.user.token })).status).toBe(200);
    expectError(await t.request('POST', acknowledgeUrl ?? ''), 409, 'INCIDENT_RESOLVED');
    expect((await getIncident(s)).acknowledgedAt ?? null).toBeNull();
  });

  it('an expired link is 401 TOKEN_EXPIRED on GET and POST and changes nothing', async () => {
    const s = await setup();
    const { acknowledgeUrl } = hooks(s)[0]?.data.actions ?? {};
    // Still good a second before the day is out (the clock is injected).
    t.clock.advanceSeconds(t.config.ackLinkTtlSeconds - 1);
    expect((await t.request('GET', acknowledgeUrl ?? '')).status).toBe(200);
    t.clock.advanceSeconds(2);
    expect(expectError(await t.request('GET', acknowledgeUrl ?? ''), 401, 'TOKEN_EXPIRED').message).toMatch(/expired/);
    expectError(await t.request('POST', acknowledgeUrl ?? ''), 401, 'TOKEN_EXPIRED');
    expect((await getIncident(s)).acknowledgedAt ?? null).toBeNull();
  });

  it('tampered, unsigned, foreign-audience and malformed links are refused (4xx) and change nothing', async () => {
    const s = await setup();
    const { acknowledgeUrl = '' } = hooks(s)[0]?.data.actions ?? {};
    const [base, token = ''] = acknowledgeUrl.split('/api/ack/');
    const [header, payload = '', signature = ''] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = (changes: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...claims, ...changes })).toString('base64url');
    // Another incident's id, the other action, another recipient under the original signature.
    const other = await declare(t, s.key, { title: 'another' });
    const swapped = [forged({ sub: String(other.id) }), forged({ act: 'res' }), forged({ rcp: 'p:evil@example.com' })].map((p) => `${header}.${p}.${signature}`);
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.x`;
    // A token signed with the right secret for another purpose (the dashboard's audience).
    const session = await new SignJWT({ act: 'ack', rcp: 'c:1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(s.incident.id))
      .setIssuer('vigil')
      .setAudience('vigil-dashboard')
      .setExpirationTime('1h')
      .sign(await signingSecret(t.deps.store, t.clock.now()));
    for (const bad of [...swapped, flipped, unsigned, session]) {
      for (const method of ['GET', 'POST']) expectError(await t.request(method, `${base}/api/ack/${bad}`, { headers: { 'x-test-ip': '203.0.113.7' } }), 401, 'UNAUTHORIZED');
    }
    for (const bad of ['not-a-link', 'a.b', `${token}.extra`]) expectError(await t.request('POST', `/ack/${bad}`, { headers: { 'x-test-ip': '203.0.113.8' } }), 400);
    expect((await getIncident(s)).acknowledgedAt ?? null).toBeNull();
    expect((await timeline(t, s.user, other.id)).filter((e) => e.type === 'ACKNOWLEDGED' || e.type === 'RESOLVED')).toEqual([]);
  });

  it('any token, made up or signed with odd claims, is a 4xx in the error shape, never a 5xx', async () => {
    const secret = await signingSecret(t.deps.store, t.clock.now());
    const segment = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), minLength: 1, maxLength: 60 });
    const odd = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.integer()), fc.dictionary(fc.string(), fc.string()));
    let ip = 0;
    const answer = async (token: string) => {
      ip++;
      const res = await t.request('POST', `/ack/${token}`, { headers: { 'x-test-ip': `198.51.100.${(ip % 250) + 1}` } });
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(res.status, res.text).toBeLessThan(500);
      expectError(res, res.status);
    };
    await fc.assert(
      fc.asyncProperty(fc.tuple(segment, segment, segment), async (parts) => answer(parts.join('.'))),
      { numRuns: 40 },
    );
    await fc.assert(
      fc.asyncProperty(odd, odd, odd, async (sub, act, rcp) => {
        // Signed with the right secret and audience: only the claims are wrong.
        const token = await new SignJWT({ act, rcp, ...({ sub } as Record<string, unknown>) })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer('vigil')
          .setAudience('vigil-incident-link')
          .setExpirationTime(Math.floor(t.clock.now().getTime() / 1000) + 60)
          .sign(secret);
        await answer(token);
      }),
      { numRuns: 40 },
    );
  });

  it('is rate-limited per client address: past the budget 429 with Retry-After, before any lookup', async () => {
    const s = await setup();
    const { acknowledgeUrl = '' } = hooks(s)[0]?.data.actions ?? {};
    const ip = { 'x-test-ip': '203.0.113.99' };
    for (let i = 0; i < ACK_LINK_RULE.limit; i++) expect((await t.request('GET', acknowledgeUrl, { headers: ip })).status).toBe(200);
    const refused = await t.request('POST', acknowledgeUrl, { headers: ip });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await getIncident(s)).acknowledgedAt ?? null).toBeNull();
    // Another address has its own budget.
    expect((await t.request('GET', acknowledgeUrl, { headers: { 'x-test-ip': '203.0.113.100' } })).status).toBe(200);
  });

  it('hostile incident titles are escaped on the page', async () => {
    const hostile = `</p><script>alert(1)</script><img src=x onerror=alert(2)>"'&`;
    const s = await setup(hostile);
    const { acknowledgeUrl = '' } = hooks(s)[0]?.data.actions ?? {};
    const page = await t.request('GET', acknowledgeUrl);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    // And in the HTML mail.
    const html = mails(s)[0]?.html ?? '';
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it("a check's incident resolved by link holds its episode, as a resolution by hand does: the same outage opens nothing more", async () => {
    const user: User = await t.signup('ack-episode');
    const check = await createCheck(t, user, { lateSeverity: 'P3', downSeverity: 'P1' });
    const at = (seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000);
    await deliver(t, statusChanged(check, 'OK', 'LATE', at(-60)));
    const [incident] = (await incidentsOf(t, user, `&checkId=${check.id}`)).items;
    if (!incident) throw new Error('no incident opened');
    const actions = await alertActions(
      t.deps,
      { incidentId: incident.id, state: 'ACTIVE', acknowledgedAt: undefined },
      'incident.opened',
      { channelId: 0, email: user.email },
      t.clock.now(),
    );
    expect((await t.request<Done>('POST', actions?.resolveUrl ?? '')).body.changed).toBe(true);
    await t.deps.queue.drain();
    // The outage goes on: its DOWN opens no second incident until the check recovers.
    await deliver(t, statusChanged(check, 'LATE', 'DOWN', at(30)));
    expect((await incidentsOf(t, user, `&checkId=${check.id}`)).items.map((i) => i.state)).toEqual(['RESOLVED']);
  });

  it('a person paged by a step is named by address in the link, and the timeline says so', async () => {
    const s = await setup();
    const actions = await alertActions(
      t.deps,
      { incidentId: s.incident.id, state: 'ACTIVE', acknowledgedAt: undefined },
      'incident.escalated',
      { channelId: 0, email: 'oncall@example.com' },
      t.clock.now(),
    );
    const token = (actions?.acknowledgeUrl ?? '').split('/api/ack/')[1] ?? '';
    expect(await verifyAckLink(t.deps, token, t.clock.now())).toEqual({
      incidentId: s.incident.id,
      action: 'acknowledge',
      recipient: { kind: 'person', email: 'oncall@example.com' },
    });
    expect((await t.request<Done>('POST', actions?.acknowledgeUrl ?? '')).body.changed).toBe(true);
    const events = await timeline(t, s.user, s.incident.id);
    expect(events.find((e) => e.type === 'ACKNOWLEDGED')?.message).toBe('Acknowledged via link by oncall@example.com');
  });

  it('an alert within a minute of another to the same recipient about the same incident carries its links; later ones are signed anew', async () => {
    const s = await setup();
    const incident = { incidentId: s.incident.id, state: 'ACTIVE' as const, acknowledgedAt: undefined };
    const start = t.clock.now().getTime();
    const links = (afterMs: number, email = 'reuse@example.com') =>
      alertActions(t.deps, incident, afterMs === 0 ? 'incident.opened' : 'incident.severity_changed', { channelId: 0, email }, new Date(start + afterMs));
    const opening = await links(0);
    expect(opening).toEqual({ acknowledgeUrl: expect.any(String), resolveUrl: expect.any(String) });
    // The raise of a late job gone down, a grace period after its opening: the same two links.
    expect(await links(59_999)).toEqual(opening);
    // Another recipient, or a minute on: new links, each naming its own recipient and expiring a TTL after it.
    const other = await links(1_000, 'other@example.com');
    const later = await links(60_000);
    for (const fresh of [other, later]) {
      expect(fresh?.acknowledgeUrl).not.toBe(opening?.acknowledgeUrl);
      expect(fresh?.resolveUrl).not.toBe(opening?.resolveUrl);
    }
    const tokenOf = (url: string | undefined) => (url ?? '').split('/api/ack/')[1] ?? '';
    expect(await verifyAckLink(t.deps, tokenOf(other?.resolveUrl), new Date(start))).toEqual({
      incidentId: s.incident.id,
      action: 'resolve',
      recipient: { kind: 'person', email: 'other@example.com' },
    });
    expect(decodeJwt(tokenOf(later?.acknowledgeUrl)).exp).toBe((decodeJwt(tokenOf(opening?.acknowledgeUrl)).exp ?? 0) + 60);
  });
});
