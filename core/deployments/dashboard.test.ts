import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createJob, isoIn, jobNow, member, minutes, ok, ping, session, sweep, v1, type User } from '../../test/support/windows.js';
import type { DashboardDeploymentView } from './schema.js';

let t: TestContext;
let owner: User;
let viewer: User;
let stranger: User;
beforeAll(async () => {
  t = await createTestContext();
  owner = await member(t, 'owner');
  viewer = await member(t, 'viewer');
  stranger = await member(t, 'stranger');
  ok(await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: viewer.email, role: 'VIEWER' } }), 201);
});

const as = async (who: User, method: string, path: string, body?: unknown) =>
  t.request<DashboardDeploymentView>(method, path, { token: await session(t, who), ...(body === undefined ? {} : { body }) });
const list = async (query: string, who = owner) => t.request<DashboardDeploymentView[]>('GET', `/deployments?${query}`, { token: await session(t, who) });
const project = async (): Promise<User> => ({ ...owner, projectId: ok(await v1<{ id: number }>(t, owner.key, 'POST', '/projects', { name: 'web' }), 201).id });

describe('POST /deployments (dashboard)', () => {
  it('opens ACTIVE with autoPause false by default and shows the dashboard record', async () => {
    const p = await project();
    const job = await createJob(t, p);
    await ping(t, job);
    const d = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, name: 'web', version: '7' }), 201);
    expect(d).toMatchObject({
      projectId: p.projectId,
      workspaceId: owner.workspaceId,
      status: 'ACTIVE',
      autoPause: false,
      autoPausedCheckIds: [],
      checkIds: null,
      startedAt: t.clock.now().toISOString(),
      scheduledStartAt: null,
      scheduledEndAt: null,
      endedAt: null,
    });
    expect((await jobNow(t, owner, job)).status).toBe('OK');
    // A backdated start is kept; the deployment is ACTIVE.
    const backdated = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, startedAt: isoIn(t, -minutes(5)) }), 201);
    expect(backdated).toMatchObject({ status: 'ACTIVE', startedAt: isoIn(t, -minutes(5)) });
  });

  it('schedules a future start; the sweep starts it (pausing with autoPause) and ends it at scheduledEndAt', async () => {
    const p = await project();
    const job = await createJob(t, p);
    await ping(t, job);
    const body = { projectId: p.projectId, autoPause: true, scheduledStartAt: isoIn(t, minutes(10)), scheduledEndAt: isoIn(t, minutes(30)) };
    const d = ok(await as(owner, 'POST', '/deployments', body), 201);
    expect(d).toMatchObject({ status: 'SCHEDULED', startedAt: body.scheduledStartAt, scheduledStartAt: body.scheduledStartAt, scheduledEndAt: body.scheduledEndAt });
    const byId = async () => ok(await list(`projectId=${p.projectId}`), 200).find((item) => item.id === d.id);

    t.clock.advance(minutes(5));
    await ping(t, job);
    await sweep(t);
    expect((await byId())?.status).toBe('SCHEDULED');
    expect((await jobNow(t, owner, job)).status).toBe('OK');

    t.clock.advance(minutes(6));
    await sweep(t);
    expect(await byId()).toMatchObject({ status: 'ACTIVE', autoPausedCheckIds: [job.id] });
    expect((await jobNow(t, owner, job)).status).toBe('PAUSED');

    t.clock.advance(minutes(20));
    await sweep(t);
    expect(await byId()).toMatchObject({ status: 'ENDED', endedAt: t.clock.now().toISOString() });
    expect((await jobNow(t, owner, job)).status).toBe('RESUMED');

    // A future startedAt schedules too.
    expect(ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, startedAt: isoIn(t, minutes(1)) }), 201).status).toBe('SCHEDULED');
  });

  it('records a finished deployment (past endedAt) as ENDED at once: nothing paused, held or signalled', async () => {
    const p = await project();
    const job = await createJob(t, p);
    await ping(t, job);
    const body = { projectId: p.projectId, autoPause: true, name: 'web', startedAt: isoIn(t, -minutes(10)), endedAt: isoIn(t, -minutes(2)) };
    const d = ok(await as(owner, 'POST', '/deployments', body), 201);
    expect(d).toMatchObject({ status: 'ENDED', startedAt: body.startedAt, endedAt: body.endedAt, scheduledEndAt: null, scheduledStartAt: null, autoPausedCheckIds: [] });
    expect((await jobNow(t, owner, job)).status).toBe('OK');
    const signals = async () => ok(await t.request<{ items: { type: string }[] }>('GET', `/signals/token/${job.token}`, { token: await session(t, owner) }), 200).items;
    expect((await signals()).map((s) => s.type)).not.toContain('DEPLOYMENT');
    // An end of "now" is not in the future: recorded too.
    const justNow = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, startedAt: isoIn(t, -minutes(1)), endedAt: isoIn(t, 0) }), 201);
    expect(justNow).toMatchObject({ status: 'ENDED', endedAt: t.clock.now().toISOString() });
    // Ending it again returns it unchanged; no hold keeps the job from going DOWN afterwards.
    expect(ok(await as(owner, 'PUT', `/deployments/${d.id}/end`), 200)).toEqual(d);
    t.clock.advance(minutes(3));
    await sweep(t);
    expect((await jobNow(t, owner, job)).status).toBe('DOWN');
    expect((await signals()).map((s) => s.type)).not.toContain('DEPLOYMENT');
    const listed = ok(await list(`projectId=${p.projectId}&start=${encodeURIComponent(isoIn(t, -minutes(9)))}&end=${encodeURIComponent(isoIn(t, -minutes(8)))}`), 200);
    expect(listed.map((item) => item.id)).toEqual([d.id]);
    expect(listed[0]).toEqual(d);
  });

  it('a future endedAt or scheduledEndAt alone is a planned end of an ACTIVE deployment', async () => {
    const p = await project();
    const planned = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, endedAt: isoIn(t, minutes(5)) }), 201);
    expect(planned).toMatchObject({ status: 'ACTIVE', endedAt: null, scheduledEndAt: isoIn(t, minutes(5)), scheduledStartAt: null });
    const endOnly = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, scheduledEndAt: isoIn(t, minutes(5)) }), 201);
    expect(endOnly).toMatchObject({ status: 'ACTIVE', endedAt: null, scheduledEndAt: isoIn(t, minutes(5)) });
    t.clock.advance(minutes(6));
    await sweep(t);
    const byId = new Map(ok(await list(`projectId=${p.projectId}`), 200).map((item) => [item.id, item]));
    expect(byId.get(planned.id)).toMatchObject({ status: 'ENDED', endedAt: t.clock.now().toISOString() });
    expect(byId.get(endOnly.id)?.status).toBe('ENDED');
  });

  it('refuses bad bodies with 400 and foreign ids with 404, creating nothing', async () => {
    const p = await project();
    const bad: Record<string, unknown>[] = [
      {},
      { projectId: p.projectId, ttlMinutes: 5 },
      { projectId: p.projectId, endedAt: isoIn(t, -minutes(1)) },
      { projectId: p.projectId, startedAt: isoIn(t, -minutes(1)), endedAt: isoIn(t, -minutes(2)) },
      { projectId: p.projectId, startedAt: isoIn(t, minutes(1)), endedAt: isoIn(t, -minutes(2)) },
      { projectId: p.projectId, scheduledEndAt: isoIn(t, -minutes(1)) },
      { projectId: p.projectId, startedAt: isoIn(t, -minutes(5)), scheduledEndAt: isoIn(t, -minutes(1)) },
      { projectId: p.projectId, startedAt: isoIn(t, -minutes(5)), endedAt: isoIn(t, -minutes(1)), scheduledEndAt: isoIn(t, -minutes(1)) },
      { projectId: p.projectId, scheduledStartAt: isoIn(t, minutes(10)), scheduledEndAt: isoIn(t, minutes(5)) },
      { projectId: p.projectId, startedAt: isoIn(t, minutes(1)), scheduledStartAt: isoIn(t, minutes(2)) },
      { projectId: p.projectId, endedAt: isoIn(t, minutes(1)), scheduledEndAt: isoIn(t, minutes(2)) },
      { projectId: p.projectId, startedAt: 'tomorrow' },
      { projectId: p.projectId, startedAt: '2026-03-01T12:00:00' },
      { projectId: p.projectId, name: 'x'.repeat(256) },
      { projectId: p.projectId, link: 'ftp://example.com' },
      { projectId: p.projectId, autoPause: 1 },
    ];
    for (const body of bad) expectError(await as(owner, 'POST', '/deployments', body), 400);
    const foreign = await createJob(t, stranger);
    expectError(await as(owner, 'POST', '/deployments', { projectId: stranger.projectId }), 404);
    expectError(await as(owner, 'POST', '/deployments', { projectId: p.projectId, checkIds: [foreign.id] }), 404);
    expect(ok(await list(`projectId=${p.projectId}`), 200)).toEqual([]);
    expectError(await t.request('POST', '/deployments', { token: owner.key, body: { projectId: p.projectId } }), 401);
  });
});

