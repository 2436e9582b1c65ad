import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { DashboardCheck } from './schema.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, inboundBody, type User } from '../../test/support/checks.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('associations');
});
beforeEach(() => freshRateWindow(t));

const post = (body: unknown) => t.request<DashboardCheck>('POST', '/checks', { token: user.token, body });

describe('checks under a dependency', () => {
  async function dependencyOf(owner: User, name: string): Promise<number> {
    const dependencyId = await t.deps.store.nextId('dependency');
    const iso = t.clock.now().toISOString();
    await t.deps.store.entities.dependency.create({ dependencyId, workspaceId: owner.workspaceId, name, source: 'MANUAL', createdAt: iso, updatedAt: iso }).go();
    return dependencyId;
  }

  it("stores dependencyId with the workspace's first project (every check has one); outbound checks need a project", async () => {
    const dependencyId = await dependencyOf(user, 'postgres');
    const other = await dependencyOf(user, 'redis');
    const body = { name: 'db heartbeat', dependencyId, intervalSeconds: 300, graceSeconds: 10, dependencyIds: [other] };
    const check = expectStatus(await post(body), 201);
    expect(check).toMatchObject({ projectId: user.projectId, dependencyId, dependencyIds: [other], workspaceId: user.workspaceId });
    const byToken = expectStatus(await t.request<DashboardCheck>('GET', `/checks/token/${check.token}`, { token: user.token }), 200);
    expect(byToken.dependencyIds).toEqual([other]);
    expectError(await post({ ...body, checkMode: 'OUTBOUND', url: 'https://example.com', intervalSeconds: 60 }), 400);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { checkMode: 'OUTBOUND', url: 'https://example.com' } }), 400);

    const moved = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}/transfer`, { token: user.token, body: { projectId: user.projectId } }), 200);
    expect(moved).toMatchObject({ projectId: user.projectId, dependencyId: null });
    const inProject = async () =>
      expectStatus(await t.request<{ items: DashboardCheck[] }>('GET', `/checks?projectId=${user.projectId}&limit=100`, { token: user.token }), 200).items.map((c) => c.id);
    expect(await inProject()).toContain(check.id);
    const back = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { dependencyId } }), 200);
    expect(back).toMatchObject({ projectId: user.projectId, dependencyId });
    expect(await inProject()).toContain(check.id);
    const inWorkspace = expectStatus(await t.request<{ items: DashboardCheck[] }>('GET', `/checks?workspaceId=${user.workspaceId}&limit=100`, { token: user.token }), 200);
    expect(inWorkspace.items.map((c) => c.id)).toContain(check.id);
  });

  it('404s dependencies of another workspace', async () => {
    const stranger = await t.signup('dep-stranger');
    const foreign = await dependencyOf(stranger, 'their-db');
    expectError(await post({ name: 'x', dependencyId: foreign, intervalSeconds: 300, graceSeconds: 10 }), 404);
    expectError(await post(inboundBody(user, { dependencyIds: [foreign] })), 404);
    const check = await createCheck(t, user, inboundBody(user));
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { dependencyIds: [foreign] } }), 404);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { dependencyId: foreign } }), 404);
  });
});

describe('PATCH /checks/:id/transfer', () => {
  it('moves a check to another project of the same workspace only', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    const project = expectStatus(await t.request<{ id: number }>('POST', '/projects', { token: user.token, body: { name: 'target', workspaceId: user.workspaceId } }), 201);
    const moved = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}/transfer`, { token: user.token, body: { projectId: project.id } }), 200);
    expect(moved.projectId).toBe(project.id);
    const listed = expectStatus(await t.request<{ items: DashboardCheck[] }>('GET', `/checks?projectId=${project.id}`, { token: user.token }), 200);
    expect(listed.items.map((c) => c.id)).toEqual([check.id]);
    const old = expectStatus(await t.request<{ items: DashboardCheck[] }>('GET', `/checks?projectId=${user.projectId}&limit=100`, { token: user.token }), 200);
    expect(old.items.map((c) => c.id)).not.toContain(check.id);
    const other = await t.signup('elsewhere');
    expectError(await t.request('PATCH', `/checks/${check.id}/transfer`, { token: user.token, body: { projectId: other.projectId } }), 404);
    expectError(await t.request('PATCH', `/checks/${check.id}/transfer`, { token: user.token, body: {} }), 400);
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: user.token }), 200).projectId).toBe(project.id);
  });
});
