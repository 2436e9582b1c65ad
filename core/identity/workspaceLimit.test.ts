import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { loadConfig } from '../config.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_MAX_WORKSPACES_PER_USER: '3' });
});

describe('workspaces per user', () => {
  it('defaults to 10', () => {
    expect(loadConfig({}).maxWorkspacesPerUser).toBe(10);
  });

  it('lets a user create workspaces up to the limit (the sign-up one counts), then 403s', async () => {
    const user = await t.signup('many-workspaces');
    for (const name of ['second', 'third']) {
      expect((await t.request('POST', '/workspaces', { token: user.token, body: { name } })).status).toBe(201);
    }
    const refused = await t.request('POST', '/workspaces', { token: user.token, body: { name: 'fourth' } });
    expect(expectError(refused, 403, 'PLAN_LIMIT_EXCEEDED').message).toMatch(/3 workspaces/);
    const list = await t.request<unknown[]>('GET', '/workspaces', { token: user.token });
    expect(list.body).toHaveLength(3);
    const other = await t.signup('few-workspaces');
    expect((await t.request('POST', '/workspaces', { token: other.token, body: { name: 'theirs' } })).status).toBe(201);
  });
});
