import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import type { Page } from '../http/pagination.js';
import { createJob, jobNow, member, minutes, ok, ping, session, sweep, v1, type Job, type User } from '../../test/support/windows.js';
import type { DashboardDeploymentView, DeploymentView } from './schema.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await member(t, 'releaser');
});

type CheckView = { id: number; status: string; paused: boolean; deploymentPaused: boolean };
type SignalView = { type: string; source: string; receivedAt: string; details: Record<string, unknown> | null };

const project = async (): Promise<User> => ({ ...user, projectId: ok(await v1<{ id: number }>(t, user.key, 'POST', '/projects', { name: 'svc' }), 201).id });
const runningJob = async (owner: User): Promise<Job> => {
  const job = await createJob(t, owner);
  await ping(t, job);
  return job;
};
const dashboardCheck = async (job: Job) => ok(await t.request<CheckView>('GET', `/checks/${job.id}`, { token: await session(t, user) }), 200);
const signals = async (job: Job) => ok(await t.request<Page<SignalView>>('GET', `/signals/token/${job.token}`, { token: await session(t, user) }), 200).items;
const incidents = async (job: Job) =>
  ok(await t.request<Page<{ state: string }>>('GET', `/incidents?workspaceId=${user.workspaceId}&checkId=${job.id}`, { token: await session(t, user) }), 200).items;
const open = async (body: Record<string, unknown>) => ok(await v1<DeploymentView>(t, user.key, 'POST', '/deployments', body), 201);
const end = async (d: DeploymentView) => ok(await v1<DeploymentView>(t, user.key, 'POST', `/deployments/${d.id}/end`), 200);
const record = async (d: DeploymentView) => {
  const list = ok(await t.request<DashboardDeploymentView[]>('GET', `/deployments?projectId=${d.projectId}`, { token: await session(t, user) }), 200);
  return list.find((item) => item.id === d.id);
};

describe('deployment windows and checks', () => {
  it('holds a job that would go DOWN during an active deployment (without autoPause); it moves after the window', async () => {
    const owner = await project();
    const job = await runningJob(owner);
    const d = await open({ projectId: owner.projectId, autoPause: false });
    t.clock.advance(minutes(10));
    await sweep(t);
    expect((await jobNow(t, user, job)).status).toBe('OK');
    expect(await incidents(job)).toEqual([]);

    await end(d);
    await sweep(t);
    expect((await jobNow(t, user, job)).status).toBe('DOWN');
    expect((await incidents(job)).map((i) => i.state)).toEqual(['ACTIVE']);
  });

  it('autoPause pauses every check of the project, resolves their incidents, records DEPLOYMENT signals; the end resumes only what it paused', async () => {
    const owner = await project();
    const failing = await runningJob(owner);
    const healthy = await runningJob(owner);
    const byHand = await runningJob(owner);
    ok(await v1(t, user.key, 'POST', `/jobs/${byHand.id}/pause`), 200);
    t.clock.advance(minutes(2));
    await sweep(t);
    await ping(t, healthy);
    expect((await jobNow(t, user, failing)).status).toBe('DOWN');
    expect((await incidents(failing)).map((i) => i.state)).toEqual(['ACTIVE']);

    const labels = { name: 'api', version: '2.4.0', author: 'ci-bot', link: 'https://ci.example.com/42' };
    const d = await open({ projectId: owner.projectId, ...labels });
    await t.deps.queue.drain();
    expect((await incidents(failing)).map((i) => i.state)).toEqual(['RESOLVED']);
    for (const job of [failing, healthy]) expect(await dashboardCheck(job)).toMatchObject({ status: 'PAUSED', paused: true, deploymentPaused: true });
    expect(await dashboardCheck(byHand)).toMatchObject({ status: 'PAUSED', deploymentPaused: false });
    expect((await record(d))?.autoPausedCheckIds.sort((a, b) => a - b)).toEqual([failing.id, healthy.id].sort((a, b) => a - b));
    const started = (await signals(healthy)).filter((s) => s.type === 'DEPLOYMENT');
    expect(started).toEqual([expect.objectContaining({ source: 'DEPLOYMENT', receivedAt: d.startedAt, details: { deploymentId: d.id, event: 'started', ...labels } })]);
    expect((await signals(byHand)).filter((s) => s.type === 'DEPLOYMENT')).toEqual([]);

    t.clock.advance(minutes(5));
    const ended = await end(d);
    await t.deps.queue.drain();
    for (const job of [failing, healthy]) expect(await dashboardCheck(job)).toMatchObject({ status: 'RESUMED', paused: false, deploymentPaused: false });
    expect(await dashboardCheck(byHand)).toMatchObject({ status: 'PAUSED', paused: true });
    expect((await signals(failing)).filter((s) => s.type === 'DEPLOYMENT').map((s) => s.details?.event)).toEqual(['ended', 'started']);
    expect((await signals(failing)).find((s) => s.details?.event === 'ended')?.receivedAt).toBe(ended.endedAt);

    // Ending again changes nothing and records nothing twice.
    await end(d);
    expect((await signals(failing)).filter((s) => s.type === 'DEPLOYMENT')).toHaveLength(2);
  });

  it('pauses only the given checkIds; a check a user resumes during the window is not paused again at its end', async () => {
    const owner = await project();
    const target = await runningJob(owner);
    const other = await runningJob(owner);
    const userResumed = await runningJob(owner);
    const d = await open({ projectId: owner.projectId, checkIds: [target.id, userResumed.id, target.id] });
    expect(d.checkIds).toEqual([target.id, userResumed.id]);
    expect((await jobNow(t, user, target)).status).toBe('PAUSED');
    expect((await jobNow(t, user, other)).status).toBe('OK');
    ok(await v1(t, user.key, 'POST', `/jobs/${userResumed.id}/resume`), 200);
    ok(await v1(t, user.key, 'POST', `/jobs/${userResumed.id}/pause`), 200);
    await end(d);
    expect((await jobNow(t, user, target)).status).toBe('RESUMED');
    expect((await jobNow(t, user, userResumed)).status).toBe('PAUSED');
  });

  it('the sweep auto-ends a deployment at its TTL and resumes its checks (injected clock)', async () => {
    const owner = await project();
    const job = await runningJob(owner);
    const d = await open({ projectId: owner.projectId, ttlMinutes: 5 });
    expect((await jobNow(t, user, job)).status).toBe('PAUSED');
    t.clock.advance(minutes(4));
    await sweep(t);
    expect((await record(d))?.status).toBe('ACTIVE');
    t.clock.advance(minutes(2));
    await sweep(t);
    const ended = await record(d);
    expect(ended).toMatchObject({ status: 'ENDED', endedAt: t.clock.now().toISOString(), scheduledEndAt: d.scheduledEndAt });
    expect((await jobNow(t, user, job)).status).toBe('RESUMED');
    // A deployment without autoPause stops holding its project at its TTL, before the sweep ends it.
    const held = await runningJob(owner);
    await open({ projectId: owner.projectId, autoPause: false, ttlMinutes: 1 });
    t.clock.advance(minutes(3));
    await sweep(t);
    expect((await jobNow(t, user, held)).status).toBe('DOWN');
  });
});
