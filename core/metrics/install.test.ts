import { describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { ConfigError, loadConfig } from '../config.js';
import { deadLetterLane } from '../adapters/local/queue.js';
import { timedSweep } from './sweepTiming.js';
import { parseExposition, samplesOf, valueOf } from '../../test/support/metrics.js';

const TOKEN = 'scrape-token-0123456789abcdef';
const metrics = (t: TestContext, authorization?: string) => t.request('GET', 'http://localhost/metrics', authorization === undefined ? {} : { headers: { authorization } });

describe('GET /metrics (the install)', () => {
  it('is off, as an unknown route, while VIGIL_METRICS_TOKEN is unset', async () => {
    const t = await createTestContext();
    expectError(await metrics(t), 404, 'NOT_FOUND');
    expectError(await metrics(t, `Bearer ${TOKEN}`), 404, 'NOT_FOUND');
    expectError(await t.request('POST', 'http://localhost/metrics', { rawBody: '' }), 404, 'NOT_FOUND');
  });

  it('answers only the configured Bearer token; anything else is 401', async () => {
    const t = await createTestContext({ VIGIL_METRICS_TOKEN: TOKEN });
    const user = await t.signup('scraper');
    const denied = [undefined, 'Bearer wrong-token-0123456789abcdef', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, `Bearer ${user.token}`, `Bearer ${await t.apiKey(user)}`];
    for (const authorization of denied) {
      const res = await metrics(t, authorization);
      expectError(res, 401, 'UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    const ok = await metrics(t, `Bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    parseExposition(ok.text);
    const post = await t.request('POST', 'http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expectError(post, 405, 'METHOD_NOT_ALLOWED');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('reports pings, queue depth, oldest message age and dead letters of the embedded runtime', async () => {
    const t = await createTestContext({ VIGIL_METRICS_TOKEN: TOKEN });
    const user = await t.signup('pinger');
    const key = await t.apiKey(user);
    const job = await t.request<{ token: string }>('POST', '/v1/jobs', { token: key, body: { name: 'job', projectId: user.projectId } });
    // NEW -> OK owes one status message, handed to the incidents consumer of this process
    // (docs/adr/0017-status-changes-skip-the-local-queue.md); the test queue does not drain by itself.
    expect((await t.request('GET', `/signals/ping/${job.body.token}`)).status).toBe(200);
    t.clock.advanceSeconds(2);
    expect((await t.request('POST', `/signals/ping/${job.body.token}`, { rawBody: 'x' })).status).toBe(200);
    expect((await t.request('GET', '/signals/ping/no-such-token')).status).toBe(404);
    // The Healthchecks-compatible path counts too.
    t.clock.advanceSeconds(2);
    expect((await t.request('GET', `/ping/${job.body.token}`)).status).toBe(200);
    await t.deps.store.entities.queueMessage
      .put({
        lane: deadLetterLane('alerts'),
        messageId: '01J00000000000000000000000',
        body: '{}',
        receiveCount: 5,
        visibleAt: '2026-03-01T00:00:00.000Z',
        leased: false,
        sentAt: '2026-03-01T00:00:00.000Z',
      })
      .go();
    t.clock.advanceSeconds(40);

    const families = parseExposition((await metrics(t, `Bearer ${TOKEN}`)).text);
    expect(families.get('vigil_pings_total')?.type).toBe('counter');
    expect(valueOf(families, 'vigil_pings_total', { outcome: 'accepted' })).toBe(3);
    expect(valueOf(families, 'vigil_pings_total', { outcome: 'rejected' })).toBe(1);
    const incidentsDepth = valueOf(families, 'vigil_queue_messages', { queue: 'incidents' });
    // The store's messages and the ones handed off, which are never in the store.
    expect(incidentsDepth).toBe((await t.deps.queue.pending('incidents')).length + t.deps.queue.handedOff('incidents').count);
    expect(t.deps.queue.handedOff('incidents').count).toBeGreaterThan(0);
    expect(valueOf(families, 'vigil_queue_oldest_message_age_seconds', { queue: 'incidents' })).toBe(44);
    expect(valueOf(families, 'vigil_queue_messages', { queue: 'alerts' })).toBe(0);
    expect(valueOf(families, 'vigil_queue_oldest_message_age_seconds', { queue: 'alerts' })).toBe(0);
    expect(valueOf(families, 'vigil_queue_dead_letters', { queue: 'alerts' })).toBe(1);
    expect(valueOf(families, 'vigil_queue_dead_letters', { queue: 'incidents' })).toBe(0);

    await t.deps.queue.drain();
    const drained = parseExposition((await metrics(t, `Bearer ${TOKEN}`)).text);
    expect(valueOf(drained, 'vigil_queue_messages', { queue: 'incidents' })).toBe(0);
  });

  it('reports the last sweep once one has run, as timed by the sweep itself', async () => {
    const t = await createTestContext({ VIGIL_METRICS_TOKEN: TOKEN });
    expect(samplesOf(parseExposition((await metrics(t, `Bearer ${TOKEN}`)).text), 'vigil_sweep_last_duration_seconds')).toEqual([]);
    const ticks = [1_000, 2_250];
    await timedSweep(t.deps, () => ticks.shift() ?? Number.NaN);
    const families = parseExposition((await metrics(t, `Bearer ${TOKEN}`)).text);
    expect(valueOf(families, 'vigil_sweep_last_duration_seconds')).toBe(1.25);
    expect(valueOf(families, 'vigil_sweep_last_run_timestamp_seconds')).toBe(t.clock.now().getTime() / 1000);
    expect(valueOf(families, 'vigil_sweep_last_failed_steps')).toBe(0);
  });
});

describe('VIGIL_METRICS_TOKEN', () => {
  it('is optional; empty means unset; a short or spaced token stops the boot', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ VIGIL_METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(loadConfig({ VIGIL_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(() => loadConfig({ VIGIL_METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ VIGIL_METRICS_TOKEN: 'has a space in it, sixteen+' })).toThrow(/VIGIL_METRICS_TOKEN/);
  });
});

describe('parseExposition (the strict reader the tests rely on)', () => {
  it('refuses what the format does not allow', () => {
    const bad = ['no_newline 1', 'x{a="1} 1\n', 'x{a="\\q"} 1\n', 'x 1\nx 2\n', '# TYPE x gauge\n# TYPE x gauge\nx 1\n', 'x 1\ny 1\nx{a="b"} 2\n', 'x one\n', '1x 1\n'];
    for (const text of bad) expect(() => parseExposition(text), text).toThrow();
    expect(valueOf(parseExposition('# HELP x a \\\\ b\n# TYPE x gauge\nx{a="q\\"\\n"} +Inf\n'), 'x', { a: 'q"\n' })).toBe(Number.POSITIVE_INFINITY);
  });
});
