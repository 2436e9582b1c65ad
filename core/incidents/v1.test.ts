import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createCheck, type IncidentBody, type Page, type User } from '../../test/support/incidents.js';

let t: TestContext;
let owner: User;
let stranger: User;
let key: string;
let readOnlyKey: string;
let strangerKey: string;
beforeAll(async () => {
  t = await createTestContext();
  owner = await t.signup('owner');
  stranger = await t.signup('stranger');
  key = await t.apiKey(owner);
  readOnlyKey = await t.apiKey(owner, { permission: 'read_only' });
  strangerKey = await t.apiKey(stranger);
});

const call = <T = IncidentBody>(method: string, path: string, body?: unknown, token = key) => t.request<T>(method, `/v1${path}`, { token, body });

async function createDependency(user: User, name: string): Promise<number> {
  const res = await t.request<{ id: number }>('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name } });
  if (res.status !== 201) throw new Error(`dependency failed: ${res.text}`);
  return res.body.id;
}

describe('POST /v1/incidents (declare)', () => {
  it('declares an incident with no target, with defaults, OPENED in its timeline', async () => {
    const res = await call('POST', '/incidents', { title: 'Payments degraded' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Payments degraded',
      summary: null,
      state: 'ACTIVE',
      reason: 'SERVICE_DOWN',
      severity: 'P3',
      checkId: null,
      declared: true,
      workspaceId: owner.workspaceId,
      startedAt: t.clock.now().toISOString(),
    });
    const events = await t.request<{ type: string; message: string }[]>('GET', `/incident-events/${res.body.id}`, { token: owner.token });
    expect(events.body).toEqual([expect.objectContaining({ type: 'OPENED', message: expect.stringMatching(/^Declared by API key "test key"/) })]);
  });

  it('targets a check, a job or a dependency of the workspace', async () => {
    const check = await createCheck(t, owner, { downSeverity: 'P2' });
    const onCheck = await call('POST', '/incidents', { title: 'Check', description: 'details', checkId: check.id });
    expect(onCheck.body).toMatchObject({ checkId: check.id, projectId: owner.projectId, severity: 'P2', summary: 'details', check: { id: check.id, token: check.token } });

    const job = await call<{ id: number }>('POST', '/jobs', { name: 'cron', projectId: owner.projectId });
    expect(job.status).toBe(201);
    const onJob = await call('POST', '/incidents', { title: 'Job', jobId: job.body.id, severity: 'P1' });
    expect(onJob.body).toMatchObject({ checkId: job.body.id, severity: 'P1' });

    const dependencyId = await createDependency(owner, 'declared-dep');
    const onDependency = await call('POST', '/incidents', { title: 'Dep', dependencyId });
    expect(onDependency.body).toMatchObject({ reason: 'DEPENDENCY_DOWN', dependencyId, dependencyName: 'declared-dep', dependency: { id: dependencyId, name: 'declared-dep' } });
  });

  it('refuses more than one target with 400 MULTIPLE_INCIDENT_TARGETS', async () => {
    const check = await createCheck(t, owner);
    const dependencyId = await createDependency(owner, 'two-targets');
    expectError(await call('POST', '/incidents', { title: 'x', checkId: check.id, dependencyId }), 400, 'MULTIPLE_INCIDENT_TARGETS');
    expectError(await call('POST', '/incidents', { title: 'x', checkId: check.id, jobId: check.id }), 400, 'MULTIPLE_INCIDENT_TARGETS');
  });

  it('404s for targets outside the key workspace (and a job id that is not a heartbeat job)', async () => {
    const foreignCheck = await createCheck(t, stranger);
    const foreignDependency = await createDependency(stranger, 'theirs');
    const before = (await call<Page<IncidentBody>>('GET', '/incidents?limit=100')).body.total;
    expectError(await call('POST', '/incidents', { title: 'x', checkId: foreignCheck.id }), 404);
    expectError(await call('POST', '/incidents', { title: 'x', jobId: foreignCheck.id }), 404);
    expectError(await call('POST', '/incidents', { title: 'x', dependencyId: foreignDependency }), 404);
    expectError(await call('POST', '/incidents', { title: 'x', checkId: 987_654 }), 404);
    const outbound = await createCheck(t, owner, { checkMode: 'OUTBOUND', url: 'https://example.com/', intervalSeconds: 60, graceSeconds: 5 });
    expectError(await call('POST', '/incidents', { title: 'x', jobId: outbound.id }), 404);
    expect((await call<Page<IncidentBody>>('GET', '/incidents?limit=100')).body.total).toBe(before);
  });

  it('validates the body: title 1-255, description max 2000, known fields only, severity enum', async () => {
    for (const body of [
      {},
      { title: '' },
      { title: 'x'.repeat(256) },
      { title: 'x', description: 'd'.repeat(2001) },
      { title: 'x', severity: 'P5' },
      { title: 'x', checkId: '5' },
      { title: 'x', state: 'RESOLVED' },
    ]) {
      expectError(await call('POST', '/incidents', body), 400, 'VALIDATION_ERROR');
    }
    expect((await call('POST', '/incidents', { title: 'x'.repeat(255), description: 'd'.repeat(2000) })).status).toBe(201);
  });

  it('needs a read_write key: read_only 403, session token 401', async () => {
    expectError(await call('POST', '/incidents', { title: 'x' }, readOnlyKey), 403);
    expectError(await call('POST', '/incidents', { title: 'x' }, owner.token), 401);
  });
});

describe('v1 incident reads and actions', () => {
  it('lists and gets incidents of the key workspace only', async () => {
    const mine = await call('POST', '/incidents', { title: 'mine' });
    const theirs = await call('POST', '/incidents', { title: 'theirs' }, strangerKey);
    const page = await call<Page<IncidentBody>>('GET', '/incidents', undefined, readOnlyKey);
    expect(page.status).toBe(200);
    expect(page.body.limit).toBe(20);
    expect(page.body.items.map((i) => i.id)).toContain(mine.body.id);
    expect(page.body.items.map((i) => i.id)).not.toContain(theirs.body.id);
    expect((await call('GET', `/incidents/${mine.body.id}`, undefined, readOnlyKey)).body.title).toBe('mine');
    expectError(await call('GET', `/incidents/${theirs.body.id}`), 404);
    expectError(await call('GET', '/incidents?state=bogus'), 400);
    expect((await call<Page<IncidentBody>>('GET', '/incidents?state=open')).body.items.every((i) => i.state !== 'RESOLVED')).toBe(true);
  });

  it('acknowledges with a key (acknowledgedBy null, the key named in the timeline), resolves, then 409s', async () => {
    const incident = await call('POST', '/incidents', { title: 'ack me' });
    const acked = await call('POST', `/incidents/${incident.body.id}/acknowledge`);
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({ acknowledgedBy: null, acknowledgedAt: t.clock.now().toISOString(), acknowledgedByUser: null });
    const resolved = await call('POST', `/incidents/${incident.body.id}/resolve`);
    expect(resolved.body).toMatchObject({ state: 'RESOLVED', recoveredAt: null });
    expectError(await call('POST', `/incidents/${incident.body.id}/acknowledge`), 409, 'INCIDENT_RESOLVED');
    const events = await t.request<{ type: string; message: string; actorApiKeyId: number | null }[]>('GET', `/incident-events/${incident.body.id}`, { token: owner.token });
    expect(events.body.map((e) => e.type)).toEqual(['OPENED', 'ACKNOWLEDGED', 'RESOLVED']);
    expect(events.body[1]?.message).toMatch(/^Acknowledged by API key "test key" \(#\d+\)$/);
    expect(events.body[1]?.actorApiKeyId).toEqual(expect.any(Number));
  });

  it('refuses actions from other workspaces (404) and read_only keys (403)', async () => {
    const incident = await call('POST', '/incidents', { title: 'guarded' });
    for (const action of ['acknowledge', 'resolve']) {
      expectError(await call('POST', `/incidents/${incident.body.id}/${action}`, undefined, strangerKey), 404);
      expectError(await call('POST', `/incidents/${incident.body.id}/${action}`, undefined, readOnlyKey), 403);
    }
    expect((await call('GET', `/incidents/${incident.body.id}`)).body.state).toBe('ACTIVE');
  });

  it('resolves a declared incident when its check is deleted', async () => {
    const check = await createCheck(t, owner);
    const incident = await call('POST', '/incidents', { title: 'about a check', checkId: check.id });
    expect((await t.request('DELETE', `/checks/${check.id}`, { token: owner.token })).status).toBe(204);
    await t.deps.queue.drain();
    expect((await call('GET', `/incidents/${incident.body.id}`)).body).toMatchObject({ state: 'RESOLVED', check: { id: check.id } });
  });
});
