import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam as createWorkspaceTeam, type Team as Workspace } from '../../test/support/identity.js';

type Member = { id: number; userId: number; email: string; name: string | null };
type Team = { id: number; workspaceId: number; name: string; description: string | null; members: Member[] };
type Page<T> = { items: T[]; total: number; page: number; itemCount: number; pageCount: number; limit: number };

let t: TestContext;
let ws: Workspace;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createWorkspaceTeam(t, 'teams');
});
beforeEach(() => t.clock.advanceSeconds(61));

const newTeam = (token: string, body: unknown) => t.request<Team>('POST', '/teams', { token, body });

describe('teams', () => {
  it('creates, reads, lists (paginated, by id), renames and deletes a team', async () => {
    const { admin, viewer, workspaceId } = ws;
    const created = await newTeam(admin.token, { workspaceId, name: 'Platform', description: 'Keeps the lights on' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ workspaceId, name: 'Platform', description: 'Keeps the lights on', members: [] });
    const second = await newTeam(admin.token, { workspaceId, name: 'Data' });
    expect(second.body.description).toBeNull();

    const got = await t.request<Team>('GET', `/teams/${created.body.id}`, { token: viewer.token });
    expect(got.status).toBe(200);
    expect(got.body.name).toBe('Platform');

    const page1 = await t.request<Page<Team>>('GET', `/teams?workspaceId=${workspaceId}&limit=1`, { token: viewer.token });
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ total: 2, page: 1, itemCount: 1, pageCount: 2, limit: 1 });
    expect(page1.body.items[0]?.id).toBe(created.body.id);
    const page2 = await t.request<Page<Team>>('GET', `/teams?workspaceId=${workspaceId}&limit=1&page=2`, { token: viewer.token });
    expect(page2.body.items.map((x) => x.id)).toEqual([second.body.id]);

    const renamed = await t.request<Team>('PUT', `/teams/${created.body.id}`, { token: admin.token, body: { name: 'Infra', description: null } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Infra', description: null });

    expect((await t.request('DELETE', `/teams/${second.body.id}`, { token: admin.token })).status).toBe(204);
    expectError(await t.request('GET', `/teams/${second.body.id}`, { token: admin.token }), 404);
  });

  it('adds members of the workspace once each (409 the second time) and removes them', async () => {
    const { admin, member, viewer, workspaceId } = ws;
    const team = (await newTeam(admin.token, { workspaceId, name: 'SRE' })).body;
    const added = await t.request<Member & { teamId: number }>('POST', '/team-members', { token: admin.token, body: { teamId: team.id, userId: member.userId } });
    expect(added.status, added.text).toBe(201);
    expect(added.body).toMatchObject({ teamId: team.id, userId: member.userId, email: member.email });
    await t.request('POST', '/team-members', { token: admin.token, body: { teamId: team.id, userId: viewer.userId } });
    expectError(await t.request('POST', '/team-members', { token: admin.token, body: { teamId: team.id, userId: member.userId } }), 409);

    const got = await t.request<Team>('GET', `/teams/${team.id}`, { token: viewer.token });
    expect(got.body.members.map((m) => m.userId).sort()).toEqual([member.userId, viewer.userId].sort());
    expect(got.body.members.find((m) => m.userId === member.userId)).toEqual({ id: added.body.id, userId: member.userId, email: member.email, name: expect.any(String) });

    expect((await t.request('DELETE', `/team-members/${added.body.id}`, { token: admin.token })).status).toBe(204);
    expectError(await t.request('DELETE', `/team-members/${added.body.id}`, { token: admin.token }), 404);
    expect((await t.request<Team>('GET', `/teams/${team.id}`, { token: viewer.token })).body.members.map((m) => m.userId)).toEqual([viewer.userId]);
    // Back in after leaving: the pair is free again.
    expect((await t.request('POST', '/team-members', { token: admin.token, body: { teamId: team.id, userId: member.userId } })).status).toBe(201);
  });

  it('refuses users outside the workspace and foreign teams with 404', async () => {
    const { admin, outsider, workspaceId } = ws;
    const team = (await newTeam(admin.token, { workspaceId, name: 'Closed' })).body;
    expectError(await t.request('POST', '/team-members', { token: admin.token, body: { teamId: team.id, userId: outsider.userId } }), 404);
    expectError(await t.request('POST', '/team-members', { token: admin.token, body: { teamId: team.id, userId: 999_999 } }), 404);

    const foreign = (await newTeam(outsider.token, { workspaceId: outsider.workspaceId, name: 'Theirs' })).body;
    const member = (await t.request<{ id: number }>('POST', '/team-members', { token: outsider.token, body: { teamId: foreign.id, userId: outsider.userId } })).body;
    expectError(await t.request('GET', `/teams/${foreign.id}`, { token: admin.token }), 404);
    expectError(await t.request('PUT', `/teams/${foreign.id}`, { token: admin.token, body: { name: 'x' } }), 404);
    expectError(await t.request('DELETE', `/teams/${foreign.id}`, { token: admin.token }), 404);
    expectError(await t.request('DELETE', `/team-members/${member.id}`, { token: admin.token }), 404);
    expectError(await t.request('POST', '/team-members', { token: admin.token, body: { teamId: foreign.id, userId: admin.userId } }), 404);
    expectError(await newTeam(admin.token, { workspaceId: outsider.workspaceId, name: 'Sneaky' }), 404);
    expectError(await t.request('GET', `/teams?workspaceId=${outsider.workspaceId}`, { token: admin.token }), 404);
  });

  it('lets VIEWER and MEMBER read but only ADMIN write', async () => {
    const { admin, member, viewer, workspaceId } = ws;
    const team = (await newTeam(admin.token, { workspaceId, name: 'Roles' })).body;
    for (const user of [member, viewer]) {
      expectError(await newTeam(user.token, { workspaceId, name: 'Nope' }), 403);
      expectError(await t.request('PUT', `/teams/${team.id}`, { token: user.token, body: { name: 'x' } }), 403);
      expectError(await t.request('DELETE', `/teams/${team.id}`, { token: user.token }), 403);
      expectError(await t.request('POST', '/team-members', { token: user.token, body: { teamId: team.id, userId: user.userId } }), 403);
      expect((await t.request('GET', `/teams/${team.id}`, { token: user.token })).status).toBe(200);
    }
    expectError(await t.request('GET', `/teams/${team.id}`), 401);
  });

  it('answers bad input with 400 in the error shape', async () => {
    const { admin, workspaceId } = ws;
    for (const body of [{ workspaceId, name: '' }, { name: 'x' }, { workspaceId, name: 'x', extra: 1 }, { workspaceId: 'one', name: 'x' }]) {
      const err = expectError(await newTeam(admin.token, body), 400) as { details?: unknown[] };
      expect(err.details?.length ?? 0).toBeGreaterThan(0);
    }
    expectError(await t.request('GET', '/teams', { token: admin.token }), 400);
    expectError(await t.request('GET', `/teams?workspaceId=${workspaceId}&limit=101`, { token: admin.token }), 400);
    expectError(await t.request('GET', '/teams/abc', { token: admin.token }), 400);
    expectError(await t.request('POST', '/team-members', { token: admin.token, body: { teamId: 1 } }), 400);
  });
});
