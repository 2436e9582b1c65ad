import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { MAX_HISTORY_DEPTH } from './schema.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

describe('signal history depth', () => {
  it('answers pages within MAX_HISTORY_DEPTH signals and 400s past it', async () => {
    const user = await t.signup('history-depth');
    const check = await t.request<{ token: string }>('POST', '/checks', {
      token: user.token,
      body: { name: 'deep', projectId: user.projectId, intervalSeconds: 300, graceSeconds: 30 },
    });
    const path = `/signals/token/${check.body.token}`;
    expect((await t.request('GET', `${path}?page=${MAX_HISTORY_DEPTH / 100}&limit=100`, { token: user.token })).status).toBe(200);
    const deep = expectError(await t.request('GET', `${path}?page=${MAX_HISTORY_DEPTH / 100 + 1}&limit=100`, { token: user.token }), 400);
    expect(deep.message).toMatch(/startDate|endDate/);
    expectError(await t.request('GET', `${path}?page=10000&limit=100`, { token: user.token }), 400);
  });
});
