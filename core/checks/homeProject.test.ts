import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import type { DashboardCheck, JobV1 } from './schema.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, type User } from '../../test/support/checks.js';

let t: TestContext;
let user: User;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('home-project');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

const dependencyOf = async (name: string) =>
  expectStatus(await t.request<{ id: number }>('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name } }), 201);

describe('every check belongs to a project', () => {
  it("puts a check created under a dependency in the workspace's first project, an integer on /v1/jobs", async () => {
    const dependency = await dependencyOf('billing api');
    const check = await createCheck(t, user, { name: 'under a dependency', dependencyId: dependency.id, intervalSeconds: 300, graceSeconds: 30 });
    expect(check).toMatchObject({ projectId: user.projectId, dependencyId: dependency.id });
    const job = expectStatus(await t.request<JobV1>('GET', `/v1/jobs/${check.id}`, { token: key }), 200);
    expect(job.projectId).toBe(user.projectId);
    const list = expectStatus(await t.request<{ items: JobV1[] }>('GET', '/v1/jobs?limit=100', { token: key }), 200);
    for (const item of list.items) expect(Number.isInteger(item.projectId)).toBe(true);
    // It changes like any check, keeping its dependency and its project.
    const renamed = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { name: 'renamed' } }), 200);
    expect(renamed).toMatchObject({ projectId: user.projectId, dependencyId: dependency.id });
  });

  it('keeps its project when its dependency is deleted', async () => {
    const dependency = await dependencyOf('queue');
    const check = await createCheck(t, user, { name: 'orphan-to-be', dependencyId: dependency.id, intervalSeconds: 300, graceSeconds: 30 });
    expect((await t.request('DELETE', `/dependencies/${dependency.id}`, { token: user.token })).status).toBe(204);
    const after = expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: user.token }), 200);
    expect(after).toMatchObject({ projectId: user.projectId, dependencyId: null });
    expect(expectStatus(await t.request<JobV1>('GET', `/v1/jobs/${check.id}`, { token: key }), 200).projectId).toBe(user.projectId);
  });
});
