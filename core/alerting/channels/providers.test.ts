import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { alertsSent, declare, type User } from '../../../test/support/alerting.js';
import { fakeResolver, spyConnect } from '../../../test/support/outbound.js';
import { PAGERDUTY_CONFIG, PUSHOVER_CONFIG, pagerDutyEvent, pushoverForm, startProviders, type Providers } from '../../../test/support/providers.js';
import { handleAlertMessages } from '../../escalation/dispatch.js';
import { deliverToChannel, testAlertChannel } from '../channelsDelivery.js';
import { dedupKeyOf } from './pagerduty.js';
import { EMERGENCY_EXPIRE_SECONDS, EMERGENCY_RETRY_SECONDS } from './pushover.js';

/**
 * PUSHOVER and PAGERDUTY channels delivered to stand-ins of the providers' APIs on a real
 * loopback TLS socket (test/support/providers.ts), which refuse a request off the documented
 * shape. Incidents go through the API and the runtime's alerts consumer, with the outbound seams injected.
 */
let t: TestContext;
let providers: Providers;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' });
  providers = await startProviders();
  t.deps.queue.consume('alerts', (messages) => handleAlertMessages(t.deps, messages, { outbound: providers.outbound }));
});
afterAll(() => providers.close());
beforeEach(() => t.clock.advanceSeconds(61));

async function channel(user: User, type: 'PUSHOVER' | 'PAGERDUTY', config: Record<string, string>): Promise<number> {
  const res = await t.request<{ id: number }>('POST', '/alert-channels', { token: user.token, body: { workspaceId: user.workspaceId, name: `${type} on call`, type, config } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}
const actorOf = (user: User) => ({ kind: 'user' as const, userId: user.userId, email: user.email });
const incidentAction = async (user: User, id: number, action: 'acknowledge' | 'resolve') => {
  expect((await t.request('POST', `/incidents/${id}/${action}`, { token: user.token })).status).toBe(200);
  await t.deps.queue.drain();
};

describe('PAGERDUTY (Events API v2 out)', () => {
  it("triggers, acknowledges and resolves one PagerDuty alert, kept in step with the incident's dedup_key", async () => {
    const user = await t.signup('pd-flow');
    await channel(user, 'PAGERDUTY', PAGERDUTY_CONFIG);
    const before = providers.pagerDuty().length;
    const incident = await declare(t, await t.apiKey(user), { title: 'Checkout is failing', severity: 'P1' });
    await incidentAction(user, incident.id, 'acknowledge');
    await incidentAction(user, incident.id, 'resolve');
    const events = providers.pagerDuty().slice(before).map(pagerDutyEvent);
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge', 'resolve']);
    expect(new Set(events.map((e) => e.dedup_key))).toEqual(new Set([dedupKeyOf(incident.id)]));
    expect(events.every((e) => e.routing_key === PAGERDUTY_CONFIG.routingKey)).toBe(true);
    expect(events[0]?.payload).toMatchObject({ summary: '[P1] Incident opened: Checkout is failing', severity: 'critical', source: 'Vigil', class: 'incident.opened' });
    expect(providers.problems).toEqual([]);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(3);
  });

  it('maps each severity, and carries the acknowledge and resolve links as `links`', async () => {
    const user = await t.signup('pd-links');
    const item = (await t.deps.store.entities.alertChannel.get({ channelId: await channel(user, 'PAGERDUTY', PAGERDUTY_CONFIG) }).go()).data;
    if (!item) throw new Error('channel missing');
    const links = { acknowledgeUrl: 'https://vigil.example/api/a/ack.sig', resolveUrl: 'https://vigil.example/api/a/resolve.sig' };
    for (const [severity, expected] of [
      ['P1', 'critical'],
      ['P2', 'error'],
      ['P3', 'warning'],
      ['P4', 'info'],
    ] as const) {
      const result = await deliverToChannel(
        t.deps,
        item,
        { id: `msg_${severity}`, type: 'incident.opened', subject: `[${severity}] x`, text: 'x', data: { incident: { id: 7 }, severity }, actions: links },
        providers.outbound,
      );
      expect(result.ok, result.message).toBe(true);
      const event = pagerDutyEvent(providers.pagerDuty().at(-1)!);
      expect(event.payload?.severity).toBe(expected);
      expect(event.links).toEqual([
        { href: links.acknowledgeUrl, text: 'Acknowledge in Vigil' },
        { href: links.resolveUrl, text: 'Resolve in Vigil' },
      ]);
    }
    expect(providers.problems).toEqual([]);
  });

  it('test-sends an info alert of its own and resolves it at once', async () => {
    const user = await t.signup('pd-test');
    const id = await channel(user, 'PAGERDUTY', PAGERDUTY_CONFIG);
    const before = providers.pagerDuty().length;
    expect(await testAlertChannel({ deps: t.deps, actor: actorOf(user) }, id, providers.outbound)).toMatchObject({ ok: true, type: 'PAGERDUTY', statusCode: 202 });
    const events = providers.pagerDuty().slice(before).map(pagerDutyEvent);
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'resolve']);
    expect(events[0]?.payload).toMatchObject({ severity: 'info', summary: 'Vigil test alert' });
    expect(events[1]?.dedup_key).toBe(events[0]?.dedup_key);
    expect(providers.problems).toEqual([]);
  });

  it("waits out a 429's Retry-After, then sends the same event again", async () => {
    const user = await t.signup('pd-retry');
    await channel(user, 'PAGERDUTY', PAGERDUTY_CONFIG);
    const key = await t.apiKey(user);
    providers.answer({ status: 429, headers: { 'retry-after': '90' } });
    const before = providers.pagerDuty().length;
    const res = await t.request<{ id: number }>('POST', '/v1/incidents', { token: key, body: { title: 'Rate limited', severity: 'P2' } });
    expect(res.status).toBe(201);
    await t.deps.queue.deliverDue();
    await t.deps.queue.deliverDue();
    expect(providers.pagerDuty().length - before).toBe(1);
    t.clock.advanceSeconds(89);
    await t.deps.queue.deliverDue();
    expect(providers.pagerDuty().length - before).toBe(1);
    t.clock.advanceSeconds(1);
    await t.deps.queue.deliverDue();
    const sent = providers.pagerDuty().slice(before);
    expect(sent).toHaveLength(2);
    // The same event again: only the links' signatures differ, each signed when its attempt was composed.
    const withoutLinks = (body: string | undefined) => {
      const { links, ...event } = JSON.parse(body ?? '{}') as { links?: { text: string }[] };
      return { ...event, links: (links ?? []).map((link) => link.text) };
    };
    expect(withoutLinks(sent[1]?.body)).toEqual(withoutLinks(sent[0]?.body));
    expect(await alertsSent(t, user, res.body.id)).toHaveLength(1);
  });

  it('goes through the SSRF guard: a base URL whose name resolves inside is never connected to', async () => {
    const user = await t.signup('pd-ssrf');
    const id = await channel(user, 'PAGERDUTY', { ...PAGERDUTY_CONFIG, apiBaseUrl: 'https://events.pd.example.test' });
    const spy = spyConnect();
    const result = await testAlertChannel({ deps: t.deps, actor: actorOf(user) }, id, {
      resolve: fakeResolver({ 'events.pd.example.test': ['10.0.0.7'] }).resolve,
      connect: spy.connect,
    });
    expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
    expect(result.message).not.toContain('10.0.0.7');
    expect(spy.calls).toHaveLength(0);
  });
});

