import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { addMember, createCheck, expectStatus, freshRateWindow, inboundBody, LONG_SESSIONS, outboundBody, type User } from '../../test/support/checks.js';
import { fixedLatency, targetServer } from '../../test/support/probes.js';
import { meterClientReads } from '../../test/support/meter.js';
import type { Ctx } from '../context.js';
import { runProbeForRegion } from '../probes/runner.js';
import { findDashboardChecks } from './listing.js';
import { CheckListQuery, type DashboardCheck } from './schema.js';
import { createHeartbeatJob } from './v1.js';

/*
 * What the dashboard's check list needs from the API (docs/guide/checks-and-pings.md "Check lists at scale"): filters with cursor
 * pages, bulk pause/resume/delete, and latency sparklines. Over HTTP through the real app.
 */

type CheckPage = { items: DashboardCheck[]; total: number | null; page: number; itemCount: number; pageCount: number | null; limit: number; nextCursor: string | null };
type Bulk = { results: { id: number; ok: boolean; error: { code: string; message: string } | null }[] };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_DEFAULT_PLAN: 'BUSINESS', VIGIL_PROBE_ALLOW_PRIVATE: '1' });
});
beforeEach(() => freshRateWindow(t));

const ctxOf = (user: User): Ctx => ({ deps: t.deps, actor: { kind: 'user', userId: user.userId, email: user.email } });
const list = async (user: User, query: string) => expectStatus(await t.request<CheckPage>('GET', `/checks?${query}`, { token: user.token }), 200);