describe('PUT /deployments/:id/end', () => {
  it('ends now or at a given past endedAt; a second end returns it unchanged', async () => {
    const p = await project();
    const d = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId }), 201);
    t.clock.advance(minutes(10));
    expectError(await as(owner, 'PUT', `/deployments/${d.id}/end`, { endedAt: isoIn(t, minutes(1)) }), 400);
    expectError(await as(owner, 'PUT', `/deployments/${d.id}/end`, { endedAt: isoIn(t, -minutes(11)) }), 400);
    expectError(await as(owner, 'PUT', `/deployments/${d.id}/end`, { endedAt: isoIn(t, -minutes(1)), extra: true }), 400);
    const endedAt = isoIn(t, -minutes(2));
    const ended = ok(await as(owner, 'PUT', `/deployments/${d.id}/end`, { endedAt }), 200);
    expect(ended).toMatchObject({ status: 'ENDED', endedAt });
    expect(ok(await as(owner, 'PUT', `/deployments/${d.id}/end`), 200)).toEqual(ended);

    const other = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId }), 201);
    expect(ok(await as(owner, 'PUT', `/deployments/${other.id}/end`), 200)).toMatchObject({ status: 'ENDED', endedAt: t.clock.now().toISOString() });
  });

  it('an ended SCHEDULED deployment never starts', async () => {
    const p = await project();
    const job = await createJob(t, p);
    await ping(t, job);
    const d = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, autoPause: true, scheduledStartAt: isoIn(t, minutes(2)) }), 201);
    expect(ok(await as(owner, 'PUT', `/deployments/${d.id}/end`), 200).status).toBe('ENDED');
    t.clock.advance(minutes(3));
    await sweep(t);
    expect((await jobNow(t, owner, job)).status).not.toBe('PAUSED');
  });

  it('404s foreign and unknown ids; a VIEWER may list but not open or end', async () => {
    const d = ok(await as(owner, 'POST', '/deployments', { projectId: owner.projectId }), 201);
    expectError(await as(stranger, 'PUT', `/deployments/${d.id}/end`), 404);
    expectError(await as(owner, 'PUT', '/deployments/999999/end'), 404);
    expectError(await as(viewer, 'PUT', `/deployments/${d.id}/end`), 403);
    expectError(await as(viewer, 'POST', '/deployments', { projectId: owner.projectId }), 403);
    expect(ok(await list(`projectId=${owner.projectId}`, viewer), 200).map((item) => item.id)).toContain(d.id);
    expectError(await list(`projectId=${owner.projectId}`, stranger), 404);
  });
});

