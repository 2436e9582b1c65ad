import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { HttpError } from '../http/errors.js';
import { addMember, createCheck, deliver, incidentsOf, reported, type Page, type User } from '../../test/support/incidents.js';
import { assertDependenciesInWorkspace } from '../checks/dependencyRegistry.js';

type Dependency = { id: number; workspaceId: number; name: string; description: string | null; category: string | null; url: string | null; source: string; createdAt: string };
type Detail = Dependency & { workspace: { id: number; name: string }; checks: { id: number; name: string; link: string }[] };

let t: TestContext;
let owner: User;
let member: User;
let viewer: User;
let stranger: User;
beforeAll(async () => {
  t = await createTestContext();
  owner = await t.signup('owner');
  member = await t.signup('member');
  viewer = await t.signup('viewer');
  stranger = await t.signup('stranger');
  await addMember(t, owner, member, 'MEMBER');
  await addMember(t, owner, viewer, 'VIEWER');
});

const send = <T = Dependency>(user: User, method: string, path: string, body?: unknown) => t.request<T>(method, path, { token: user.token, body });

async function create(name: string, extra: Record<string, unknown> = {}, user = owner): Promise<Dependency> {
  const res = await send(user, 'POST', '/dependencies', { workspaceId: user.workspaceId, name, ...extra });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}

describe('POST /dependencies', () => {
  it('creates with every field; MEMBER may create', async () => {
    const res = await send(member, 'POST', '/dependencies', {
      workspaceId: owner.workspaceId,
      name: 'Primary DB',
      description: 'Postgres 16',
      category: 'DATABASE',
      url: 'https://db.example.com',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      workspaceId: owner.workspaceId,
      name: 'Primary DB',
      description: 'Postgres 16',
      category: 'DATABASE',
      url: 'https://db.example.com',
      source: 'MANUAL',
    });
  });

  it('keeps names unique per workspace, case-insensitively (409), but not across workspaces', async () => {
    await create('Queue');
    expectError(await send(owner, 'POST', '/dependencies', { workspaceId: owner.workspaceId, name: ' queue ' }), 409);
    expect((await create('Queue', {}, stranger)).name).toBe('Queue');
  });

  it('rejects bad bodies with 400 and foreign or forbidden workspaces with 404/403', async () => {
    const bad = [
      { name: 'x' },
      { workspaceId: owner.workspaceId },
      { workspaceId: owner.workspaceId, name: '' },
      { workspaceId: owner.workspaceId, name: 'n'.repeat(256) },
      { workspaceId: owner.workspaceId, name: 'x', description: '' },
      { workspaceId: owner.workspaceId, name: 'x', description: 'd'.repeat(256) },
      { workspaceId: owner.workspaceId, name: 'x', category: 'WEBSITE' },
      { workspaceId: owner.workspaceId, name: 'x', url: 'ftp://example.com' },
      { workspaceId: owner.workspaceId, name: 'x', url: `https://${'a'.repeat(2048)}` },
      { workspaceId: owner.workspaceId, name: 'x', status: 'DOWN' },
    ];
    for (const body of bad) expectError(await send(owner, 'POST', '/dependencies', body), 400, 'VALIDATION_ERROR');
    expectError(await send(stranger, 'POST', '/dependencies', { workspaceId: owner.workspaceId, name: 'intruder' }), 404);
    expectError(await send(viewer, 'POST', '/dependencies', { workspaceId: owner.workspaceId, name: 'viewer' }), 403);
    expectError(await t.request('POST', '/dependencies', { token: await t.apiKey(owner), body: { workspaceId: owner.workspaceId, name: 'k' } }), 401);
  });
});