/** Every page of a cursor list: the ids in order, and how many requests it took. */
async function walk(user: User, query: string): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: CheckPage = await list(user, `${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
    pages++;
    ids.push(...page.items.map((c) => c.id));
    cursor = page.nextCursor;
  } while (cursor !== null && pages < 500);
  return { ids, pages };
}

/** Jobs named `<prefix> <i>` through the verb every surface calls (the API's rate limit would pace an HTTP loop). */
async function seed(user: User, names: string[], projectId = user.projectId): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < names.length; i += 10) {
    const batch = await Promise.all(names.slice(i, i + 10).map((name) => createHeartbeatJob(ctxOf(user), { name, projectId, intervalSeconds: 3600 })));
    ids.push(...batch.map((c) => c.checkId));
  }
  return ids.sort((a, b) => a - b);
}

describe('GET /checks with q, status and checkType', () => {
  let owner: User;
  let all: DashboardCheck[];
  let other: { id: number };
  beforeAll(async () => {
    owner = await t.signup('filters');
    // 140 jobs, every third named "Backup ...", others "sync ..."; then two HTTP checks and a job in a second project.
    await seed(
      owner,
      Array.from({ length: 140 }, (_, i) => (i % 3 === 0 ? `Nightly BACKUP ${i}` : `sync ${i}`)),
    );
    await createCheck(t, owner, outboundBody(owner, { name: 'homepage backup' }));
    await createCheck(t, owner, outboundBody(owner, { name: 'api health' }));
    other = expectStatus(await t.request<{ id: number }>('POST', '/projects', { token: owner.token, body: { workspaceId: owner.workspaceId, name: 'other' } }), 201);
    await createCheck(t, owner, inboundBody(owner, { name: 'other backup', projectId: other.id }));
    freshRateWindow(t);
    const first = await list(owner, `workspaceId=${owner.workspaceId}&limit=100`);
    const second = await list(owner, `workspaceId=${owner.workspaceId}&limit=100&page=2`);
    all = [...first.items, ...second.items];
    expect(all).toHaveLength(143);
    // Pause every tenth check, so status has something to find.
    freshRateWindow(t);
    for (const check of all.filter((_, i) => i % 10 === 0)) expectStatus(await t.request('PUT', `/checks/${check.id}/pause`, { token: owner.token }), 200);
  });

  const idsWhere = (keep: (c: DashboardCheck, i: number) => boolean) => all.filter(keep).map((c) => c.id);

  it('finds by a case-insensitive substring of the name, every match once across cursor pages', async () => {
    const expected = idsWhere((c) => c.name.toLowerCase().includes('backup'));
    expect(expected.length).toBeGreaterThan(40);
    const { ids, pages } = await walk(owner, `workspaceId=${owner.workspaceId}&q=bAcKuP&limit=7`);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil(expected.length / 7));
  });

  it('filters by status and by type, alone, together, and within a project or a mode', async () => {
    const paused = idsWhere((_, i) => i % 10 === 0);
    expect((await walk(owner, `workspaceId=${owner.workspaceId}&status=PAUSED&limit=4`)).ids).toEqual(paused);
    const http = idsWhere((c) => c.checkType === 'HTTP');
    expect(http).toHaveLength(2);
    expect((await walk(owner, `workspaceId=${owner.workspaceId}&checkType=HTTP`)).ids).toEqual(http);
    expect((await walk(owner, `workspaceId=${owner.workspaceId}&checkType=HEARTBEAT&status=NEW&q=sync&limit=100`)).ids).toEqual(
      idsWhere((c, i) => c.checkType === 'HEARTBEAT' && i % 10 !== 0 && c.name.startsWith('sync')),
    );
    expect((await walk(owner, `projectId=${other.id}&q=backup`)).ids).toEqual(idsWhere((c) => c.projectId === other.id));
    expect((await walk(owner, `workspaceId=${owner.workspaceId}&checkMode=OUTBOUND&q=backup`)).ids).toEqual(
      idsWhere((c) => c.checkMode === 'OUTBOUND' && c.name.includes('backup')),
    );
    expect((await walk(owner, `workspaceId=${owner.workspaceId}&q=no%20such%20name`)).ids).toEqual([]);
  });

  it('answers the exact total when one request read the whole filtered list, and null while pages remain', async () => {
    const whole = await list(owner, `workspaceId=${owner.workspaceId}&checkType=HTTP&limit=10`);
    expect(whole).toMatchObject({ total: 2, itemCount: 2, pageCount: 1, page: 1, nextCursor: null });
    const partial = await list(owner, `workspaceId=${owner.workspaceId}&q=backup&limit=5`);
    expect(partial).toMatchObject({ total: null, pageCount: null, itemCount: 5, limit: 5 });
    expect(partial.nextCursor).toBe(String(partial.items[4]?.id));
  });

  it('gives the unfiltered numbered page a nextCursor too, and the cursor goes on from it', async () => {
    const first = await list(owner, `workspaceId=${owner.workspaceId}&limit=50`);
    expect(first.total).toBe(143);
    expect(first.nextCursor).toBe(String(all[49]?.id));
    const next = await list(owner, `workspaceId=${owner.workspaceId}&limit=50&cursor=${first.nextCursor}`);
    expect(next.items.map((c) => c.id)).toEqual(all.slice(50, 100).map((c) => c.id));
    expect((await list(owner, `workspaceId=${owner.workspaceId}&limit=50&page=3`)).nextCursor).toBeNull();
  });

  it('refuses bad filters with 400 in the error shape', async () => {
    for (const query of ['q=', `q=${'x'.repeat(101)}`, 'status=BROKEN', 'checkType=FTP', 'cursor=abc', 'cursor=-1', `cursor=${'9'.repeat(17)}`, 'q=x&page=2', 'cursor=5&page=3']) {
      expectError(await t.request('GET', `/checks?workspaceId=${owner.workspaceId}&${query}`, { token: owner.token }), 400, 'VALIDATION_ERROR');
    }
  });

  it("answers 404 for another workspace's list or project, filtered or not", async () => {
    const stranger = await t.signup('filters-stranger');
    expectError(await t.request('GET', `/checks?workspaceId=${owner.workspaceId}&q=backup`, { token: stranger.token }), 404);
    expectError(await t.request('GET', `/checks?projectId=${other.id}&status=NEW`, { token: stranger.token }), 404);
    expect((await walk(stranger, `workspaceId=${stranger.workspaceId}&q=backup`)).ids).toEqual([]);
  });

  it('reads a bounded number of checks a request: short or empty pages carry a cursor, and the walk still finds every match once', async () => {
    const query = CheckListQuery.parse({ workspaceId: String(owner.workspaceId), status: 'PAUSED', limit: '3' });
    const expected = idsWhere((_, i) => i % 10 === 0);
    const found: number[] = [];
    let cursor: string | undefined;
    let requests = 0;
    let short = 0;
    do {
      const { result, itemsRead } = await meterClientReads(t.deps.store, () => findDashboardChecks(ctxOf(owner), { ...query, cursor }, 20));
      // The membership, at most 20 refs and their 20 checks.
      expect(itemsRead).toBeLessThanOrEqual(1 + 20 + 20);
      if (result.items.length < 3 && result.nextCursor !== null) short++;
      found.push(...result.items.map((c) => c.checkId));
      cursor = result.nextCursor ?? undefined;
      requests++;
    } while (cursor !== undefined && requests < 100);
    expect(found).toEqual(expected);
    expect(short).toBeGreaterThan(0);
  });
});

describe('POST /checks/bulk', () => {
  it('pauses, resumes and deletes in the order given; foreign and unknown ids are per-item NOT_FOUND and stay untouched', async () => {
    const owner = await t.signup('bulk');
    const stranger = await t.signup('bulk-stranger');
    const mine = await Promise.all([0, 1, 2].map(() => createCheck(t, owner, inboundBody(owner))));
    const theirs = await createCheck(t, stranger, inboundBody(stranger));
    const ids = [mine[2]!.id, theirs.id, mine[0]!.id, 999_999_999, mine[1]!.id];
    const bulk = (action: string, list = ids) => t.request<Bulk>('POST', '/checks/bulk', { token: owner.token, body: { workspaceId: owner.workspaceId, action, ids: list } });

    const paused = expectStatus(await bulk('pause'), 200);
    const notFound = { ok: false, error: { code: 'NOT_FOUND', message: 'Check not found' } };
    expect(paused.results).toEqual([
      { id: mine[2]!.id, ok: true, error: null },
      { id: theirs.id, ...notFound },
      { id: mine[0]!.id, ok: true, error: null },
      { id: 999_999_999, ...notFound },
      { id: mine[1]!.id, ok: true, error: null },
    ]);
    for (const check of mine) expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: owner.token }), 200).status).toBe('PAUSED');
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${theirs.id}`, { token: stranger.token }), 200).status).toBe('NEW');

    const resumed = expectStatus(await bulk('resume', [mine[0]!.id]), 200);
    expect(resumed.results).toEqual([{ id: mine[0]!.id, ok: true, error: null }]);
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${mine[0]!.id}`, { token: owner.token }), 200).paused).toBe(false);

    const deleted = expectStatus(await bulk('delete', [mine[1]!.id, theirs.id]), 200);
    expect(deleted.results).toEqual([
      { id: mine[1]!.id, ok: true, error: null },
      { id: theirs.id, ...notFound },
    ]);
    expectError(await t.request('GET', `/checks/${mine[1]!.id}`, { token: owner.token }), 404);
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${theirs.id}`, { token: stranger.token }), 200).status).toBe('NEW');
    // Deleted is gone: a second delete is that item's NOT_FOUND, the list no longer has it.
    expect(expectStatus(await bulk('delete', [mine[1]!.id]), 200).results).toEqual([{ id: mine[1]!.id, ...notFound }]);
    // The list is in id order; the three were created at once, so their ids come in any order.
    expect((await list(owner, `workspaceId=${owner.workspaceId}`)).items.map((c) => c.id)).toEqual([mine[0]!.id, mine[2]!.id].sort((a, b) => a - b));
  });

  it('refuses a read-only member (403) and a foreign workspace (404), changing nothing', async () => {
    const owner = await t.signup('bulk-roles');
    const viewer = await t.signup('bulk-viewer');
    await addMember(t, owner, viewer, 'VIEWER');
    const check = await createCheck(t, owner, inboundBody(owner));
    expectError(await t.request('POST', '/checks/bulk', { token: viewer.token, body: { workspaceId: owner.workspaceId, action: 'pause', ids: [check.id] } }), 403);
    const stranger = await t.signup('bulk-outsider');
    expectError(await t.request('POST', '/checks/bulk', { token: stranger.token, body: { workspaceId: owner.workspaceId, action: 'delete', ids: [check.id] } }), 404);
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: owner.token }), 200).status).toBe('NEW');
    // A member may.
    const member = await t.signup('bulk-member');
    await addMember(t, owner, member, 'MEMBER');
    expect(
      expectStatus(await t.request<Bulk>('POST', '/checks/bulk', { token: member.token, body: { workspaceId: owner.workspaceId, action: 'pause', ids: [check.id] } }), 200)
        .results[0]?.ok,
    ).toBe(true);
  });

  it('refuses bad bodies with 400 in the error shape, changing nothing', async () => {
    const owner = await t.signup('bulk-bad');
    const check = await createCheck(t, owner, inboundBody(owner));
    const w = owner.workspaceId;
    for (const body of [
      { workspaceId: w, action: 'pause', ids: [] },
      { workspaceId: w, action: 'pause', ids: Array.from({ length: 101 }, (_, i) => i + 1) },
      { workspaceId: w, action: 'pause', ids: [check.id, check.id] },
      { workspaceId: w, action: 'archive', ids: [check.id] },
      { workspaceId: w, action: 'pause', ids: [check.id], extra: true },
      { workspaceId: w, action: 'pause', ids: [String(check.id)] },
      { workspaceId: w, action: 'pause', ids: [0] },
      { action: 'pause', ids: [check.id] },
      { workspaceId: w, action: 'pause' },
    ]) {
      expectError(await t.request('POST', '/checks/bulk', { token: owner.token, body }), 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('POST', '/checks/bulk', { token: owner.token, rawBody: '{"ids":', headers: { 'content-type': 'application/json' } }), 400);
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: owner.token }), 200).status).toBe('NEW');
  });
});

