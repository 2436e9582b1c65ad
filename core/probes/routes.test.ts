import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type TestContext } from '../../test/harness.js';
import { addMember, createCheck, expectStatus, inboundBody, type User } from '../../test/support/checks.js';
import { runProbeForRegion } from './runner.js';
import type { OutboundDetails, ProbeRun } from './schema.js';
import { ALL_REGIONS, createOutboundCheck, probeContext, targetServer } from '../../test/support/probes.js';

type Page<T> = { items: T[]; total: number; page: number; itemCount: number; pageCount: number; limit: number };

describe('outbound routes', () => {
  let t: TestContext;
  let server: Awaited<ReturnType<typeof targetServer>>;
  let owner: User;
  let stranger: User;
  let checkId: number;
  beforeAll(async () => {
    t = await probeContext();
    server = await targetServer();
    owner = await t.signup();
    stranger = await t.signup();
    checkId = (await createOutboundCheck(t, owner, `${server.origin}/ok`, { customHeaders: { 'x-probe': 'vigil' } })).id;
  });
  afterAll(() => server.close());

  const PATHS = (id: number | string) => [`/checks/${id}/outbound`, `/checks/${id}/runs`, `/checks/${id}/outbound-stats`, `/checks/${id}/outbound-timeline`];

  it('GET /checks/:id/outbound shows the config with defaults and the probe state per region', async () => {
    const details = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${checkId}/outbound`, { token: owner.token }), 200);
    expect(details.config).toEqual({
      url: `${server.origin}/ok`,
      method: 'GET',
      customHeaders: { 'x-probe': 'vigil' },
      timeoutMs: 8000,
      expectedStatusMin: 200,
      expectedStatusMax: 399,
      followRedirects: true,
      maxRedirects: 3,
      blockHttpDowngrade: true,
      failAfterConsecutive: 2,
      resolveAfterConsecutiveSuccess: 2,
      latencyWarnMs: null,
      sslExpiryWarnDays: 14,
      regions: [...ALL_REGIONS],
    });
    expect(details.state).toEqual({
      status: 'NEW',
      consecutiveFailures: 0,
      consecutiveSuccesses: 0,
      lastRoundAt: null,
      regions: ALL_REGIONS.map((region) => ({ region, lastRun: null })),
    });
    await runProbeForRegion(t.deps, { checkId, region: 'eu-west-1' });
    const after = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${checkId}/outbound`, { token: owner.token }), 200);
    expect(after.state.regions.find((r) => r.region === 'eu-west-1')?.lastRun).toMatchObject({
      checkId,
      region: 'eu-west-1',
      ok: true,
      statusCode: 200,
      failureReason: null,
      sslExpiresAt: null,
    });
    expect(server.requests.at(-1)?.headers['x-probe']).toBe('vigil');
  });

  it('PATCH /checks/:id/outbound changes only the given fields, clears with null and keeps schedules in step', async () => {
    const patched = expectStatus(
      await t.request<OutboundDetails>('PATCH', `/checks/${checkId}/outbound`, {
        token: owner.token,
        body: { timeoutMs: 3000, method: 'HEAD', latencyWarnMs: 500, regions: ['eu-west-1'], customHeaders: null },
      }),
      200,
    );
    expect(patched.config).toMatchObject({ timeoutMs: 3000, method: 'HEAD', latencyWarnMs: 500, regions: ['eu-west-1'], customHeaders: {}, url: `${server.origin}/ok` });
    const names = () => [...t.deps.scheduler.schedules.keys()].filter((name) => name.startsWith(`probe-${checkId}-`));
    expect(names()).toEqual([`probe-${checkId}-eu-west-1`]);

    const cleared = expectStatus(
      await t.request<OutboundDetails>('PATCH', `/checks/${checkId}/outbound`, { token: owner.token, body: { regions: null, latencyWarnMs: null } }),
      200,
    );
    expect(cleared.config).toMatchObject({ regions: ['us-east-1'], latencyWarnMs: null, timeoutMs: 3000 });
    expect(names()).toEqual([`probe-${checkId}-us-east-1`]);
    expectStatus(await t.request<OutboundDetails>('PATCH', `/checks/${checkId}/outbound`, { token: owner.token, body: { regions: [...ALL_REGIONS] } }), 200);
    expect(names()).toHaveLength(3);
    const unchanged = expectStatus(await t.request<OutboundDetails>('PATCH', `/checks/${checkId}/outbound`, { token: owner.token, body: {} }), 200);
    expect(unchanged.config.timeoutMs).toBe(3000);
  });

  it('PATCH refuses bad input with a 400 and changes nothing', async () => {
    const before = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${checkId}/outbound`, { token: owner.token }), 200).config;
    const bad: [Record<string, unknown>, string][] = [
      [{ timeoutMs: 999 }, 'timeoutMs'],
      [{ timeoutMs: 15001 }, 'timeoutMs'],
      [{ url: 'ftp://example.com/' }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2048)}` }, 'url'],
      [{ url: null }, 'url'],
      [{ method: 'DELETE' }, 'method'],
      [{ expectedStatusMin: 500, expectedStatusMax: 200 }, 'expectedStatusMin'],
      [{ expectedStatusMin: 450 }, 'expectedStatusMin'],
      [{ maxRedirects: 4 }, 'maxRedirects'],
      [{ failAfterConsecutive: 0 }, 'failAfterConsecutive'],
      [{ resolveAfterConsecutiveSuccess: 11 }, 'resolveAfterConsecutiveSuccess'],
      [{ sslExpiryWarnDays: 366 }, 'sslExpiryWarnDays'],
      [{ regions: ['mars-1'] }, 'regions'],
      [{ regions: ['us-east-1', 'us-east-1'] }, 'regions'],
      [{ regions: [] }, 'regions'],
      [{ customHeaders: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`x-h${i}`, 'v'])) }, 'customHeaders'],
      [{ customHeaders: { Host: 'internal' } }, 'customHeaders'],
      [{ intervalSeconds: 60 }, ''],
      [{ checkMode: 'INBOUND' }, ''],
    ];
    for (const [body, path] of bad) {
      const res = await t.request<{ details?: { path: string }[] }>('PATCH', `/checks/${checkId}/outbound`, { token: owner.token, body });
      expectError(res, 400);
      if (path)
        expect(
          res.body.details?.some((d) => d.path.startsWith(path)),
          JSON.stringify(body),
        ).toBe(true);
    }
    expectError(await t.request('PATCH', `/checks/${checkId}/outbound`, { token: owner.token, rawBody: '{"timeoutMs":', headers: { 'content-type': 'application/json' } }), 400);
    const after = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${checkId}/outbound`, { token: owner.token }), 200).config;
    expect(after).toEqual(before);
  });

  it('lets a viewer read but not change, and hides the check from other workspaces', async () => {
    const viewer = await t.signup();
    await addMember(t, owner, viewer, 'VIEWER');
    for (const path of PATHS(checkId)) expectStatus(await t.request('GET', path, { token: viewer.token }), 200);
    expectError(await t.request('PATCH', `/checks/${checkId}/outbound`, { token: viewer.token, body: { timeoutMs: 2000 } }), 403);
    for (const path of PATHS(checkId)) expectError(await t.request('GET', path, { token: stranger.token }), 404);
    expectError(await t.request('PATCH', `/checks/${checkId}/outbound`, { token: stranger.token, body: { timeoutMs: 2000 } }), 404);
    expect(expectStatus(await t.request<OutboundDetails>('GET', `/checks/${checkId}/outbound`, { token: owner.token }), 200).config.timeoutMs).toBe(3000);
  });

  it('answers 404 for inbound, missing and deleted checks, 400 for a bad id, 401 without a session or with an API key', async () => {
    const inbound = await createCheck(t, owner, inboundBody(owner));
    const doomed = await createOutboundCheck(t, owner, `${server.origin}/gone`);
    expectStatus(await t.request('DELETE', `/checks/${doomed.id}`, { token: owner.token }), 204);
    for (const id of [inbound.id, doomed.id, 987654]) {
      for (const path of PATHS(id)) expectError(await t.request('GET', path, { token: owner.token }), 404);
      expectError(await t.request('PATCH', `/checks/${id}/outbound`, { token: owner.token, body: { timeoutMs: 2000 } }), 404);
    }
    for (const path of PATHS('abc')) expectError(await t.request('GET', path, { token: owner.token }), 400);
    const key = await t.apiKey(owner);
    for (const path of PATHS(checkId)) {
      expectError(await t.request('GET', path), 401);
      expectError(await t.request('GET', path, { token: key }), 401);
    }
  });

  it('documents the routes in the dashboard OpenAPI document', async () => {
    const doc = expectStatus(await t.request<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json'), 200);
    for (const path of ['/checks/{id}/outbound', '/checks/{id}/runs', '/checks/{id}/outbound-stats', '/checks/{id}/outbound-timeline']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(Object.keys(doc.paths['/checks/{id}/outbound']!).sort()).toEqual(['get', 'patch']);
  });

  it('counts one request against the rate limit, on these routes and on the checks routes beside them', async () => {
    t.clock.advanceSeconds(61);
    for (const path of [`/checks/${checkId}/outbound`, `/checks/${checkId}/runs`, `/checks/${checkId}`]) {
      const first = await t.request('GET', path, { token: owner.token });
      const second = await t.request('GET', path, { token: owner.token });
      expect(first.status).toBe(200);
      expect(Number(first.headers.get('RateLimit-Remaining')) - Number(second.headers.get('RateLimit-Remaining'))).toBe(1);
    }
  });

  it('GET /checks/:id/runs pages newest first and filters by startDate/endDate', async () => {
    const check = await createOutboundCheck(t, owner, `${server.origin}/paged`, { regions: ['us-east-1'] });
    const start = t.clock.now();
    for (let i = 0; i < 5; i++) {
      await runProbeForRegion(t.deps, { checkId: check.id, region: 'us-east-1' });
      t.clock.advanceSeconds(60);
    }
    const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000).toISOString();
    const first = expectStatus(await t.request<Page<ProbeRun>>('GET', `/checks/${check.id}/runs?limit=2`, { token: owner.token }), 200);
    expect(first).toMatchObject({ total: 5, page: 1, itemCount: 2, pageCount: 3, limit: 2 });
    expect(first.items.map((run) => run.startedAt)).toEqual([at(4), at(3)]);
    const last = expectStatus(await t.request<Page<ProbeRun>>('GET', `/checks/${check.id}/runs?limit=2&page=3`, { token: owner.token }), 200);
    expect(last.items.map((run) => run.startedAt)).toEqual([at(0)]);
    const defaults = expectStatus(await t.request<Page<ProbeRun>>('GET', `/checks/${check.id}/runs`, { token: owner.token }), 200);
    expect(defaults).toMatchObject({ limit: 20, page: 1, total: 5 });
    const ranged = expectStatus(
      await t.request<Page<ProbeRun>>('GET', `/checks/${check.id}/runs?startDate=${encodeURIComponent(at(1))}&endDate=${encodeURIComponent(at(3))}`, { token: owner.token }),
      200,
    );
    expect(ranged.items.map((run) => run.startedAt)).toEqual([at(3), at(2), at(1)]);
    expect(ranged.total).toBe(3);
    for (const query of ['limit=0', 'limit=101', 'page=0', 'startDate=yesterday', `startDate=${encodeURIComponent(at(3))}&endDate=${encodeURIComponent(at(1))}`]) {
      expectError(await t.request('GET', `/checks/${check.id}/runs?${query}`, { token: owner.token }), 400);
    }
    // Runs expire after 7 days (TTL; readers skip expired rows themselves).
    t.clock.advanceSeconds(8 * 86_400);
    const login = await t.request<{ access_token: string }>('POST', '/oauth/token', { body: { grant_type: 'password', username: owner.email, password: owner.password } });
    const token = expectStatus(login, 200).access_token;
    expect(expectStatus(await t.request<Page<ProbeRun>>('GET', `/checks/${check.id}/runs`, { token }), 200).total).toBe(0);
  });
});
