import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type TestContext } from '../../test/harness.js';
import { expectStatus, type User } from '../../test/support/checks.js';
import { binOf, LATENCY_BOUNDS_MS } from './latency.js';
import { runProbeForRegion } from './runner.js';
import type { OutboundStats, OutboundTimeline } from './schema.js';
import { createOutboundCheck, fixedLatency, probeContext, targetServer } from '../../test/support/probes.js';

describe('outbound stats and timeline', () => {
  let t: TestContext;
  let server: Awaited<ReturnType<typeof targetServer>>;
  let user: User;
  let checkId: number;
  // 20 runs, one a minute from 12:00 on 2026-03-01 (the harness clock): the 5th, 10th, 15th and 20th get a 500.
  const latencies = Array.from({ length: 20 }, (_, i) => (i + 1) * 50);
  const failing = (i: number) => i % 5 === 4;

  beforeAll(async () => {
    t = await probeContext();
    server = await targetServer();
    user = await t.signup();
    checkId = (await createOutboundCheck(t, user, `${server.origin}/stats`, { regions: ['us-east-1'] })).id;
    for (const [i, latency] of latencies.entries()) {
      server.status = failing(i) ? 500 : 200;
      await runProbeForRegion(t.deps, { checkId, region: 'us-east-1' }, { now: fixedLatency(latency) });
      t.clock.advanceSeconds(60);
    }
    // The raw runs go: stats and timelines must come from the rollups alone.
    const runs = await t.deps.store.entities.probeRun.query.byCheck({ checkId }).go({ pages: 'all' });
    await t.deps.store.entities.probeRun.delete(runs.data).go();
    expect((await t.deps.store.entities.probeRun.query.byCheck({ checkId }).go()).data).toEqual([]);
  });
  afterAll(() => server.close());

  const stats = (query = '') => t.request<OutboundStats>('GET', `/checks/${checkId}/outbound-stats${query}`, { token: user.token });
  const timeline = (query = '') => t.request<OutboundTimeline>('GET', `/checks/${checkId}/outbound-timeline${query}`, { token: user.token });

  it('reports uptime, average and P95 latency over the last 24 hours by default', async () => {
    const body = expectStatus(await stats(), 200);
    const exactP95 = [...latencies].sort((a, b) => a - b)[18]!;
    expect(body).toMatchObject({ checkId, window: '24h', runs: 20, failures: 4, uptimePercent: 80, avgLatencyMs: 525, to: t.clock.now().toISOString() });
    const bin = binOf(exactP95);
    expect(body.p95LatencyMs).toBeGreaterThanOrEqual(LATENCY_BOUNDS_MS[bin - 1]!);
    expect(body.p95LatencyMs).toBeLessThanOrEqual(LATENCY_BOUNDS_MS[bin]!);
    expect(Date.parse(t.clock.now().toISOString()) - Date.parse(body.from)).toBeGreaterThanOrEqual(24 * 3_600_000 - 5 * 60_000);
  });

  it('gives the same totals from day rollups for long windows, and none for a window before the runs', async () => {
    const day = expectStatus(await stats(), 200);
    for (const window of ['30d', '365d', '72h']) {
      const long = expectStatus(await stats(`?window=${window}`), 200);
      expect({ ...long, window: day.window, from: day.from }).toEqual(day);
    }
    t.clock.advanceSeconds(3 * 3600);
    expect(expectStatus(await stats('?window=1h'), 200)).toMatchObject({ runs: 0, failures: 0, uptimePercent: null, avgLatencyMs: null, p95LatencyMs: null });
    expect(expectStatus(await stats('?window=4h'), 200)).toMatchObject({ runs: 20, failures: 4 });
    t.clock.advanceSeconds(-3 * 3600);
  });

  it('buckets results in 5-minute buckets over 24 hours by default, NO_DATA where nothing ran', async () => {
    const body = expectStatus(await timeline(), 200);
    expect(body).toMatchObject({ checkId, window: '24h', bucketMinutes: 5 });
    expect(body.buckets).toHaveLength(288);
    const withRuns = body.buckets.filter((bucket) => bucket.runs > 0);
    expect(withRuns.map((b) => [b.start, b.runs, b.failures, b.status, b.avgLatencyMs])).toEqual([
      ['2026-03-01T12:00:00.000Z', 5, 1, 'DEGRADED', 150],
      ['2026-03-01T12:05:00.000Z', 5, 1, 'DEGRADED', 400],
      ['2026-03-01T12:10:00.000Z', 5, 1, 'DEGRADED', 650],
      ['2026-03-01T12:15:00.000Z', 5, 1, 'DEGRADED', 900],
    ]);
    expect(body.buckets.filter((b) => b.runs === 0).every((b) => b.status === 'NO_DATA' && b.uptimePercent === null)).toBe(true);
    expect(body.buckets.at(-1)!.start <= body.to).toBe(true);
  });

  it('takes other bucket sizes and windows', async () => {
    const hourly = expectStatus(await timeline('?bucketMinutes=60&window=6h'), 200);
    expect(hourly.buckets).toHaveLength(6);
    expect(hourly.buckets.filter((b) => b.runs > 0)).toMatchObject([{ start: '2026-03-01T12:00:00.000Z', runs: 20, failures: 4, uptimePercent: 80 }]);
    const daily = expectStatus(await timeline('?bucketMinutes=1440&window=30d'), 200);
    expect(daily.buckets).toHaveLength(30);
    expect(daily.buckets.at(-1)).toMatchObject({ start: '2026-03-01T00:00:00.000Z', runs: 20, failures: 4, status: 'DEGRADED' });
    const quarter = expectStatus(await timeline('?bucketMinutes=15&window=1h'), 200);
    expect(quarter.buckets.map((b) => b.runs)).toEqual([0, 0, 15, 5]);
  });

  it('refuses bad windows and bucket sizes with a 400', async () => {
    for (const query of ['?window=abc', '?window=0h', '?window=4m', '?window=366d', '?window=24', '?window=-1d']) {
      expectError(await stats(query), 400);
      expectError(await timeline(query), 400);
    }
    for (const query of ['?bucketMinutes=7', '?bucketMinutes=abc', '?bucketMinutes=0', '?window=8d', '?window=30d&bucketMinutes=60']) {
      expectError(await timeline(query), 400);
    }
    expectStatus(await timeline('?window=7d&bucketMinutes=60'), 200);
  });
});
