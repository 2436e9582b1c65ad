import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { Page } from '../http/pagination.js';
import { createJob, member, minutes, ok, v1, type User } from '../../test/support/windows.js';
import type { DeploymentView } from './schema.js';

let t: TestContext;
let user: User;
let other: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await member(t, 'deployer');
  other = await member(t, 'stranger');
});

const call = <T = DeploymentView>(method: string, path: string, body?: unknown, key = user.key) => v1<T>(t, key, method, path, body);
/** A project of its own per test: autoPause defaults to every check of the project. */
const freshProject = async (owner: User = user): Promise<number> => ok(await v1<{ id: number }>(t, owner.key, 'POST', '/projects', { name: 'svc' }), 201).id;

describe('POST /v1/deployments', () => {
  it('opens an ACTIVE window with the spec defaults and answers exactly the Deployment fields', async () => {
    const projectId = await freshProject();
    const d = ok(await call('POST', '/deployments', { projectId }), 201);
    expect(Object.keys(d).sort()).toEqual(
      ['id', 'projectId', 'name', 'version', 'author', 'link', 'status', 'autoPause', 'checkIds', 'startedAt', 'endedAt', 'scheduledEndAt'].sort(),
    );
    expect(d).toMatchObject({
      projectId,
      name: null,
      version: null,
      author: null,
      link: null,
      status: 'ACTIVE',
      autoPause: true,
      checkIds: null,
      startedAt: t.clock.now().toISOString(),
      endedAt: null,
      scheduledEndAt: null,
    });
  });

  it('turns ttlMinutes into scheduledEndAt and keeps the labels', async () => {
    const projectId = await freshProject();
    const body = { projectId, name: 'api', version: 'v1.2.3', author: 'ci', link: 'https://ci.example.com/runs/7', autoPause: false, ttlMinutes: 30 };
    const d = ok(await call('POST', '/deployments', body), 201);
    expect(d).toMatchObject({ name: 'api', version: 'v1.2.3', author: 'ci', link: 'https://ci.example.com/runs/7', autoPause: false });
    expect(d.scheduledEndAt).toBe(new Date(t.clock.now().getTime() + minutes(30)).toISOString());
    expect(ok(await call('POST', '/deployments', { projectId, ttlMinutes: 1 }), 201).scheduledEndAt).toBeTruthy();
    expect(ok(await call('POST', '/deployments', { projectId, ttlMinutes: 1440 }), 201).scheduledEndAt).toBeTruthy();
  });

  it('rejects out-of-bounds and unknown fields with 400 and creates nothing', async () => {
    const projectId = await freshProject();
    const bad: Record<string, unknown>[] = [
      {},
      { projectId: 0 },
      { projectId: 'one' },
      { projectId, ttlMinutes: 0 },
      { projectId, ttlMinutes: 1441 },
      { projectId, ttlMinutes: 1.5 },
      { projectId, name: 'x'.repeat(256) },
      { projectId, version: 'x'.repeat(256) },
      { projectId, author: 'x'.repeat(256) },
      { projectId, link: `https://example.com/${'x'.repeat(2040)}` },
      { projectId, link: 'javascript:alert(1)' },
      { projectId, checkIds: [] },
      { projectId, checkIds: [0] },
      { projectId, autoPause: 'yes' },
      { projectId, startedAt: '2026-03-01T12:00:00Z' },
      { projectId, status: 'ENDED' },
    ];
    for (const body of bad) expectError(await call('POST', '/deployments', body), 400);
    expect(ok(await call<Page<DeploymentView>>('GET', `/deployments?projectId=${projectId}`), 200).total).toBe(0);
    // The longest allowed values pass.
    const longest = { projectId, name: 'n'.repeat(255), link: `https://e.com/${'x'.repeat(2048 - 14)}`, autoPause: false };
    expect((await call('POST', '/deployments', longest)).status).toBe(201);
  });

  it('404s a project or check outside the key workspace, and a check of another project', async () => {
    const foreignProject = await freshProject(other);
    expectError(await call('POST', '/deployments', { projectId: foreignProject }), 404);
    expectError(await call('POST', '/deployments', { projectId: 999_999 }), 404);
    const projectId = await freshProject();
    const foreignJob = await createJob(t, { ...other, projectId: foreignProject });
    expectError(await call('POST', '/deployments', { projectId, checkIds: [foreignJob.id] }), 404);
    const elsewhere = await createJob(t, { ...user, projectId: await freshProject() });
    expectError(await call('POST', '/deployments', { projectId, checkIds: [elsewhere.id] }), 404);
    expectError(await call('POST', '/deployments', { projectId, checkIds: [987_654] }), 404);
    expect((await call<Page<DeploymentView>>('GET', `/deployments?projectId=${projectId}`)).body.total).toBe(0);
  });
});