describe('PUSHOVER', () => {
  it('sends P1 as emergency priority with retry, expire and its incident tag; the acknowledgement cancels the repeats and goes out quiet', async () => {
    const user = await t.signup('po-flow');
    await channel(user, 'PUSHOVER', PUSHOVER_CONFIG);
    const before = providers.pushover().length;
    const incident = await declare(t, await t.apiKey(user), { title: 'Payments down', severity: 'P1' });
    await incidentAction(user, incident.id, 'acknowledge');
    const sent = providers.pushover().slice(before);
    expect(sent.map((r) => r.url)).toEqual(['/pushover/1/messages.json', `/pushover/1/receipts/cancel_by_tag/vigil-incident-${incident.id}.json`, '/pushover/1/messages.json']);
    const [opened, cancel, acknowledged] = sent.map(pushoverForm);
    expect(opened).toMatchObject({
      token: PUSHOVER_CONFIG.appToken,
      user: PUSHOVER_CONFIG.userKey,
      title: '[P1] Incident opened: Payments down',
      priority: '2',
      retry: String(EMERGENCY_RETRY_SECONDS),
      expire: String(EMERGENCY_EXPIRE_SECONDS),
      tags: `vigil-incident-${incident.id}`,
      html: '1',
    });
    expect(opened?.message).toContain('Payments down');
    expect(cancel).toEqual({ token: PUSHOVER_CONFIG.appToken });
    expect(acknowledged).toMatchObject({ priority: '-1', title: '[P1] Incident acknowledged: Payments down' });
    expect(acknowledged).not.toHaveProperty('retry');
    expect(providers.problems).toEqual([]);
  });

  it('maps P2-P4 to high, normal and low priority, and carries the acknowledge link as url/url_title and both links in the HTML', async () => {
    const user = await t.signup('po-map');
    const item = (await t.deps.store.entities.alertChannel.get({ channelId: await channel(user, 'PUSHOVER', PUSHOVER_CONFIG) }).go()).data;
    if (!item) throw new Error('channel missing');
    const actions = { acknowledgeUrl: 'https://vigil.example/api/l/ack?s=a&b', resolveUrl: 'https://vigil.example/api/l/resolve?s=c' };
    for (const [severity, priority] of [
      ['P2', '1'],
      ['P3', '0'],
      ['P4', '-1'],
    ] as const) {
      const result = await deliverToChannel(
        t.deps,
        item,
        { id: 'm', type: 'incident.opened', subject: `[${severity}] x`, text: 'Checkout <b>is</b> failing', data: { incident: { id: 9 }, severity }, actions },
        providers.outbound,
      );
      expect(result.ok, result.message).toBe(true);
      const form = pushoverForm(providers.pushover().at(-1)!);
      expect(form).toMatchObject({ priority, url: actions.acknowledgeUrl, url_title: 'Acknowledge' });
      expect(form).not.toHaveProperty('retry');
      expect(form.message).toContain('Checkout &lt;b&gt;is&lt;/b&gt; failing');
      expect(form.message).toContain('<a href="https://vigil.example/api/l/ack?s=a&amp;b">Acknowledge</a>');
      expect(form.message).toContain('<a href="https://vigil.example/api/l/resolve?s=c">Resolve</a>');
    }
    expect(providers.problems).toEqual([]);
  });

  it('keeps a long message within 1024 characters, never cutting inside an entity', async () => {
    const user = await t.signup('po-long');
    const item = (await t.deps.store.entities.alertChannel.get({ channelId: await channel(user, 'PUSHOVER', PUSHOVER_CONFIG) }).go()).data;
    if (!item) throw new Error('channel missing');
    const result = await deliverToChannel(t.deps, item, { id: 'm', type: 'check.latency_warning', subject: 's', text: '<&>'.repeat(400), data: {} }, providers.outbound);
    expect(result.ok, result.message).toBe(true);
    const form = pushoverForm(providers.pushover().at(-1)!);
    expect(form.message?.length).toBeLessThanOrEqual(1024);
    expect(form.message).toMatch(/^(&lt;&amp;&gt;)+(&lt;|&lt;&amp;)?…$/);
    expect(form.priority).toBe('0');
    expect(providers.problems).toEqual([]);
  });

  it('test-sends at normal priority, and a refused request (bad keys) is a failed send with its status', async () => {
    const user = await t.signup('po-test');
    const id = await channel(user, 'PUSHOVER', PUSHOVER_CONFIG);
    expect(await testAlertChannel({ deps: t.deps, actor: actorOf(user) }, id, providers.outbound)).toMatchObject({ ok: true, type: 'PUSHOVER', statusCode: 200 });
    expect(pushoverForm(providers.pushover().at(-1)!)).toMatchObject({ title: 'Vigil test alert', priority: '0' });
    providers.answer({ status: 400 });
    expect(await testAlertChannel({ deps: t.deps, actor: actorOf(user) }, id, providers.outbound)).toMatchObject({
      ok: false,
      statusCode: 400,
      failureReason: 'UNEXPECTED_STATUS',
      message: 'The endpoint answered HTTP 400',
    });
  });

  it("waits out a 503's Retry-After before the retry", async () => {
    const user = await t.signup('po-retry');
    await channel(user, 'PUSHOVER', PUSHOVER_CONFIG);
    const key = await t.apiKey(user);
    providers.answer({ status: 503, headers: { 'retry-after': '120' } });
    const before = providers.pushover().length;
    expect((await t.request('POST', '/v1/incidents', { token: key, body: { title: 'Busy', severity: 'P3' } })).status).toBe(201);
    await t.deps.queue.deliverDue();
    await t.deps.queue.deliverDue();
    expect(providers.pushover().length - before).toBe(1);
    t.clock.advanceSeconds(119);
    await t.deps.queue.deliverDue();
    expect(providers.pushover().length - before).toBe(1);
    t.clock.advanceSeconds(1);
    await t.deps.queue.deliverDue();
    expect(providers.pushover().length - before).toBe(2);
    expect(providers.problems).toEqual([]);
  });
});
