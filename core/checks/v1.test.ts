import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { authenticateApiKey } from '../auth/middleware.js';
import { findCheckBySlug } from './repository.js';
import type { CheckV1, JobV1 } from './schema.js';
import { createHeartbeatJob } from './v1.js';
import { LONG_SESSIONS, expectStatus, freshRateWindow, type User } from '../../test/support/checks.js';

let t: TestContext;
let user: User;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('integrator');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

const checkBody = (extra: Record<string, unknown> = {}) => ({ name: 'api health', projectId: user.projectId, config: { url: 'https://example.com/health' }, ...extra });
const jobBody = (extra: Record<string, unknown> = {}) => ({ name: 'nightly', projectId: user.projectId, ...extra });
const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, token = key) =>
  t.request<T>(method, `/v1${path}`, { token, ...(body === undefined ? {} : { body }) });

describe('/v1/checks', () => {
  it('creates with the spec defaults and answers exactly the Check response fields', async () => {
    const check = expectStatus(await call<CheckV1>('POST', '/checks', checkBody()), 201);
    expect(Object.keys(check).sort()).toEqual(
      [
        'id',
        'slug',
        'name',
        'projectId',
        'checkType',
        'intervalSeconds',
        'graceSeconds',
        'muteNotifications',
        'downSeverity',
        'lateSeverity',
        'paused',
        'status',
        'config',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(check).toMatchObject({
      slug: null,
      projectId: user.projectId,
      checkType: 'HTTP',
      intervalSeconds: 300,
      graceSeconds: 5,
      muteNotifications: false,
      downSeverity: 'P1',
      lateSeverity: 'P3',
      paused: false,
      status: 'NEW',
    });
    expect(check.config).toMatchObject({ url: 'https://example.com/health', method: 'GET', timeoutMs: 8000, regions: [t.config.homeRegion] });
    expect(expectStatus(await call('GET', `/checks/${check.id}`), 200)).toEqual(check);
  });

  it('rejects every checkType but HTTP with 422 CHECK_TYPE_NOT_SUPPORTED', async () => {
    for (const checkType of ['HEARTBEAT', 'DNS', 'TCP', 'SSL', 'FTP']) {
      expectError(await call('POST', '/checks', checkBody({ checkType })), 422, 'CHECK_TYPE_NOT_SUPPORTED');
    }
    expectStatus(await call('POST', '/checks', checkBody({ checkType: 'HTTP' })), 201);
    // Judged before the rest of the body: a DNS check needs no HTTP config to hear "not supported".
    expectError(await call('POST', '/checks', { name: 'dns', projectId: user.projectId, checkType: 'DNS' }), 422, 'CHECK_TYPE_NOT_SUPPORTED');
    expectError(await call('POST', '/checks', { name: 'odd', projectId: user.projectId, checkType: 5 }), 422, 'CHECK_TYPE_NOT_SUPPORTED');
  });

  it('bounds interval (10-3600), grace (5-60), name and config', async () => {
    expectStatus(await call('POST', '/checks', checkBody({ intervalSeconds: 10, graceSeconds: 60 })), 201);
    expectStatus(await call('POST', '/checks', checkBody({ intervalSeconds: 3600, graceSeconds: 5 })), 201);
    for (const bad of [
      { intervalSeconds: 9 },
      { intervalSeconds: 3601 },
      { graceSeconds: 4 },
      { graceSeconds: 61 },
      { name: '' },
      { name: 'n'.repeat(256) },
      { projectId: 0 },
      { config: undefined },
      { paused: true },
      { status: 'OK' },
    ]) {
      expectError(await call('POST', '/checks', checkBody(bad)), 400);
    }
    const err = expectError(await call('POST', '/checks', checkBody({ config: { url: 'https://example.com', timeoutMs: 999 } })), 400) as { details?: { path: string }[] };
    expect(err.details?.[0]?.path).toBe('config.timeoutMs');
  });

  it('lists only outbound checks in the CheckV1PageResponse envelope', async () => {
    const other = await t.signup('lists');
    const otherKey = await t.apiKey(other);
    const body = { projectId: other.projectId, config: { url: 'https://example.com' } };
    for (const name of ['a', 'b', 'c']) expectStatus(await call('POST', '/checks', { ...body, name }, otherKey), 201);
    expectStatus(await call('POST', '/jobs', { name: 'job', projectId: other.projectId }, otherKey), 201);
    const page = expectStatus(
      await call<{ items: CheckV1[]; total: number; page: number; itemCount: number; pageCount: number; limit: number }>('GET', '/checks?limit=2&page=2', undefined, otherKey),
      200,
    );
    expect(page).toMatchObject({ total: 3, page: 2, itemCount: 1, pageCount: 2, limit: 2 });
    expect(page.items.map((c) => c.name)).toEqual(['c']);
  });

  it('patches fields and merges config; paused and foreign projects are refused', async () => {
    const check = expectStatus(await call<CheckV1>('POST', '/checks', checkBody({ config: { url: 'https://example.com', customHeaders: { 'X-A': '1' } } })), 201);
    const patched = expectStatus(
      await call<CheckV1>('PATCH', `/checks/${check.id}`, { name: 'renamed', intervalSeconds: 30, downSeverity: 'P2', config: { timeoutMs: 2000, regions: ['eu-west-1'] } }),
      200,
    );
    expect(patched).toMatchObject({ name: 'renamed', intervalSeconds: 30, downSeverity: 'P2' });
    expect(patched.config).toMatchObject({ url: 'https://example.com', timeoutMs: 2000, customHeaders: { 'X-A': '1' }, regions: ['eu-west-1'] });
    expect(t.deps.scheduler.schedules.get(`probe-${check.id}-eu-west-1`)?.everySeconds).toBe(30);
    expect(t.deps.scheduler.schedules.has(`probe-${check.id}-${t.config.homeRegion}`)).toBe(t.config.homeRegion === 'eu-west-1');
    expectError(await call('PATCH', `/checks/${check.id}`, { paused: true }), 400);
    expectError(await call('PATCH', `/checks/${check.id}`, { checkType: 'HEARTBEAT' }), 422, 'CHECK_TYPE_NOT_SUPPORTED');
    expectError(await call('PATCH', `/checks/${check.id}`, { config: { expectedStatusMin: 500, expectedStatusMax: 400 } }), 400);
    const stranger = await t.signup('foreign-project');
    expectError(await call('PATCH', `/checks/${check.id}`, { projectId: stranger.projectId }), 404);
    expectError(await call('POST', '/checks', checkBody({ projectId: stranger.projectId })), 404);
  });

  it('pauses and resumes: paused mirrors status PAUSED', async () => {
    const check = expectStatus(await call<CheckV1>('POST', '/checks', checkBody()), 201);
    const paused = expectStatus(await call<CheckV1>('POST', `/checks/${check.id}/pause`), 200);
    expect(paused).toMatchObject({ paused: true, status: 'PAUSED' });
    expect(expectStatus(await call<CheckV1>('POST', `/checks/${check.id}/pause`), 200).paused).toBe(true);
    const resumed = expectStatus(await call<CheckV1>('POST', `/checks/${check.id}/resume`), 200);
    expect(resumed).toMatchObject({ paused: false, status: 'RESUMED' });
  });
});

describe('slugs', () => {
  it('are unique per workspace across checks and jobs, addressable as slug:<slug>, released on delete', async () => {
    const check = expectStatus(await call<CheckV1>('POST', '/checks', checkBody({ slug: 'api-health' })), 201);
    expect(check.slug).toBe('api-health');
    expectError(await call('POST', '/checks', checkBody({ slug: 'api-health' })), 409, 'SLUG_TAKEN');
    expectError(await call('POST', '/jobs', jobBody({ slug: 'api-health' })), 409, 'SLUG_TAKEN');
    const other = await t.signup('same-slug');
    expectStatus(await call('POST', '/checks', { ...checkBody({ slug: 'api-health' }), projectId: other.projectId }, await t.apiKey(other)), 201);

    expect(expectStatus(await call<CheckV1>('GET', '/checks/slug:api-health'), 200).id).toBe(check.id);
    expect(expectStatus(await call<CheckV1>('PATCH', '/checks/slug:api-health', { name: 'by slug' }), 200).name).toBe('by slug');
    expect(expectStatus(await call<CheckV1>('POST', '/checks/slug:api-health/pause'), 200).paused).toBe(true);
    expect(expectStatus(await call<CheckV1>('POST', '/checks/slug:api-health/resume'), 200).paused).toBe(false);
    expectError(await call('GET', '/checks/slug:nope'), 404);
    expectError(await call('GET', '/checks/not-a-number'), 404);
    expectStatus(await call('DELETE', '/checks/slug:api-health'), 204);
    expectError(await call('GET', `/checks/${check.id}`), 404);
    expectError(await call('GET', '/checks/slug:api-health'), 404);
    const reused = expectStatus(await call<CheckV1>('POST', '/checks', checkBody({ slug: 'api-health' })), 201);
    expect(reused.id).not.toBe(check.id);
  });

  it('moves on rename and frees the old slug; null clears it', async () => {
    const job = expectStatus(await call<JobV1>('POST', '/jobs', jobBody({ slug: 'first' })), 201);
    expect(expectStatus(await call<JobV1>('PATCH', `/jobs/${job.id}`, { slug: 'second' }), 200).slug).toBe('second');
    expectStatus(await call('POST', '/jobs', jobBody({ slug: 'first' })), 201);
    expectError(await call('PATCH', `/jobs/${job.id}`, { slug: 'first' }), 409, 'SLUG_TAKEN');
    expect(expectStatus(await call<JobV1>('PATCH', `/jobs/slug:second`, { slug: null }), 200).slug).toBeNull();
    expectStatus(await call('POST', '/jobs', jobBody({ slug: 'second' })), 201);
    expect(await findCheckBySlug(t.deps, user.workspaceId, 'second')).toMatchObject({ slug: 'second' });
    expect(await findCheckBySlug(t.deps, user.workspaceId + 1000, 'second')).toBeUndefined();
  });

  it('must match ^[a-z0-9_-]{1,64}$', async () => {
    for (const slug of ['UPPER', 'has space', '', 'a'.repeat(65), 'dots.no', 'ünï']) {
      expectError(await call('POST', '/jobs', jobBody({ slug })), 400);
    }
    expectStatus(await call('POST', '/jobs', jobBody({ slug: `a_-9${'z'.repeat(60)}` })), 201);
  });
});

describe('/v1/jobs', () => {
  it('creates heartbeat jobs with their defaults, token and ping URL', async () => {
    const job = expectStatus(await call<JobV1>('POST', '/jobs', jobBody()), 201);
    expect(job).toMatchObject({
      checkType: 'HEARTBEAT',
      config: null,
      intervalSeconds: 3600,
      graceSeconds: 300,
      downSeverity: 'P1',
      lateSeverity: 'P3',
      muteNotifications: false,
      paused: false,
      status: 'NEW',
      lastPingAt: null,
      nextDueAt: null,
    });
    expect(job.pingUrl).toBe(`${t.config.publicUrl}/api/signals/ping/${job.token}`);
    expect(expectStatus(await call('GET', `/jobs/${job.id}`), 200)).toEqual(job);
    expectError(await call('GET', `/checks/${job.id}`), 404);
    const list = expectStatus(await call<{ items: JobV1[] }>('GET', '/jobs?limit=100'), 200);
    expect(list.items.every((j) => j.checkType === 'HEARTBEAT')).toBe(true);
  });

  it('bounds interval (10-604800) and grace (5-86400)', async () => {
    expectStatus(await call('POST', '/jobs', jobBody({ intervalSeconds: 10, graceSeconds: 86_400 })), 201);
    expectStatus(await call('POST', '/jobs', jobBody({ intervalSeconds: 604_800, graceSeconds: 5 })), 201);
    for (const bad of [{ intervalSeconds: 9 }, { intervalSeconds: 604_801 }, { graceSeconds: 4 }, { graceSeconds: 86_401 }, { config: {} }, { checkType: 'HEARTBEAT' }]) {
      expectError(await call('POST', '/jobs', jobBody(bad)), 400);
    }
  });

  it('pauses, resumes, updates and deletes', async () => {
    const job = expectStatus(await call<JobV1>('POST', '/jobs', jobBody({ intervalSeconds: 60 })), 201);
    expect(expectStatus(await call<JobV1>('POST', `/jobs/${job.id}/pause`), 200).status).toBe('PAUSED');
    const resumed = expectStatus(await call<JobV1>('POST', `/jobs/${job.id}/resume`), 200);
    expect(resumed.nextDueAt).toBe(new Date(t.clock.now().getTime() + 60_000).toISOString());
    expect(expectStatus(await call<JobV1>('PATCH', `/jobs/${job.id}`, { graceSeconds: 900 }), 200).graceSeconds).toBe(900);
    expectStatus(await call('DELETE', `/jobs/${job.id}`), 204);
    expectError(await call('GET', `/jobs/${job.id}`), 404);
  });

  it('exports createHeartbeatJob for slug pings (defaults applied, slug conflicts 409)', async () => {
    const actor = await authenticateApiKey(t.deps, key, '127.0.0.1');
    const job = await createHeartbeatJob({ deps: t.deps, actor }, { name: 'auto', projectId: user.projectId, slug: 'auto-created' });
    expect(job).toMatchObject({ checkMode: 'INBOUND', checkType: 'HEARTBEAT', intervalSeconds: 3600, graceSeconds: 300, slug: 'auto-created', status: 'NEW' });
    await expect(createHeartbeatJob({ deps: t.deps, actor }, { name: 'again', projectId: user.projectId, slug: 'auto-created' })).rejects.toMatchObject({ code: 'SLUG_TAKEN' });
    await expect(createHeartbeatJob({ deps: t.deps, actor }, { name: 'bad', projectId: user.projectId, slug: 'Bad Slug' })).rejects.toMatchObject({ status: 400 });
  });
});

describe('authorisation', () => {
  it('read_only keys read but get 403 on every write', async () => {
    const check = expectStatus(await call<CheckV1>('POST', '/checks', checkBody()), 201);
    const job = expectStatus(await call<JobV1>('POST', '/jobs', jobBody()), 201);
    const readOnly = await t.apiKey(user, { permission: 'read_only' });
    expectStatus(await call('GET', '/checks', undefined, readOnly), 200);
    expectStatus(await call('GET', `/checks/${check.id}`, undefined, readOnly), 200);
    expectStatus(await call('GET', `/jobs/${job.id}`, undefined, readOnly), 200);
    expectError(await call('POST', '/checks', checkBody(), readOnly), 403);
    expectError(await call('POST', '/jobs', jobBody(), readOnly), 403);
    expectError(await call('PATCH', `/checks/${check.id}`, { name: 'x' }, readOnly), 403);
    expectError(await call('PATCH', `/jobs/${job.id}`, { name: 'x' }, readOnly), 403);
    expectError(await call('POST', `/checks/${check.id}/pause`, undefined, readOnly), 403);
    expectError(await call('POST', `/jobs/${job.id}/resume`, undefined, readOnly), 403);
    expectError(await call('DELETE', `/checks/${check.id}`, undefined, readOnly), 403);
    expectError(await call('DELETE', `/jobs/${job.id}`, undefined, readOnly), 403);
  });

  it('404s ids and slugs of another workspace on every route', async () => {
    const check = expectStatus(await call<CheckV1>('POST', '/checks', checkBody({ slug: 'private-check' })), 201);
    const job = expectStatus(await call<JobV1>('POST', '/jobs', jobBody({ slug: 'private-job' })), 201);
    const stranger = await t.signup('v1-stranger');
    const theirs = await t.apiKey(stranger);
    for (const [kind, ref] of [
      ['checks', check.id],
      ['checks', 'slug:private-check'],
      ['jobs', job.id],
      ['jobs', 'slug:private-job'],
    ] as const) {
      expectError(await call('GET', `/${kind}/${ref}`, undefined, theirs), 404);
      expectError(await call('PATCH', `/${kind}/${ref}`, { name: 'x' }, theirs), 404);
      expectError(await call('POST', `/${kind}/${ref}/pause`, undefined, theirs), 404);
      expectError(await call('POST', `/${kind}/${ref}/resume`, undefined, theirs), 404);
      expectError(await call('DELETE', `/${kind}/${ref}`, undefined, theirs), 404);
    }
    expectError(await call('POST', '/jobs', jobBody(), theirs), 404);
    expect(expectStatus(await call<{ total: number }>('GET', '/checks', undefined, theirs), 200).total).toBe(0);
    expect(expectStatus(await call<CheckV1>('GET', `/checks/${check.id}`), 200)).toEqual(check);
  });

  it('refuses session tokens and missing keys with 401', async () => {
    expectError(await call('GET', '/checks', undefined, user.token), 401);
    expectError(await t.request('GET', '/v1/jobs'), 401);
  });
});