describe('POST /v1/deployments/:id/end', () => {
  it('ends once; ending again returns the same deployment with 200', async () => {
    const d = ok(await call('POST', '/deployments', { projectId: await freshProject(), autoPause: false }), 201);
    t.clock.advance(minutes(3));
    const ended = ok(await call('POST', `/deployments/${d.id}/end`), 200);
    expect(ended).toMatchObject({ id: d.id, status: 'ENDED', endedAt: t.clock.now().toISOString() });
    t.clock.advance(minutes(1));
    expect(ok(await call('POST', `/deployments/${d.id}/end`), 200)).toEqual(ended);
  });

  it('404s unknown and foreign deployments; a read_only key may list but not open or end', async () => {
    const d = ok(await call('POST', '/deployments', { projectId: await freshProject(), autoPause: false }), 201);
    expectError(await call('POST', `/deployments/${d.id}/end`, undefined, other.key), 404);
    expectError(await call('POST', '/deployments/424242/end'), 404);
    expectError(await call('POST', '/deployments/abc/end'), 400);
    const readOnly = await t.apiKey(user, { permission: 'read_only' });
    expectError(await call('POST', '/deployments', { projectId: user.projectId }, readOnly), 403);
    expectError(await call('POST', `/deployments/${d.id}/end`, undefined, readOnly), 403);
    expect((await call('GET', '/deployments', undefined, readOnly)).status).toBe(200);
    expect(ok(await call('GET', `/deployments/${d.id}`), 200).status).toBe('ACTIVE');
    expectError(await t.request('GET', '/v1/deployments', { token: user.token }), 401);
    expectError(await t.request('GET', '/v1/deployments'), 401);
  });
});

describe('GET /v1/deployments', () => {
  it('pages newest first and filters by project, status and time range', async () => {
    const a = await freshProject();
    const b = await freshProject();
    const first = ok(await call('POST', '/deployments', { projectId: a, autoPause: false, name: 'first' }), 201);
    t.clock.advance(minutes(10));
    const second = ok(await call('POST', '/deployments', { projectId: a, autoPause: false, name: 'second' }), 201);
    ok(await call('POST', `/deployments/${first.id}/end`), 200);
    t.clock.advance(minutes(10));
    const third = ok(await call('POST', '/deployments', { projectId: b, autoPause: false, name: 'third' }), 201);

    const ofA = ok(await call<Page<DeploymentView>>('GET', `/deployments?projectId=${a}`), 200);
    expect(ofA).toMatchObject({ total: 2, page: 1, itemCount: 2, pageCount: 1, limit: 20 });
    expect(ofA.items.map((d) => d.id)).toEqual([second.id, first.id]);
    expect(ok(await call<Page<DeploymentView>>('GET', `/deployments?projectId=${a}&status=ended`), 200).items.map((d) => d.id)).toEqual([first.id]);
    expect(ok(await call<Page<DeploymentView>>('GET', `/deployments?projectId=${a}&status=ACTIVE`), 200).items.map((d) => d.id)).toEqual([second.id]);

    // from/to keep the deployments whose span overlaps the range.
    const range = `from=${encodeURIComponent(second.startedAt)}&to=${encodeURIComponent(second.startedAt)}`;
    expect(ok(await call<Page<DeploymentView>>('GET', `/deployments?projectId=${a}&${range}`), 200).items.map((d) => d.id)).toEqual([second.id, first.id]);
    const later = ok(await call<Page<DeploymentView>>('GET', `/deployments?from=${encodeURIComponent(third.startedAt)}`), 200).items.map((d) => d.id);
    expect(later.slice(0, 2)).toEqual([third.id, second.id]);
    expect(later).not.toContain(first.id);

    const paged = ok(await call<Page<DeploymentView>>('GET', '/deployments?limit=1&page=2'), 200);
    expect(paged).toMatchObject({ page: 2, limit: 1, itemCount: 1 });
    expect(paged.pageCount).toBe(paged.total);
    expect(ok(await call<Page<DeploymentView>>('GET', '/deployments', undefined, other.key), 200).items.every((d) => d.projectId !== a)).toBe(true);

    for (const query of [
      'limit=101',
      'limit=0',
      'page=0',
      'status=DONE',
      'from=yesterday',
      `from=${encodeURIComponent(third.startedAt)}&to=${encodeURIComponent(first.startedAt)}`,
    ]) {
      expectError(await call('GET', `/deployments?${query}`), 400);
    }
    expectError(await call('GET', `/deployments?projectId=${await freshProject(other)}`), 404);
  });
});

describe('OpenAPI documents', () => {
  it('list the deployment and maintenance window routes of both surfaces', async () => {
    const integration = ok(await t.request<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json'), 200);
    expect(Object.keys(integration.paths)).toEqual(expect.arrayContaining(['/deployments', '/deployments/{id}/end', '/maintenance-windows', '/maintenance-windows/{id}/end']));
    const dashboard = ok(await t.request<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json'), 200);
    expect(Object.keys(dashboard.paths)).toEqual(
      expect.arrayContaining(['/deployments', '/deployments/{id}/end', '/maintenance-windows', '/maintenance-windows/{id}', '/maintenance-windows/{id}/cancel']),
    );
    expect(Object.keys(dashboard.paths['/maintenance-windows/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
  });
});