describe('GET /checks/sparklines', () => {
  let server: Awaited<ReturnType<typeof targetServer>>;
  beforeAll(async () => {
    server = await targetServer();
  });
  afterAll(() => server.close());

  it("answers each HTTP check's last successful latencies oldest first and its last probe time, [] and null for a job, and leaves out foreign and unknown ids", async () => {
    const owner = await t.signup('spark');
    const stranger = await t.signup('spark-stranger');
    const http = await createCheck(t, owner, outboundBody(owner, { url: `${server.origin}/spark`, regions: ['us-east-1', 'eu-west-1'] }));
    const job = await createCheck(t, owner, inboundBody(owner));
    const foreign = await createCheck(t, stranger, outboundBody(stranger, { url: `${server.origin}/other` }));
    // 34 runs from alternating regions, 10 ms apart; every fifth fails.
    const latencies = Array.from({ length: 34 }, (_, i) => 10 * (i + 1));
    for (const [i, latency] of latencies.entries()) {
      server.status = i % 5 === 4 ? 500 : 200;
      await runProbeForRegion(t.deps, { checkId: http.id, region: i % 2 === 0 ? 'us-east-1' : 'eu-west-1' }, { now: fixedLatency(latency) });
      t.clock.advanceSeconds(60);
    }
    await runProbeForRegion(t.deps, { checkId: foreign.id, region: 'us-east-1' }, { now: fixedLatency(5) });
    const res = await t.request<{ items: { id: number; latencyMs: number[]; lastProbeAt: string | null }[] }>(
      'GET',
      `/checks/sparklines?workspaceId=${owner.workspaceId}&ids=${job.id},${foreign.id},${http.id},999999999,${http.id}`,
      { token: owner.token },
    );
    const expected = latencies.slice(4).filter((_, i) => (i + 4) % 5 !== 4);
    // The last probe is the one the detail page shows (its probe state's last round), so list and detail agree.
    const detail = expectStatus(await t.request<{ probe: { lastRoundAt: string | null } }>('GET', `/checks/${http.id}`, { token: owner.token }), 200);
    expect(detail.probe.lastRoundAt).not.toBeNull();
    expect(Date.parse(detail.probe.lastRoundAt ?? '')).toBeGreaterThan(t.clock.now().getTime() - 3 * 60_000);
    expect(expectStatus(res, 200).items).toEqual([
      { id: job.id, latencyMs: [], lastProbeAt: null },
      { id: http.id, latencyMs: expected, lastProbeAt: detail.probe.lastRoundAt },
    ]);
  });

  it('refuses bad ids with 400 and a foreign workspace with 404', async () => {
    const owner = await t.signup('spark-bad');
    const stranger = await t.signup('spark-bad-stranger');
    for (const ids of ['', 'a', '0', '1,,2', '1,2,', '-1', Array.from({ length: 101 }, (_, i) => i + 1).join(',')]) {
      expectError(await t.request('GET', `/checks/sparklines?workspaceId=${owner.workspaceId}&ids=${ids}`, { token: owner.token }), 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('GET', `/checks/sparklines?ids=1`, { token: owner.token }), 400);
    expectError(await t.request('GET', `/checks/sparklines?workspaceId=${owner.workspaceId}&ids=1`, { token: stranger.token }), 404);
  });
});
