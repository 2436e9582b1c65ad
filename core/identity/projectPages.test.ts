import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, expectStatus, freshRateWindow, type User } from '../../test/support/checks.js';
import { RUN } from '../store/listRank.js';
import { meterClientReads } from '../../test/support/meter.js';

type Page = { items: { id: number; workspaceId: number }[]; total: number; page: number; itemCount: number; pageCount: number; limit: number };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_DEFAULT_PLAN: 'BUSINESS' });
});
beforeEach(() => freshRateWindow(t));

const v1Page = async (key: string, page: number, limit: number) => expectStatus(await t.request<Page>('GET', `/v1/projects?page=${page}&limit=${limit}`, { token: key }), 200);
const dashboardIds = async (user: User) =>
  expectStatus(await t.request<{ id: number }[]>('GET', `/projects?workspaceId=${user.workspaceId}`, { token: user.token }), 200).map((p) => p.id);

/** Projects through the API, `parallel` at a time; returns every id of the workspace in id order. */
async function seed(key: string, count: number, parallel: number): Promise<void> {
  for (let i = 0; i < count; i += parallel) {
    const made = await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, (_, j) => t.request('POST', '/v1/projects', { token: key, body: { name: `p${i + j}` } })));
    for (const res of made) expect(res.status).toBe(201);
  }
}

const metered = <T>(run: () => Promise<T>) => meterClientReads(t.deps.store, run);

describe('/v1/projects pages (read through the index, total from the rank runs)', () => {
  let user: User;
  let key: string;
  let ids: number[];
  beforeAll(async () => {
    // Other workspaces' projects first, so this workspace's ids pass 10 (text order would put 10 before 9).
    for (let i = 0; i < 3; i++) await t.signup(`filler${i}`);
    user = await t.signup('pages');
    key = await t.apiKey(user);
    await seed(key, 24, 6);
    ids = await dashboardIds(user);
  });

  it('pages in numeric id order with exact totals, like the dashboard list', async () => {
    expect(ids).toHaveLength(25);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.some((id) => id >= 10) && ids.some((id) => id < 100)).toBe(true);
    const seen: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const body = await v1Page(key, page, 7);
      expect(body).toMatchObject({ total: 25, page, pageCount: 4, limit: 7, itemCount: page < 4 ? 7 : 4 });
      seen.push(...body.items.map((p) => p.id));
    }
    expect(seen).toEqual(ids);
    expect(await v1Page(key, 5, 7)).toMatchObject({ total: 25, items: [], itemCount: 0 });
    expect((await v1Page(key, 1, 100)).items.map((p) => p.id)).toEqual(ids);
  });

  it('reads only the page: a few requests, keys of at most one run before it, the page whole', async () => {
    const { result, requests, scanned, whole } = await metered(() => v1Page(key, 3, 5));
    expect(result.items.map((p) => p.id)).toEqual(ids.slice(10, 15));
    expect(result.total).toBe(25);
    // Auth reads plus runs, one keys-only query and one batch get: not one request per project.
    expect(requests).toBeLessThanOrEqual(8);
    expect(scanned).toBeLessThanOrEqual(RUN - 1 + 5 + 2);
    // Whole items: the page's five projects plus the item or two auth reads.
    expect(whole).toBeGreaterThanOrEqual(5);
    expect(whole).toBeLessThanOrEqual(5 + 2);
    const first = await metered(() => v1Page(key, 1, 5));
    expect(whole - first.whole).toBe(0);
  });

  it('keeps the total exact under concurrent creates and double deletes', async () => {
    const owner = await t.signup('races');
    const ownerKey = await t.apiKey(owner);
    await seed(ownerKey, 12, 12);
    const before = await dashboardIds(owner);
    expect(before).toHaveLength(13);
    const doomed = before.slice(1, 6);
    const results = await Promise.all(doomed.flatMap((id) => [0, 1].map(() => t.request('DELETE', `/projects/${id}`, { token: owner.token }))));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 204)).toHaveLength(5);
    for (const r of results) if (r.status !== 204) expectError(r, 404);
    expectError(await t.request('DELETE', `/projects/${doomed[0]}`, { token: owner.token }), 404);
    const after = await dashboardIds(owner);
    expect(after).toEqual(before.filter((id) => !doomed.includes(id)));
    const body = await v1Page(ownerKey, 1, 5);
    expect(body).toMatchObject({ total: 8, pageCount: 2, itemCount: 5 });
    expect([...body.items, ...(await v1Page(ownerKey, 2, 5)).items].map((p) => p.id)).toEqual(after);
  });

  it("lists only the key's own workspace; foreign ids stay 404", async () => {
    const other = await t.signup('foreign');
    const otherKey = await t.apiKey(other);
    const body = await v1Page(otherKey, 1, 100);
    expect(body).toMatchObject({ total: 1, items: [{ id: other.projectId, workspaceId: other.workspaceId }] });
    expectError(await t.request('GET', `/v1/projects/${user.projectId}`, { token: otherKey }), 404);
    expectError(await t.request('DELETE', `/projects/${user.projectId}`, { token: other.token }), 404);
    expect((await v1Page(key, 1, 1)).total).toBe(25);
  });
});
