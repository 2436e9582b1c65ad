import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext, type TestResponse } from '../../test/harness.js';
import { createTeam, type Team, type TestUser } from '../../test/support/identity.js';

let t: TestContext;
let team: Team;
let foreign: Team;
beforeAll(async () => {
  t = await createTestContext();
  team = await createTeam(t, 'acl');
  t.clock.advanceSeconds(61); // a fresh window of the per-address sign-up limit
  foreign = await createTeam(t, 'far');
});

type Role = 'owner' | 'admin' | 'member' | 'viewer' | 'outsider';
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer', 'outsider'];

/** Representative routes per minimum role, each returning the status it answered. */
const routes: { name: string; minimum: Role; call: (user: TestUser) => Promise<TestResponse<unknown>>; ok: number }[] = [
  { name: 'read projects', minimum: 'viewer', ok: 200, call: (u) => t.request('GET', `/projects?workspaceId=${team.workspaceId}`, { token: u.token }) },
  { name: 'read workspace', minimum: 'viewer', ok: 200, call: (u) => t.request('GET', `/workspaces/${team.workspaceId}`, { token: u.token }) },
  { name: 'read members', minimum: 'viewer', ok: 200, call: (u) => t.request('GET', `/workspaces/${team.workspaceId}/members`, { token: u.token }) },
  { name: 'read alert channels', minimum: 'viewer', ok: 200, call: (u) => t.request('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: u.token }) },
  { name: 'create project', minimum: 'member', ok: 201, call: (u) => t.request('POST', '/projects', { token: u.token, body: { workspaceId: team.workspaceId, name: 'p' } }) },
  { name: 'rename project', minimum: 'member', ok: 200, call: (u) => t.request('PATCH', `/projects/${team.projectId}`, { token: u.token, body: { description: 'd' } }) },
  { name: 'list API keys', minimum: 'admin', ok: 200, call: (u) => t.request('GET', `/api-keys?workspaceId=${team.workspaceId}`, { token: u.token }) },
  { name: 'create API key', minimum: 'admin', ok: 201, call: (u) => t.request('POST', '/api-keys', { token: u.token, body: { workspaceId: team.workspaceId, name: 'k' } }) },
  {
    name: 'create alert channel',
    minimum: 'admin',
    ok: 201,
    call: (u) => t.request('POST', '/alert-channels', { token: u.token, body: { workspaceId: team.workspaceId, name: 'c', type: 'EMAIL', config: { email: 'c@example.com' } } }),
  },
  { name: 'rename workspace', minimum: 'owner', ok: 200, call: (u) => t.request('PATCH', `/workspaces/${team.workspaceId}`, { token: u.token, body: { name: 'Acl' } }) },
];

const rank: Record<Role, number> = { outsider: -1, viewer: 0, member: 1, admin: 2, owner: 3 };

describe('role x route matrix (session tokens)', () => {
  for (const route of routes) {
    it(`${route.name}: ${route.minimum} or higher`, async () => {
      for (const role of ROLES) {
        const res = await route.call(team[role]);
        const expected = role === 'outsider' ? 404 : rank[role] >= rank[route.minimum] ? route.ok : 403;
        if (expected >= 400) expectError(res, expected);
        else expect(res.status, `${role} on ${route.name}: ${res.text}`).toBe(expected);
      }
    });
  }
});

describe('API keys: permission, surface and state', () => {
  it('read_only reads and gets 403 on writes; read_write writes; both stay in their workspace', async () => {
    const readOnly = await t.apiKey(team.owner, { permission: 'read_only' });
    const readWrite = await t.apiKey(team.owner, { permission: 'read_write' });
    expect((await t.request('GET', '/v1/projects', { token: readOnly })).status).toBe(200);
    expect((await t.request('GET', `/v1/projects/${team.projectId}`, { token: readOnly })).status).toBe(200);
    expectError(await t.request('POST', '/v1/projects', { token: readOnly, body: { name: 'ro' } }), 403);
    expect((await t.request('POST', '/v1/projects', { token: readWrite, body: { name: 'rw' } })).status).toBe(201);
    expectError(await t.request('GET', `/v1/projects/${foreign.projectId}`, { token: readWrite }), 404);
    const whoami = await t.request<{ apiKey: { permission: string } }>('GET', '/v1/whoami', { token: readOnly });
    expect(whoami.body.apiKey.permission).toBe('read_only');
  });

  it('an API key on any dashboard route is 401, a session token on /v1 is 401', async () => {
    const key = await t.apiKey(team.owner);
    for (const path of ['/me', '/projects', '/api-keys', '/workspaces', `/workspaces/${team.workspaceId}/members`, '/alert-channels']) {
      expectError(await t.request('GET', path, { token: key }), 401);
    }
    expectError(await t.request('POST', '/projects', { token: key, body: { workspaceId: team.workspaceId, name: 'via key' } }), 401);
    for (const path of ['/v1/whoami', '/v1/projects', `/v1/projects/${team.projectId}`]) {
      expectError(await t.request('GET', path, { token: team.owner.token }), 401);
    }
  });

  it('a disabled key is 401 until re-enabled; a deleted key is 401 for good', async () => {
    const key = await t.apiKey(team.owner);
    const keys = await t.request<{ id: number; lastFour: string }[]>('GET', `/api-keys?workspaceId=${team.workspaceId}`, { token: team.owner.token });
    const id = keys.body.find((k) => k.lastFour === key.slice(-4))?.id;
    expect((await t.request('PATCH', `/api-keys/${id}`, { token: team.admin.token, body: { enabled: false } })).status).toBe(200);
    expectError(await t.request('GET', '/v1/whoami', { token: key }), 401);
    expect((await t.request('PATCH', `/api-keys/${id}`, { token: team.admin.token, body: { enabled: true } })).status).toBe(200);
    expect((await t.request('GET', '/v1/whoami', { token: key })).status).toBe(200);
    expect((await t.request('DELETE', `/api-keys/${id}`, { token: team.admin.token })).status).toBe(204);
    expectError(await t.request('GET', '/v1/whoami', { token: key }), 401);
  });

  it('an expired access token is 401 on every dashboard route', async () => {
    const user = await t.signup('acl-expiring');
    expect((await t.request('GET', '/workspaces', { token: user.token })).status).toBe(200);
    t.clock.advanceSeconds(t.config.accessTokenTtlSeconds + 1);
    for (const path of ['/workspaces', '/projects', '/alert-channels', '/me']) {
      expectError(await t.request('GET', path, { token: user.token }), 401, 'TOKEN_EXPIRED');
    }
  });
});
