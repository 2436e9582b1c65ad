import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { PLAN_LIMITS } from '../auth/plans.js';
import { MAX_REPORTED_DEPENDENCIES } from '../signals/schema.js';
import type { User } from '../../test/support/users.js';

type Page = { total: number; items: { name: string }[] };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' });
});
beforeEach(() => t.clock.advanceSeconds(61));

async function jobOf(user: User): Promise<string> {
  const res = await t.request<{ token: string }>('POST', '/checks', {
    token: user.token,
    body: { name: 'reporter', projectId: user.projectId, intervalSeconds: 300, graceSeconds: 30 },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.token;
}

async function report(token: string, names: string[]): Promise<void> {
  t.clock.advanceSeconds(2);
  const res = await t.request('POST', `/signals/ping/${token}`, { body: { dependencies: names.map((name) => ({ name, status: 'ok' })) } });
  expect(res.status, res.text).toBe(200);
  await t.deps.queue.drain();
}

const listed = async (user: User): Promise<Page> => (await t.request<Page>('GET', `/dependencies?workspaceId=${user.workspaceId}&limit=100`, { token: user.token })).body;

describe('dependency limits', () => {
  it('registers at most MAX_REPORTED_DEPENDENCIES from one payload', async () => {
    const user = await t.signup('deps-payload');
    const token = await jobOf(user);
    await report(
      token,
      Array.from({ length: 60 }, (_, i) => `svc-${i}`),
    );
    expect((await listed(user)).total).toBe(MAX_REPORTED_DEPENDENCIES);
  });

  it('stops at the plan limit per workspace, for reported and manual dependencies alike', async () => {
    const user = await t.signup('deps-plan');
    await t.deps.store.entities.workspace.patch({ workspaceId: user.workspaceId }).set({ plan: 'FREE' }).go();
    const limit = PLAN_LIMITS.FREE.dependencies;
    const token = await jobOf(user);
    for (let round = 0; round * MAX_REPORTED_DEPENDENCIES < limit + 5; round++) {
      await report(
        token,
        Array.from({ length: MAX_REPORTED_DEPENDENCIES }, (_, i) => `round${round}-svc-${i}`),
      );
    }
    expect((await listed(user)).total).toBe(limit);
    const manual = await t.request('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name: 'one too many' } });
    expectError(manual, 403, 'PLAN_LIMIT_EXCEEDED');
    // A known name still reports (no new slot needed), and deleting one frees a slot.
    await report(token, ['round0-svc-0']);
    const first = (await t.request<Page & { items: { id: number }[] }>('GET', `/dependencies?workspaceId=${user.workspaceId}&limit=1`, { token: user.token })).body.items[0];
    expect((await t.request('DELETE', `/dependencies/${first?.id}`, { token: user.token })).status).toBe(204);
    expect((await t.request('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name: 'fits now' } })).status).toBe(201);
  });

  it('trims reported names and ignores over-long ones', async () => {
    const user = await t.signup('deps-names');
    const token = await jobOf(user);
    await report(token, ['  padded  ', 'x'.repeat(300), 'fine']);
    const names = (await listed(user)).items.map((d) => d.name).sort();
    expect(names).toEqual(['fine', 'padded']);
  });
});

describe('dependency url', () => {
  it('must parse as an http or https URL, not just start like one', async () => {
    const user = await t.signup('deps-url');
    for (const url of ['https://', 'http://exa mple.com/', 'https://[::1', 'http://:80/x']) {
      const res = await t.request('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name: `bad ${url}`, url } });
      expectError(res, 400, 'VALIDATION_ERROR');
    }
    expectError(await t.request('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name: 'ftp', url: 'ftp://example.com/' } }), 400);
    const ok = await t.request<{ id: number; url: string }>('POST', '/dependencies', {
      token: user.token,
      body: { workspaceId: user.workspaceId, name: 'good', url: 'https://status.example.com/api' },
    });
    expect(ok.status).toBe(201);
    expectError(await t.request('PATCH', `/dependencies/${ok.body.id}`, { token: user.token, body: { url: 'https://' } }), 400);
  });
});
