import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../auth/secrets.js';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { addToWorkspace } from '../../test/support/identity.js';

type Project = { id: number; workspaceId: number; name: string; description: string | null; createdAt: string; updatedAt: string };
type ApiKey = {
  id: number;
  workspaceId: number;
  name: string;
  permission: string;
  kind: string;
  enabled: boolean;
  displayPrefix: string;
  lastFour: string;
  lastUsedAt: string | null;
  key?: string;
};

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
beforeEach(() => t.clock.advanceSeconds(61));

describe('projects (dashboard)', () => {
  it('creates, lists, gets, updates and deletes', async () => {
    const user = await t.signup('proj');
    const created = await t.request<Project>('POST', '/projects', { token: user.token, body: { name: ' API ', description: 'the public API' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ workspaceId: user.workspaceId, name: 'API', description: 'the public API' });
    const list = await t.request<Project[]>('GET', '/projects', { token: user.token });
    expect(list.body.map((p) => p.name)).toEqual(['Default', 'API']);
    const path = `/projects/${created.body.id}`;
    expect((await t.request<Project>('GET', path, { token: user.token })).body).toEqual(created.body);
    t.clock.advanceSeconds(5);
    const updated = await t.request<Project>('PATCH', path, { token: user.token, body: { name: 'Public API', description: null } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Public API', description: null, createdAt: created.body.createdAt });
    expect(updated.body.updatedAt > created.body.updatedAt).toBe(true);
    expect((await t.request<Project>('GET', path, { token: user.token })).body).toEqual(updated.body);
    expect((await t.request('DELETE', path, { token: user.token })).status).toBe(204);
    expectError(await t.request('GET', path, { token: user.token }), 404);
  });

  it('refuses bad inputs with 400 in the error shape and changes nothing', async () => {
    const user = await t.signup('proj-bad');
    const bad: unknown[] = [{}, { name: '' }, { name: 'x'.repeat(256) }, { name: 'ok', description: 'd'.repeat(256) }, { name: 'ok', id: 5 }, { name: 'ok', workspaceId: 'one' }];
    for (const body of bad) expectError(await t.request('POST', '/projects', { token: user.token, body }), 400, 'VALIDATION_ERROR');
    const path = `/projects/${user.projectId}`;
    for (const body of [{ name: '' }, { workspaceId: 2 }, { name: 7 }]) {
      expectError(await t.request('PATCH', path, { token: user.token, body }), 400);
    }
    expectError(await t.request('GET', '/projects/not-a-number', { token: user.token }), 400);
    expectError(await t.request('GET', '/projects/0', { token: user.token }), 400);
    expectError(await t.request('GET', '/projects/99999999', { token: user.token }), 404);
    const list = await t.request<Project[]>('GET', '/projects', { token: user.token });
    expect(list.body).toEqual([expect.objectContaining({ id: user.projectId, name: 'Default', description: null })]);
  });

  it('needs workspaceId when the user belongs to more than one workspace', async () => {
    const owner = await t.signup('proj-multi');
    const other = await t.signup('proj-multi-2');
    await addToWorkspace(t, owner, other, 'MEMBER');
    const err = expectError(await t.request('GET', '/projects', { token: other.token }), 400) as { details?: { path: string }[] };
    expect(err.details?.[0]?.path).toBe('workspaceId');
    expect((await t.request('GET', `/projects?workspaceId=${owner.workspaceId}`, { token: other.token })).status).toBe(200);
  });
});

describe('projects (/v1)', () => {
  it('lists in the paginated envelope, creates and gets', async () => {
    const user = await t.signup('proj-v1');
    const key = await t.apiKey(user);
    for (const name of ['b', 'c']) expect((await t.request('POST', '/v1/projects', { token: key, body: { name } })).status).toBe(201);
    const page = await t.request<{ items: Project[]; total: number; page: number; itemCount: number; pageCount: number; limit: number }>('GET', '/v1/projects?page=2&limit=2', {
      token: key,
    });
    expect(page.body).toMatchObject({ total: 3, page: 2, itemCount: 1, pageCount: 2, limit: 2 });
    expect(page.body.items.map((p) => p.name)).toEqual(['c']);
    expectError(await t.request('GET', '/v1/projects?limit=101', { token: key }), 400);
    expectError(await t.request('GET', '/v1/projects?page=0', { token: key }), 400);
    expectError(await t.request('POST', '/v1/projects', { token: key, body: { name: 'x', workspaceId: user.workspaceId } }), 400);
  });
});

describe('API keys', () => {
  it('shows the key once, stores only its hash, and lists metadata', async () => {
    const user = await t.signup('keys');
    const created = await t.request<ApiKey>('POST', '/api-keys', { token: user.token, body: { name: 'CI', permission: 'read_only', kind: 'ping' } });
    expect(created.status).toBe(201);
    const key = created.body.key ?? '';
    expect(key).toMatch(/^vigil_[0-9a-f]{56}$/);
    expect(created.body).toMatchObject({
      name: 'CI',
      permission: 'read_only',
      kind: 'ping',
      enabled: true,
      lastFour: key.slice(-4),
      displayPrefix: key.slice(0, 10),
      lastUsedAt: null,
    });
    const list = await t.request<ApiKey[]>('GET', '/api-keys', { token: user.token });
    expect(list.text).not.toContain(key);
    expect(list.body).toEqual([expect.objectContaining({ id: created.body.id, name: 'CI' })]);
    expect(list.body[0]?.key).toBeUndefined();
    const stored = (await t.deps.store.entities.apiKey.get({ keyHash: sha256Hex(key) }).go()).data;
    expect(stored?.apiKeyId).toBe(created.body.id);
    expect(JSON.stringify(stored)).not.toContain(key);
  });

  it('defaults to read_write service keys and records lastUsedAt', async () => {
    const user = await t.signup('keys-default');
    const created = await t.request<ApiKey>('POST', '/api-keys', { token: user.token, body: { name: 'default' } });
    expect(created.body).toMatchObject({ permission: 'read_write', kind: 'service' });
    expect((await t.request('GET', '/v1/whoami', { token: created.body.key ?? '' })).status).toBe(200);
    const list = await t.request<ApiKey[]>('GET', '/api-keys', { token: user.token });
    expect(list.body[0]?.lastUsedAt).toBe(t.clock.now().toISOString());
  });

  it('refuses bad inputs and changes nothing', async () => {
    const user = await t.signup('keys-bad');
    const bad: unknown[] = [{}, { name: '' }, { name: 'k', permission: 'admin' }, { name: 'k', kind: 'root' }, { name: 'k', key: 'vigil_x' }, { name: 'k', enabled: false }];
    for (const body of bad) expectError(await t.request('POST', '/api-keys', { token: user.token, body }), 400, 'VALIDATION_ERROR');
    const created = await t.request<ApiKey>('POST', '/api-keys', { token: user.token, body: { name: 'k' } });
    const path = `/api-keys/${created.body.id}`;
    for (const body of [{ enabled: 'no' }, { permission: 'read_only' }, { workspaceId: 1 }, { name: '' }]) {
      expectError(await t.request('PATCH', path, { token: user.token, body }), 400);
    }
    expectError(await t.request('PATCH', '/api-keys/99999999', { token: user.token, body: { enabled: false } }), 404);
    expectError(await t.request('DELETE', '/api-keys/99999999', { token: user.token }), 404);
    const list = await t.request<ApiKey[]>('GET', '/api-keys', { token: user.token });
    expect(list.body).toEqual([expect.objectContaining({ id: created.body.id, name: 'k', enabled: true, permission: 'read_write' })]);
    const renamed = await t.request<ApiKey>('PATCH', path, { token: user.token, body: { name: 'renamed' } });
    expect(renamed.body.name).toBe('renamed');
  });
});
