import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../auth/plans.js';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { DashboardCheck } from './schema.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, inboundBody, outboundBody } from '../../test/support/checks.js';

const FREE = PLAN_LIMITS.FREE;
type Page = { items: DashboardCheck[]; total: number; page: number; itemCount: number; pageCount: number; limit: number };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_DEFAULT_PLAN: 'FREE' });
});
beforeEach(() => freshRateWindow(t));

describe('the check counter (plan limits under concurrency)', () => {
  it(`lets exactly ${FREE.outboundChecks} of 20 concurrent outbound creates through; the rest are 403`, async () => {
    const user = await t.signup('race-outbound');
    const results = await Promise.all(Array.from({ length: 20 }, () => t.request('POST', '/checks', { token: user.token, body: outboundBody(user, { intervalSeconds: 300 }) })));
    expect(results.filter((res) => res.status === 201)).toHaveLength(FREE.outboundChecks);
    for (const res of results.filter((r) => r.status !== 201)) expectError(res, 403, 'PLAN_LIMIT_EXCEEDED');
    const list = expectStatus(await t.request<Page>('GET', '/checks', { token: user.token }), 200);
    expect(list.total).toBe(FREE.outboundChecks);
  });

  it(`lets exactly ${FREE.checks} of 30 concurrent creates through, and a delete frees one slot`, async () => {
    const user = await t.signup('race-all');
    const results = await Promise.all(Array.from({ length: 30 }, () => t.request<DashboardCheck>('POST', '/checks', { token: user.token, body: inboundBody(user) })));
    const created = results.filter((res) => res.status === 201).map((res) => res.body);
    expect(created).toHaveLength(FREE.checks);
    for (const res of results.filter((r) => r.status !== 201)) expectError(res, 403, 'PLAN_LIMIT_EXCEEDED');

    freshRateWindow(t);
    const [first] = created;
    if (!first) throw new Error('nothing created');
    expectStatus(await t.request('DELETE', `/checks/${first.id}`, { token: user.token }), 204);
    // A second delete of the same check frees nothing more.
    expectError(await t.request('DELETE', `/checks/${first.id}`, { token: user.token }), 404);
    const again = await Promise.all(Array.from({ length: 3 }, () => t.request('POST', '/checks', { token: user.token, body: inboundBody(user) })));
    expect(again.filter((res) => res.status === 201)).toHaveLength(1);
  });

  it('gives the slot back when the create is refused after taking it (slug taken)', async () => {
    const user = await t.signup('slug-refund');
    const key = await t.apiKey(user);
    const job = { name: 'nightly', projectId: user.projectId, slug: 'nightly', intervalSeconds: 300 };
    expectStatus(await t.request('POST', '/v1/jobs', { token: key, body: job }), 201);
    for (let i = 0; i < 3; i++) expectError(await t.request('POST', '/v1/jobs', { token: key, body: job }), 409, 'SLUG_TAKEN');
    for (let i = 1; i < FREE.checks; i++) await createCheck(t, user, inboundBody(user));
    expectError(await t.request('POST', '/checks', { token: user.token, body: inboundBody(user) }), 403, 'PLAN_LIMIT_EXCEEDED');
  });

  it('frees the outbound slot of a check turned INBOUND', async () => {
    const user = await t.signup('mode-switch');
    const outbound: DashboardCheck[] = [];
    for (let i = 0; i < FREE.outboundChecks; i++) outbound.push(await createCheck(t, user, outboundBody(user, { intervalSeconds: 300 })));
    expectError(await t.request('POST', '/checks', { token: user.token, body: outboundBody(user, { intervalSeconds: 300 }) }), 403, 'PLAN_LIMIT_EXCEEDED');
    expectStatus(await t.request('PATCH', `/checks/${outbound[0]?.id}`, { token: user.token, body: { checkMode: 'INBOUND' } }), 200);
    expectStatus(await t.request('POST', '/checks', { token: user.token, body: outboundBody(user, { intervalSeconds: 300 }) }), 201);
  });
});

describe('check lists read their page', () => {
  it('pages in id order with the total, per workspace, project and mode; deleted checks are gone', async () => {
    const user = await t.signup('pages');
    const made: DashboardCheck[] = [];
    for (let i = 0; i < 12; i++) made.push(await createCheck(t, user, i % 4 === 0 ? outboundBody(user, { intervalSeconds: 300 }) : inboundBody(user)));
    expectStatus(await t.request('DELETE', `/checks/${made[1]?.id}`, { token: user.token }), 204);
    const live = made.filter((_, i) => i !== 1).map((c) => c.id);

    const second = expectStatus(await t.request<Page>('GET', `/checks?page=2&limit=5`, { token: user.token }), 200);
    expect({ total: second.total, pageCount: second.pageCount, itemCount: second.itemCount }).toEqual({ total: 11, pageCount: 3, itemCount: 5 });
    expect(second.items.map((c) => c.id)).toEqual(live.slice(5, 10));
    const byProject = expectStatus(await t.request<Page>('GET', `/checks?projectId=${user.projectId}&page=3&limit=5`, { token: user.token }), 200);
    expect(byProject.items.map((c) => c.id)).toEqual(live.slice(10));
    expect(byProject.total).toBe(11);

    const outboundIds = made.filter((c) => c.checkMode === 'OUTBOUND').map((c) => c.id);
    const outbound = expectStatus(await t.request<Page>('GET', `/checks?checkMode=OUTBOUND&limit=2`, { token: user.token }), 200);
    expect({ total: outbound.total, ids: outbound.items.map((c) => c.id) }).toEqual({ total: outboundIds.length, ids: outboundIds.slice(0, 2) });

    const key = await t.apiKey(user);
    const jobs = expectStatus(await t.request<Page>('GET', '/v1/jobs?limit=3&page=2', { token: key }), 200);
    const jobIds = live.filter((id) => !outboundIds.includes(id));
    expect({ total: jobs.total, ids: jobs.items.map((c) => (c as unknown as { id: number }).id) }).toEqual({ total: jobIds.length, ids: jobIds.slice(3, 6) });
  });
});
