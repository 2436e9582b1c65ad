import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, inboundBody, outboundBody, type User } from '../../test/support/checks.js';
import { connect, ok, serveApp } from '../../test/support/mcp.js';
import { RUN } from '../store/listRank.js';
import type { Ctx } from '../context.js';
import { createHeartbeatJob } from './v1.js';
import type { DashboardCheck } from './schema.js';
import { meterClientReads } from '../../test/support/meter.js';

type Page = { items: { id: number; checkMode?: string }[]; total: number; page: number; itemCount: number; pageCount: number; limit: number };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_DEFAULT_PLAN: 'BUSINESS' });
});
beforeEach(() => freshRateWindow(t));

const ctxOf = (user: User): Ctx => ({ deps: t.deps, actor: { kind: 'user', userId: user.userId, email: user.email } });

/** Many jobs through the verb every surface calls (the API's 100 requests a minute would pace an HTTP loop). */
async function seedJobs(user: User, count: number, projectId = user.projectId): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, (_, j) => createHeartbeatJob(ctxOf(user), { name: `job ${i + j}`, projectId, intervalSeconds: 3600 })),
    );
    ids.push(...batch.map((c) => c.checkId));
  }
  return ids.sort((a, b) => a - b);
}

const get = async (user: User, path: string) => expectStatus(await t.request<Page>('GET', path, { token: user.token }), 200);

const metered = <T>(run: () => Promise<T>) => meterClientReads(t.deps.store, run);