describe('GET /deployments', () => {
  it('needs projectId, answers an array newest first, filters by time range and by check', async () => {
    const p = await project();
    const a = await createJob(t, p);
    const b = await createJob(t, p);
    const everything = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId }), 201);
    ok(await as(owner, 'PUT', `/deployments/${everything.id}/end`), 200);
    t.clock.advance(minutes(30));
    const onlyA = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, checkIds: [a.id] }), 201);
    const onlyB = ok(await as(owner, 'POST', '/deployments', { projectId: p.projectId, checkIds: [b.id] }), 201);

    expectError(await list(''), 400);
    expectError(await list('projectId=abc'), 400);
    expect(ok(await list(`projectId=${p.projectId}`), 200).map((d) => d.id)).toEqual([onlyB.id, onlyA.id, everything.id]);
    expect(ok(await list(`projectId=${p.projectId}&checkId=${a.id}`), 200).map((d) => d.id)).toEqual([onlyA.id, everything.id]);
    const recent = `start=${encodeURIComponent(isoIn(t, -minutes(1)))}`;
    expect(ok(await list(`projectId=${p.projectId}&${recent}`), 200).map((d) => d.id)).toEqual([onlyB.id, onlyA.id]);
    const early = `end=${encodeURIComponent(isoIn(t, -minutes(20)))}`;
    expect(ok(await list(`projectId=${p.projectId}&${early}`), 200).map((d) => d.id)).toEqual([everything.id]);
    expectError(await list(`projectId=${p.projectId}&start=${encodeURIComponent(isoIn(t, 0))}&end=${encodeURIComponent(isoIn(t, -minutes(1)))}`), 400);
    const foreign = await createJob(t, stranger);
    expectError(await list(`projectId=${p.projectId}&checkId=${foreign.id}`), 404);
    const elsewhere = await createJob(t, owner);
    expect(ok(await list(`projectId=${p.projectId}&checkId=${elsewhere.id}`), 200)).toEqual([]);
  });
});
