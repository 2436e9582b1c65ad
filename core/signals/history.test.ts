import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { Signal } from './schema.js';
import { createJob } from '../../test/support/signals.js';

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let token: string;
let times: string[];
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('historian');
  const key = await t.apiKey(user);
  ({ token } = await createJob(t, user, key));
  times = [];
  for (let i = 0; i < 25; i++) {
    times.push(t.clock.now().toISOString());
    const res = await t.request('POST', `/signals/ping/${token}`, i % 2 === 0 ? { body: { run: i } } : { rawBody: `run ${i}` });
    expect(res.status).toBe(200);
    t.clock.advanceSeconds(2);
  }
});

type SignalPage = { items: Signal[]; total: number; page: number; itemCount: number; pageCount: number; limit: number };
const history = (query = '', as = user.token) => t.request<SignalPage>('GET', `/signals/token/${token}${query}`, { token: as });

describe('signal history', () => {
  it('pages newest first with limit 20 by default and a total', async () => {
    const first = await history();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 25, page: 1, itemCount: 20, pageCount: 2, limit: 20 });
    expect(first.body.items.map((s) => s.receivedAt)).toEqual([...times].reverse().slice(0, 20));
    expect(first.body.items[0]).toMatchObject({ type: 'SUCCESS', payload: { run: 24 }, method: 'POST', sourceIp: '127.0.0.1' });
    expect(first.body.items[1]).toMatchObject({ payload: 'run 23' });
    const second = await history('?page=2');
    expect(second.body).toMatchObject({ total: 25, page: 2, itemCount: 5 });
    expect(second.body.items.map((s) => s.receivedAt)).toEqual(times.slice(0, 5).reverse());
    expect((await history('?limit=100')).body.itemCount).toBe(25);
    expect((await history('?page=9')).body).toMatchObject({ items: [], total: 25 });
  });

  it('filters by startDate and endDate, both inclusive', async () => {
    const res = await history(`?startDate=${times[3]}&endDate=${times[6]}`);
    expect(res.body.items.map((s) => s.receivedAt)).toEqual([times[6], times[5], times[4], times[3]]);
    expect(res.body.total).toBe(4);
    const offset = await history(`?startDate=${encodeURIComponent('2026-03-01T13:00:40+01:00')}`);
    expect(offset.body.items.map((s) => s.receivedAt)).toEqual([...times].reverse().filter((at) => at >= '2026-03-01T12:00:40.000Z'));
  });

  it('400s bad query values', async () => {
    for (const query of ['?limit=101', '?limit=0', '?page=0', '?page=x', '?startDate=yesterday', '?endDate=2026-13-01T00:00:00Z', `?startDate=${times[6]}&endDate=${times[3]}`]) {
      expectError(await history(query), 400);
    }
  });

  it('404s unknown tokens and checks of other workspaces; 401s without a session', async () => {
    expectError(await t.request('GET', '/signals/token/00000000-0000-4000-8000-000000000000', { token: user.token }), 404, 'CHECK_NOT_FOUND');
    const stranger = await t.signup('stranger');
    expectError(await history('', stranger.token), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('GET', `/signals/token/${token}`), 401);
    expectError(await history('', await t.apiKey(user)), 401);
  });

  it('leaves out signals past their TTL', async () => {
    const login = async () =>
      (await t.request<{ access_token: string }>('POST', '/oauth/token', { body: { grant_type: 'password', username: user.email, password: user.password } })).body.access_token;
    t.clock.advanceSeconds(30 * 86_400 - 10);
    const some = await history('?limit=100', await login());
    expect(some.body.total).toBeGreaterThan(0);
    expect(some.body.total).toBeLessThan(25);
    t.clock.advanceSeconds(60);
    expect((await history('', await login())).body).toMatchObject({ items: [], total: 0 });
  });
});