describe('GET /dependencies', () => {
  it('paginates with limit 10 by default and orders by name, createdAt or id, ASC or DESC', async () => {
    const user = await t.signup('orderer');
    const names = ['delta', 'Alpha', 'charlie', 'bravo', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo'];
    const created: Dependency[] = [];
    for (const name of names) {
      created.push(await create(name, {}, user));
      t.clock.advanceSeconds(1);
    }
    const list = async (query: string) => {
      const res = await send<Page<Dependency>>(user, 'GET', `/dependencies?workspaceId=${user.workspaceId}${query}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const first = await list('');
    expect(first).toMatchObject({ total: 11, itemCount: 10, limit: 10, pageCount: 2, page: 1 });
    expect((await list('&page=2')).items).toHaveLength(1);
    expect((await list('&orderBy=name&order=ASC&limit=3')).items.map((d) => d.name)).toEqual(['Alpha', 'bravo', 'charlie']);
    expect((await list('&orderBy=name&order=desc&limit=2')).items.map((d) => d.name)).toEqual(['kilo', 'juliet']);
    expect((await list('&orderBy=id&order=ASC&limit=2')).items.map((d) => d.id)).toEqual(created.slice(0, 2).map((d) => d.id));
    expect((await list('&orderBy=createdAt&order=DESC&limit=1')).items[0]?.name).toBe('kilo');
    expect((await list('&orderBy=createdAt&order=ASC&limit=1')).items[0]?.name).toBe('delta');

    expectError(await send(user, 'GET', '/dependencies'), 400, 'VALIDATION_ERROR');
    expectError(await send(user, 'GET', `/dependencies?workspaceId=${user.workspaceId}&orderBy=url`), 400);
    expectError(await send(user, 'GET', `/dependencies?workspaceId=${user.workspaceId}&order=UP`), 400);
    expectError(await send(user, 'GET', `/dependencies?workspaceId=${user.workspaceId}&limit=0`), 400);
    expectError(await send(stranger, 'GET', `/dependencies?workspaceId=${user.workspaceId}`), 404);
  });
});

describe('GET /dependencies/:id', () => {
  it('returns the dependency with its workspace and linked checks (assigned, listed and reporting)', async () => {
    const dependency = await create('Linked cache', { category: 'CACHE' });
    const listing = await createCheck(t, owner, { name: 'lists it', dependencyIds: [dependency.id] });
    const owned = await createCheck(t, owner, { name: 'owned by it', projectId: undefined, dependencyId: dependency.id });
    const reporter = await createCheck(t, owner, { name: 'reports it' });
    await createCheck(t, owner, { name: 'unrelated' });
    await deliver(t, reported(reporter, t.clock.now(), [{ name: 'linked CACHE', status: 'ok' }]));

    const res = await send<Detail>(viewer, 'GET', `/dependencies/${dependency.id}`);
    expect(res.status).toBe(200);
    expect(res.body.workspace).toEqual({ id: owner.workspaceId, name: expect.any(String) });
    expect(res.body.checks.map((c) => [c.id, c.link]).sort()).toEqual(
      [
        [listing.id, 'DEPENDENCY_IDS'],
        [owned.id, 'DEPENDENCY'],
        [reporter.id, 'REPORTED'],
      ].sort(),
    );
    expectError(await send(stranger, 'GET', `/dependencies/${dependency.id}`), 404);
    expectError(await send(owner, 'GET', '/dependencies/999999'), 404);
    expectError(await send(owner, 'GET', '/dependencies/x'), 400);
  });
});

describe('PATCH /dependencies/:id', () => {
  it('needs ADMIN, renames under the uniqueness rule, and clears fields with null', async () => {
    const dependency = await create('Old name', { description: 'desc', url: 'https://old.example.com' });
    await create('Taken');
    expectError(await send(member, 'PATCH', `/dependencies/${dependency.id}`, { name: 'nope' }), 403);
    expectError(await send(stranger, 'PATCH', `/dependencies/${dependency.id}`, { name: 'nope' }), 404);
    expectError(await send(owner, 'PATCH', `/dependencies/${dependency.id}`, { name: 'taken' }), 409);
    expectError(await send(owner, 'PATCH', `/dependencies/${dependency.id}`, { workspaceId: stranger.workspaceId }), 400);
    expectError(await send(owner, 'PATCH', `/dependencies/${dependency.id}`, { category: 'SOMETHING' }), 400);

    t.clock.advanceSeconds(5);
    const res = await send(owner, 'PATCH', `/dependencies/${dependency.id}`, { name: 'New name', description: null, category: 'API', url: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New name', description: null, category: 'API', url: null, workspaceId: owner.workspaceId });
    // The old name is free again; the new one is taken.
    expect((await create('Old name')).name).toBe('Old name');
    expectError(await send(owner, 'POST', '/dependencies', { workspaceId: owner.workspaceId, name: 'new NAME' }), 409);
  });
});

describe('DELETE /dependencies/:id', () => {
  it('needs ADMIN; keeps linked checks without the association, resolves its open incidents, frees the name', async () => {
    const dependency = await create('Doomed');
    const other = await create('Survivor');
    const listing = await createCheck(t, owner, { dependencyIds: [dependency.id, other.id] });
    const owned = await createCheck(t, owner, { projectId: undefined, dependencyId: dependency.id });
    await deliver(t, reported(listing, t.clock.now(), [{ name: 'Doomed', status: 'down' }]));
    expect((await incidentsOf(t, owner, `&checkId=${listing.id}&state=ACTIVE`)).items).toHaveLength(1);

    expectError(await send(member, 'DELETE', `/dependencies/${dependency.id}`), 403);
    expectError(await send(stranger, 'DELETE', `/dependencies/${dependency.id}`), 404);
    expect((await send(owner, 'DELETE', `/dependencies/${dependency.id}`)).status).toBe(204);

    expectError(await send(owner, 'GET', `/dependencies/${dependency.id}`), 404);
    const keptListing = await send<{ dependencyIds?: number[] }>(owner, 'GET', `/checks/${listing.id}`);
    expect(keptListing.status).toBe(200);
    expect(keptListing.body.dependencyIds ?? []).toEqual([other.id]);
    const keptOwned = await send<{ dependencyId?: number | null }>(owner, 'GET', `/checks/${owned.id}`);
    expect(keptOwned.status).toBe(200);
    expect(keptOwned.body.dependencyId ?? null).toBeNull();
    const [incident] = (await incidentsOf(t, owner, `&checkId=${listing.id}`)).items;
    expect(incident).toMatchObject({ state: 'RESOLVED', dependencyName: 'Doomed', dependency: { name: 'Doomed' } });
    expect((await create('doomed')).name).toBe('doomed');
    expectError(await send(owner, 'DELETE', `/dependencies/${dependency.id}`), 404);
  });
});

describe('assertDependenciesInWorkspace', () => {
  it('returns the dependencies of the workspace and 404s for any other id', async () => {
    const mine = await create('Mine for checks');
    const theirs = await create('Theirs for checks', {}, stranger);
    const found = await assertDependenciesInWorkspace(t.deps, owner.workspaceId, [mine.id, mine.id]);
    expect(found.map((d) => d.dependencyId)).toEqual([mine.id]);
    expect(await assertDependenciesInWorkspace(t.deps, owner.workspaceId, [])).toEqual([]);
    for (const ids of [[theirs.id], [mine.id, theirs.id], [999_999]]) {
      await expect(assertDependenciesInWorkspace(t.deps, owner.workspaceId, ids)).rejects.toMatchObject({ status: 404 });
      await expect(assertDependenciesInWorkspace(t.deps, owner.workspaceId, ids)).rejects.toBeInstanceOf(HttpError);
    }
  });
});
