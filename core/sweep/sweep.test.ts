import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { checkOf, createJob, signalsOf } from '../../test/support/signals.js';
import { runSweep, sweepHeartbeats, SWEEP_STEPS, type HeartbeatSweepReport } from './index.js';

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
// A table per test: the sweep reads every due check of the table.
beforeEach(async () => {
  t = await createTestContext();
  user = await t.signup('sweeper');
  key = await t.apiKey(user);
});

type Message = { type: string; checkId: number; from: string; to: string; cause: string };
const messagesFor = (checkId: number) => (t.deps.queue.peek('incidents') as Message[]).filter((m) => m.checkId === checkId).map((m) => `${m.from}->${m.to} ${m.cause}`);
const heartbeats = (): Promise<HeartbeatSweepReport> => sweepHeartbeats(t.deps, t.clock.now());

describe('missed heartbeats', () => {
  it('interval 10 s, grace 5 s: LATE after >10 s, DOWN after >15 s, OK again on the next ping', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 10, graceSeconds: 5 });
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(10);
    await runSweep(t.deps);
    expect((await checkOf(t, token)).status).toBe('OK');
    t.clock.advance(1);
    await runSweep(t.deps);
    expect((await checkOf(t, token)).status).toBe('LATE');
    t.clock.advance(4_999);
    await runSweep(t.deps);
    expect((await checkOf(t, token)).status).toBe('LATE');
    t.clock.advance(1);
    await runSweep(t.deps);
    const down = await checkOf(t, token);
    expect(down.status).toBe('DOWN');
    expect(down.dueAt).toBeUndefined();
    await runSweep(t.deps);
    expect((await signalsOf(t, id)).map((s) => `${s.type} ${s.source}`)).toEqual(['SUCCESS PING', 'SUSPECT SYSTEM', 'FAIL SYSTEM']);

    await t.request('GET', `/signals/ping/${token}`);
    expect((await checkOf(t, token)).status).toBe('OK');
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->LATE SWEEP', 'LATE->DOWN SWEEP', 'DOWN->OK PING']);
  });

  it('goes straight to DOWN when the first sweep after the deadline is past the grace too', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 10, graceSeconds: 5 });
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(60);
    await runSweep(t.deps);
    expect((await checkOf(t, token)).status).toBe('DOWN');
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->DOWN SWEEP']);
  });

  it('never alerts a NEW check, nor a paused one; a resumed one counts from the resume', async () => {
    const fresh = await createJob(t, user, key);
    const paused = await createJob(t, user, key);
    await t.request('GET', `/signals/ping/${paused.token}`);
    await t.request('POST', `/v1/jobs/${paused.id}/pause`, { token: key });
    t.clock.advanceSeconds(3600);
    await runSweep(t.deps);
    expect((await checkOf(t, fresh.token)).status).toBe('NEW');
    expect((await checkOf(t, paused.token)).status).toBe('PAUSED');
    await t.request('POST', `/v1/jobs/${paused.id}/resume`, { token: key });
    t.clock.advanceSeconds(10);
    await runSweep(t.deps);
    expect((await checkOf(t, paused.token)).status).toBe('RESUMED');
    t.clock.advance(1);
    await runSweep(t.deps);
    expect((await checkOf(t, paused.token)).status).toBe('LATE');
  });

  it('drops a stale due entry of a check that waits on nothing', async () => {
    const { id, token } = await createJob(t, user, key);
    await t.request('GET', `/signals/ping/${token}`);
    await t.request('POST', `/v1/jobs/${id}/pause`, { token: key });
    // As if a crash had left the index entry behind.
    await t.deps.store.entities.check.patch({ token }).set({ dueAt: t.clock.now().toISOString(), dueShard: '0' }).go();
    t.clock.advanceSeconds(60);
    expect(await heartbeats()).toEqual({ read: 1, moved: 0, held: 0 });
    expect((await checkOf(t, token)).dueAt).toBeUndefined();
    expect((await checkOf(t, token)).status).toBe('PAUSED');
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0 });
  });

  it('two sweeps at once make one flip, one signal and one message', async () => {
    const { id, token } = await createJob(t, user, key);
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(12);
    const reports = await Promise.all([sweepHeartbeats(t.deps, t.clock.now()), sweepHeartbeats(t.deps, t.clock.now()), sweepHeartbeats(t.deps, t.clock.now())]);
    expect(reports.reduce((sum, r) => sum + r.moved, 0)).toBe(1);
    expect((await signalsOf(t, id)).filter((s) => s.type === 'SUSPECT')).toHaveLength(1);
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->LATE SWEEP']);
  });

  it('reads only the due checks', async () => {
    const jobs = await Promise.all(Array.from({ length: 12 }, () => createJob(t, user, key, { intervalSeconds: 60 })));
    for (const job of jobs) await t.request('GET', `/signals/ping/${job.token}`);
    await runSweep(t.deps);
    t.clock.advanceSeconds(30);
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0 });
    // Two of the twelve stop pinging; the others keep going.
    t.clock.advanceSeconds(31);
    for (const job of jobs.slice(2)) await t.request('GET', `/signals/ping/${job.token}`);
    expect(await heartbeats()).toEqual({ read: 2, moved: 2, held: 0 });
  });

  it('an active deployment window holds the check where it is until the window ends', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 10, graceSeconds: 5 });
    await t.request('GET', `/signals/ping/${token}`);
    const deployment = await t.request<{ id: number }>('POST', '/v1/deployments', { token: key, body: { projectId: user.projectId, autoPause: false } });
    expect(deployment.status).toBe(201);
    t.clock.advanceSeconds(30);
    await runSweep(t.deps);
    expect((await checkOf(t, token)).status).toBe('OK');
    expect((await t.request('POST', `/v1/deployments/${deployment.body.id}/end`, { token: key })).status).toBe(200);
    t.clock.advanceSeconds(1);
    await runSweep(t.deps);
    expect((await checkOf(t, token)).status).toBe('DOWN');
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->DOWN SWEEP']);
  });
});

describe('sweep steps', () => {
  it('runs the registered steps, heartbeats included', async () => {
    expect(SWEEP_STEPS.map((s) => s.name)).toContain('heartbeats');
    const report = await runSweep(t.deps);
    expect(report.steps.map((s) => s.name)).toEqual(SWEEP_STEPS.map((s) => s.name));
  });

  it('runs extra steps at the same instant and keeps going past a failing one', async () => {
    const seen: string[] = [];
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const report = await runSweep(t.deps, {
      steps: [],
      extraSteps: [
        { name: 'broken', run: async () => Promise.reject(new Error('boom')) },
        { name: 'after', run: async (_deps, now) => seen.push(now.toISOString()) },
      ],
    });
    expect(report.steps.map((s) => [s.name, s.ok])).toEqual([['broken', false], ['after', true]]);
    expect(seen).toEqual([report.at]);
    expect(logged).toHaveBeenCalledWith('sweep step broken failed', expect.any(Error));
    logged.mockRestore();
  });
});
