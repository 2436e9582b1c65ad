import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../auth/plans.js';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { addToWorkspace } from '../../test/support/identity.js';

type Workspace = { id: number; name: string; plan: string; role: string; limits: Record<string, unknown> };
type Member = { userId: number; email: string; name: string | null; role: string; createdAt: string };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_DEFAULT_PLAN: 'TEAM' });
});
// Sign-ups share a per-address limit of 20 a minute; each test starts a new window.
beforeEach(() => t.clock.advanceSeconds(61));

describe('workspaces', () => {
  it('lists the caller workspaces with role and plan limits', async () => {
    const user = await t.signup('ws-list');
    const res = await t.request<Workspace[]>('GET', '/workspaces', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([expect.objectContaining({ id: user.workspaceId, role: 'OWNER', plan: 'TEAM', limits: PLAN_LIMITS.TEAM })]);
  });

  it('creates a workspace on the default plan with the caller as OWNER and a Default project', async () => {
    const user = await t.signup('ws-create');
    const created = await t.request<Workspace>('POST', '/workspaces', { token: user.token, body: { name: '  Platform team ' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Platform team', plan: 'TEAM', role: 'OWNER', limits: PLAN_LIMITS.TEAM });
    const projects = await t.request<{ name: string }[]>('GET', `/projects?workspaceId=${created.body.id}`, { token: user.token });
    expect(projects.body.map((p) => p.name)).toEqual(['Default']);
    const list = await t.request<Workspace[]>('GET', '/workspaces', { token: user.token });
    expect(list.body.map((w) => w.id)).toEqual([user.workspaceId, created.body.id]);
    const members = await t.request<Member[]>('GET', `/workspaces/${created.body.id}/members`, { token: user.token });
    expect(members.body).toEqual([expect.objectContaining({ userId: user.userId, role: 'OWNER', email: user.email })]);
  });

  it('refuses bad create bodies and changes nothing', async () => {
    const user = await t.signup('ws-bad');
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(256) }, { name: 'ok', plan: 'BUSINESS' }, { name: 42 }]) {
      expectError(await t.request('POST', '/workspaces', { token: user.token, body }), 400, 'VALIDATION_ERROR');
    }
    const list = await t.request<Workspace[]>('GET', '/workspaces', { token: user.token });
    expect(list.body).toHaveLength(1);
  });

  it('gets one workspace; unknown and foreign ids are 404', async () => {
    const user = await t.signup('ws-get');
    const other = await t.signup('ws-get-other');
    const res = await t.request<Workspace>('GET', `/workspaces/${user.workspaceId}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.workspaceId, role: 'OWNER', limits: PLAN_LIMITS.TEAM });
    expectError(await t.request('GET', `/workspaces/${other.workspaceId}`, { token: user.token }), 404);
    expectError(await t.request('GET', '/workspaces/999999', { token: user.token }), 404);
    expectError(await t.request('GET', '/workspaces/abc', { token: user.token }), 400);
  });

  it('renames for an OWNER only; plan and unknown fields are refused', async () => {
    const owner = await t.signup('ws-rename');
    const admin = await t.signup('ws-rename-admin');
    await addToWorkspace(t, owner, admin, 'ADMIN');
    const path = `/workspaces/${owner.workspaceId}`;
    const renamed = await t.request<Workspace>('PATCH', path, { token: owner.token, body: { name: 'Renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
    expectError(await t.request('PATCH', path, { token: admin.token, body: { name: 'By admin' } }), 403);
    expectError(await t.request('PATCH', path, { token: owner.token, body: { plan: 'BUSINESS' } }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('PATCH', path, { token: owner.token, body: { name: '' } }), 400);
    const after = await t.request<Workspace>('GET', path, { token: owner.token });
    expect(after.body).toMatchObject({ name: 'Renamed', plan: 'TEAM' });
  });
});

describe('members', () => {
  it('adds an existing user by email, lists members, changes a role and removes', async () => {
    const owner = await t.signup('m-owner');
    const bob = await t.signup('m-bob');
    const added = await t.request<Member>('POST', `/workspaces/${owner.workspaceId}/members`, {
      token: owner.token,
      body: { email: bob.email.toUpperCase(), role: 'MEMBER' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ userId: bob.userId, email: bob.email, name: 'm-bob', role: 'MEMBER', createdAt: expect.any(String) });
    const list = await t.request<Member[]>('GET', `/workspaces/${owner.workspaceId}/members`, { token: bob.token });
    expect(list.body.map((m) => [m.userId, m.role])).toEqual([
      [owner.userId, 'OWNER'],
      [bob.userId, 'MEMBER'],
    ]);
    const me = await t.request<{ workspaces: { id: number; role: string }[] }>('GET', '/me', { token: bob.token });
    expect(me.body.workspaces).toContainEqual(expect.objectContaining({ id: owner.workspaceId, role: 'MEMBER' }));
    const promoted = await t.request<Member>('PATCH', `/workspaces/${owner.workspaceId}/members/${bob.userId}`, { token: owner.token, body: { role: 'ADMIN' } });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe('ADMIN');
    expect((await t.request('DELETE', `/workspaces/${owner.workspaceId}/members/${bob.userId}`, { token: owner.token })).status).toBe(204);
    expectError(await t.request('GET', `/workspaces/${owner.workspaceId}`, { token: bob.token }), 404);
  });

  it('refuses bad member bodies: unknown email 404, already a member 409, bad role 400', async () => {
    const owner = await t.signup('mb-owner');
    const carol = await t.signup('mb-carol');
    const path = `/workspaces/${owner.workspaceId}/members`;
    expectError(await t.request('POST', path, { token: owner.token, body: { email: 'nobody@example.com', role: 'MEMBER' } }), 404);
    expectError(await t.request('POST', path, { token: owner.token, body: { email: owner.email, role: 'MEMBER' } }), 409);
    expectError(await t.request('POST', path, { token: owner.token, body: { email: carol.email, role: 'SUPERUSER' } }), 400);
    expectError(await t.request('POST', path, { token: owner.token, body: { email: 'not-an-email', role: 'MEMBER' } }), 400);
    expectError(await t.request('POST', path, { token: owner.token, body: { email: carol.email } }), 400);
    expectError(await t.request('POST', path, { token: owner.token, body: { email: carol.email, role: 'MEMBER', userId: 1 } }), 400);
    await addToWorkspace(t, owner, carol, 'VIEWER');
    expectError(await t.request('POST', path, { token: owner.token, body: { email: carol.email, role: 'ADMIN' } }), 409);
    const memberPath = `${path}/${carol.userId}`;
    expectError(await t.request('PATCH', memberPath, { token: owner.token, body: { role: 'GOD' } }), 400);
    expectError(await t.request('PATCH', memberPath, { token: owner.token, body: {} }), 400);
    expectError(await t.request('PATCH', `${path}/999999`, { token: owner.token, body: { role: 'ADMIN' } }), 404);
    expectError(await t.request('DELETE', `${path}/999999`, { token: owner.token }), 404);
    const list = await t.request<Member[]>('GET', path, { token: owner.token });
    expect(list.body.map((m) => m.role)).toEqual(['OWNER', 'VIEWER']);
  });

  it('lets ADMIN manage members but not OWNERs; only an OWNER grants OWNER', async () => {
    const owner = await t.signup('mr-owner');
    const admin = await t.signup('mr-admin');
    const dave = await t.signup('mr-dave');
    const erin = await t.signup('mr-erin');
    await addToWorkspace(t, owner, admin, 'ADMIN');
    const path = `/workspaces/${owner.workspaceId}/members`;
    expectError(await t.request('POST', path, { token: admin.token, body: { email: dave.email, role: 'OWNER' } }), 403);
    expect((await t.request('POST', path, { token: admin.token, body: { email: dave.email, role: 'MEMBER' } })).status).toBe(201);
    expect((await t.request('PATCH', `${path}/${dave.userId}`, { token: admin.token, body: { role: 'VIEWER' } })).status).toBe(200);
    expectError(await t.request('PATCH', `${path}/${dave.userId}`, { token: admin.token, body: { role: 'OWNER' } }), 403);
    expectError(await t.request('PATCH', `${path}/${owner.userId}`, { token: admin.token, body: { role: 'MEMBER' } }), 403);
    expectError(await t.request('DELETE', `${path}/${owner.userId}`, { token: admin.token }), 403);
    // A MEMBER or VIEWER cannot add anyone.
    expectError(await t.request('POST', path, { token: dave.token, body: { email: erin.email, role: 'VIEWER' } }), 403);
    expect((await t.request('POST', path, { token: owner.token, body: { email: erin.email, role: 'OWNER' } })).status).toBe(201);
    expect((await t.request('DELETE', `${path}/${dave.userId}`, { token: admin.token })).status).toBe(204);
    const list = await t.request<Member[]>('GET', path, { token: owner.token });
    expect(list.body.map((m) => [m.userId, m.role])).toEqual([
      [owner.userId, 'OWNER'],
      [admin.userId, 'ADMIN'],
      [erin.userId, 'OWNER'],
    ]);
  });

  it('never leaves a workspace without an OWNER', async () => {
    const owner = await t.signup('lo-owner');
    const frank = await t.signup('lo-frank');
    const path = `/workspaces/${owner.workspaceId}/members`;
    expectError(await t.request('PATCH', `${path}/${owner.userId}`, { token: owner.token, body: { role: 'ADMIN' } }), 409);
    expectError(await t.request('DELETE', `${path}/${owner.userId}`, { token: owner.token }), 409);
    await addToWorkspace(t, owner, frank, 'OWNER');
    // Two owners demoting each other at the same moment: at least one OWNER must survive.
    const [a, b] = await Promise.all([
      t.request('PATCH', `${path}/${frank.userId}`, { token: owner.token, body: { role: 'ADMIN' } }),
      t.request('PATCH', `${path}/${owner.userId}`, { token: frank.token, body: { role: 'ADMIN' } }),
    ]);
    expect([a.status, b.status]).not.toEqual([200, 200]);
    const list = await t.request<Member[]>('GET', path, { token: owner.token });
    const owners = list.body.filter((m) => m.role === 'OWNER');
    expect(owners.length).toBeGreaterThanOrEqual(1);
  });

  it('lets any member leave, and an OWNER leave once another OWNER exists', async () => {
    const owner = await t.signup('lv-owner');
    const gina = await t.signup('lv-gina');
    const hank = await t.signup('lv-hank');
    await addToWorkspace(t, owner, gina, 'VIEWER');
    await addToWorkspace(t, owner, hank, 'OWNER');
    const path = `/workspaces/${owner.workspaceId}/members`;
    expectError(await t.request('DELETE', `${path}/${owner.userId}`, { token: gina.token }), 403);
    expect((await t.request('DELETE', `${path}/${gina.userId}`, { token: gina.token })).status).toBe(204);
    expect((await t.request('DELETE', `${path}/${owner.userId}`, { token: owner.token })).status).toBe(204);
    const list = await t.request<Member[]>('GET', path, { token: hank.token });
    expect(list.body.map((m) => [m.userId, m.role])).toEqual([[hank.userId, 'OWNER']]);
  });
});