describe('check list pages (read through the index, total from the rank runs)', () => {
  let user: User;
  let ids: number[];
  beforeAll(async () => {
    user = await t.signup('pages');
    ids = await seedJobs(user, 3 * RUN + 7);
  });

  it('answers every page in id order with the exact total, per workspace and project, dashboard and v1', async () => {
    for (const page of [1, 2, 7, 13, 20]) {
      const listed = await get(user, `/checks?workspaceId=${user.workspaceId}&page=${page}&limit=10`);
      expect(listed.total).toBe(ids.length);
      expect(listed.items.map((c) => c.id)).toEqual(ids.slice((page - 1) * 10, page * 10));
    }
    const byProject = await get(user, `/checks?projectId=${user.projectId}&page=5&limit=25`);
    expect(byProject).toMatchObject({ total: ids.length, pageCount: Math.ceil(ids.length / 25) });
    expect(byProject.items.map((c) => c.id)).toEqual(ids.slice(100, 125));
    expect((await get(user, `/checks?workspaceId=${user.workspaceId}&page=100&limit=10`)).items).toEqual([]);

    freshRateWindow(t);
    const key = await t.apiKey(user, { permission: 'read_only' });
    const jobs = expectStatus(await t.request<Page>('GET', '/v1/jobs?page=3&limit=50', { headers: { authorization: `Bearer ${key}` } }), 200);
    expect(jobs.total).toBe(ids.length);
    expect(jobs.items.map((c) => c.id)).toEqual(ids.slice(100, 150));
    const checks = expectStatus(await t.request<Page>('GET', '/v1/checks?page=1&limit=50', { headers: { authorization: `Bearer ${key}` } }), 200);
    expect(checks).toMatchObject({ total: 0, items: [] });
  });

  it('reads O(page) items: the runs, at most one run of refs before the page, and the page', async () => {
    const page = Math.ceil(ids.length / 10) - 1;
    const { result, itemsRead, requests } = await metered(() => get(user, `/checks?workspaceId=${user.workspaceId}&page=${page}&limit=10`));
    expect(result.items.map((c) => c.id)).toEqual(ids.slice((page - 1) * 10, page * 10));
    const runs = Math.ceil(ids.length / RUN) + 1;
    // Authorisation (a membership), the runs, the refs from the page's run on, and the page's checks.
    expect(itemsRead).toBeLessThanOrEqual(1 + runs + (RUN - 1 + 10) + 10);
    expect(itemsRead).toBeLessThan(ids.length / 2);
    // Session and rate limit, the membership, the runs, the refs, the checks: not one more at 10,000.
    expect(requests).toBeLessThanOrEqual(8);
  });

  it('pages one mode through the mode counts: outbound checks among many jobs', async () => {
    const owner = await t.signup('modes');
    const jobs = await seedJobs(owner, RUN + 5);
    const outbound: number[] = [];
    for (let i = 0; i < 3; i++) outbound.push((await createCheck(t, owner, outboundBody(owner, { intervalSeconds: 300 }))).id);
    const more = await seedJobs(owner, 4);
    const page = await get(owner, `/checks?workspaceId=${owner.workspaceId}&checkMode=OUTBOUND&page=1&limit=2`);
    expect(page).toMatchObject({ total: 3, pageCount: 2 });
    expect(page.items.map((c) => c.id)).toEqual(outbound.slice(0, 2));
    expect((await get(owner, `/checks?workspaceId=${owner.workspaceId}&checkMode=OUTBOUND&page=2&limit=2`)).items.map((c) => c.id)).toEqual(outbound.slice(2));
    const inbound = await get(owner, `/checks?workspaceId=${owner.workspaceId}&checkMode=INBOUND&page=2&limit=${RUN}`);
    expect(inbound.total).toBe(jobs.length + more.length);
    expect(inbound.items.map((c) => c.id)).toEqual([...jobs, ...more].slice(RUN));
    expect((await get(owner, `/checks?workspaceId=${owner.workspaceId}`)).total).toBe(jobs.length + more.length + 3);
  });

  it('moves the counts with deletes, transfers between projects and mode changes', async () => {
    const owner = await t.signup('moves');
    const other = expectStatus(await t.request<{ id: number }>('POST', '/projects', { token: owner.token, body: { workspaceId: owner.workspaceId, name: 'other' } }), 201);
    const made: DashboardCheck[] = [];
    for (let i = 0; i < 5; i++) made.push(await createCheck(t, owner, inboundBody(owner)));
    const [a, b, c] = made;
    if (!a || !b || !c) throw new Error('not created');
    expectStatus(await t.request('DELETE', `/checks/${a.id}`, { token: owner.token }), 204);
    expectError(await t.request('DELETE', `/checks/${a.id}`, { token: owner.token }), 404);
    expectStatus(await t.request('PATCH', `/checks/${b.id}/transfer`, { token: owner.token, body: { projectId: other.id } }), 200);
    expectStatus(await t.request('PATCH', `/checks/${c.id}`, { token: owner.token, body: { checkMode: 'OUTBOUND', url: 'https://example.com/', intervalSeconds: 300 } }), 200);
    const rest = made.slice(1).map((m) => m.id);
    expect((await get(owner, `/checks?workspaceId=${owner.workspaceId}`)).items.map((m) => m.id)).toEqual(rest);
    expect(await get(owner, `/checks?projectId=${other.id}`)).toMatchObject({ total: 1, items: [{ id: b.id }] });
    expect((await get(owner, `/checks?projectId=${owner.projectId}`)).items.map((m) => m.id)).toEqual(rest.filter((id) => id !== b.id));
    expect(await get(owner, `/checks?workspaceId=${owner.workspaceId}&checkMode=OUTBOUND`)).toMatchObject({ total: 1, items: [{ id: c.id }] });
    expect((await get(owner, `/checks?workspaceId=${owner.workspaceId}&checkMode=INBOUND`)).total).toBe(3);
    // A new ping token keeps the check where it was listed, counted once.
    expectStatus(await t.request('POST', `/checks/${b.id}/rotate-token`, { token: owner.token }), 200);
    expect((await get(owner, `/checks?workspaceId=${owner.workspaceId}`)).total).toBe(4);
    expect(await get(owner, `/checks?projectId=${other.id}`)).toMatchObject({ total: 1, items: [{ id: b.id }] });
  });

  it('counts exactly under concurrent creates and deletes', async () => {
    const owner = await t.signup('concurrent');
    const created = await Promise.all(Array.from({ length: 40 }, () => t.request<DashboardCheck>('POST', '/checks', { token: owner.token, body: inboundBody(owner) })));
    expect(created.every((res) => res.status === 201)).toBe(true);
    freshRateWindow(t);
    const gone = created.slice(0, 15).map((res) => res.body.id);
    const deleted = await Promise.all([...gone, ...gone].map((id) => t.request('DELETE', `/checks/${id}`, { token: owner.token })));
    expect(deleted.filter((res) => res.status === 204)).toHaveLength(15);
    const left = created
      .slice(15)
      .map((res) => res.body.id)
      .sort((x, y) => x - y);
    const all = await get(owner, `/checks?workspaceId=${owner.workspaceId}&limit=100`);
    expect(all.total).toBe(25);
    expect(all.items.map((m) => m.id)).toEqual(left);
    expect((await get(owner, `/checks?projectId=${owner.projectId}&page=3&limit=10`)).items.map((m) => m.id)).toEqual(left.slice(20));
  });

  it('MCP list_checks pages through the same lists (type is the mode; status filters)', async () => {
    const owner = await t.signup('mcp-pages');
    const jobs = await seedJobs(owner, 30);
    const served = await serveApp(t);
    const client = await connect(served.origin, await t.apiKey(owner));
    try {
      const page = await ok<{ items: { id: number }[]; total: number; nextPage: number | null }>(client, 'list_checks', { page: 2, limit: 10 });
      expect(page.data.total).toBe(30);
      expect(page.data.items.map((c) => c.id)).toEqual(jobs.slice(10, 20));
      expect((await ok<{ total: number }>(client, 'list_checks', { type: 'HTTP' })).data.total).toBe(0);
      const fresh = await ok<{ items: { id: number }[]; total: number }>(client, 'list_checks', { type: 'HEARTBEAT', status: 'NEW', page: 3, limit: 10 });
      expect(fresh.data.total).toBe(30);
      expect(fresh.data.items.map((c) => c.id)).toEqual(jobs.slice(20));
      expect((await ok<{ total: number }>(client, 'list_checks', { status: 'DOWN' })).data.total).toBe(0);
    } finally {
      await client.close();
      await served.close();
    }
  });
});

describe('the rank counts themselves', () => {
  it('are one item per run of ids, and a create with the counter item missing seeds it first (plan limit)', async () => {
    const owner = await t.signup('runs');
    const { client, table } = t.deps.store;
    await createCheck(t, owner, inboundBody(owner));
    await client.send(new DeleteCommand({ TableName: table, Key: { pk: `checkQuota#${owner.workspaceId}`, sk: 'quota' } }));
    await createCheck(t, owner, inboundBody(owner));
    const quota = await client.send(new GetCommand({ TableName: table, Key: { pk: `checkQuota#${owner.workspaceId}`, sk: 'quota' }, ConsistentRead: true }));
    expect(quota.Item?.checks).toBe(2);
    const runs = await client.send(
      new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `listRank#check#workspace#${owner.workspaceId}` } }),
    );
    expect((runs.Items ?? []).reduce((sum, item) => sum + Number(item.INBOUND ?? 0), 0)).toBe(2);
  });
});
