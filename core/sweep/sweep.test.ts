import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { checkOf, createJob, signalsOf } from '../../test/support/signals.js';
import { runSweep, sweepHeartbeats, SWEEP_STEPS, type HeartbeatSweepReport } from './index.js';
import { WAKE_MARGIN_MS } from './wakes.js';

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
const signalItemsOf = async (checkId: number) => (await t.deps.store.entities.signal.query.byCheck({ checkId }).go({ pages: 'all' })).data;
const rawCheck = async (token: string) => (await t.deps.store.entities.check.get({ token }).go({ data: 'raw' })).data as unknown as { Item: Record<string, unknown> };

/** The next signal put that carries a wake entry fails, as if the process died before it. */
function failNextWake(): { stop(): void } {
  const name = `fail-wake-${Math.random().toString(36).slice(2)}`;
  let failed = false;
  t.deps.store.hot.middlewareStack.add(
    (next) => async (args) => {
      if (!failed && JSON.stringify(args.input ?? null).includes('"wakeAt"')) {
        failed = true;
        throw new Error('injected: the signal put never landed');
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { stop: () => t.deps.store.hot.middlewareStack.remove(name) };
}

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
    expect(await heartbeats()).toMatchObject({ read: 1, moved: 0, held: 0 });
    expect((await checkOf(t, token)).dueAt).toBeUndefined();
    expect((await checkOf(t, token)).status).toBe('PAUSED');
    expect(await heartbeats()).toMatchObject({ read: 0, moved: 0, held: 0 });
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

  it('reads only the due checks, each entry once', async () => {
    const jobs = await Promise.all(Array.from({ length: 12 }, () => createJob(t, user, key, { intervalSeconds: 60 })));
    // The first ping moves each check (NEW -> OK): its due time goes on the check's own entry.
    for (const job of jobs) await t.request('GET', `/signals/ping/${job.token}`);
    await runSweep(t.deps);
    t.clock.advanceSeconds(30);
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    // Ten keep pinging (steady pings: their signals carry the due time); two stop.
    for (const job of jobs.slice(2)) await t.request('GET', `/signals/ping/${job.token}`);
    t.clock.advanceSeconds(31);
    // The twelve own entries fall due: two checks move, ten were superseded by their wakes and leave the index.
    expect(await heartbeats()).toEqual({ read: 12, moved: 2, held: 0, woken: 0, armed: 0, dropped: 10 });
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    for (const job of jobs.slice(2, 7)) await t.request('GET', `/signals/ping/${job.token}`);
    // The ten wakes fall due: the five pinged again since are read and left alone, the other five
    // go LATE; the two LATE ones reach the end of their grace on their own entries and go DOWN.
    t.clock.advanceSeconds(30);
    expect(await heartbeats()).toEqual({ read: 2, moved: 7, held: 0, woken: 10, armed: 0, dropped: 0 });
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    expect(await Promise.all(jobs.map(async (job) => (await checkOf(t, job.token)).status))).toEqual(['DOWN', 'DOWN', ...Array(5).fill('OK'), ...Array(5).fill('LATE')]);
  });

  it('a steady ping writes its due time on its signal and leaves the check in no index', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 30 });
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(20);
    await t.request('GET', `/signals/ping/${token}`);
    const [, steady] = await signalItemsOf(id);
    expect(steady?.wakeAt).toBe(new Date(t.clock.now().getTime() + 60_000).toISOString());
    expect((await checkOf(t, token)).wakeSignalId).toBe(steady?.signalId);
    // The first ping's own entry falls due: superseded, and the wake is there, so it is removed.
    t.clock.advanceSeconds(41);
    expect(await heartbeats()).toEqual({ read: 1, moved: 0, held: 0, woken: 0, armed: 0, dropped: 1 });
    expect(await rawCheck(token)).not.toHaveProperty('gsi2sk');
    t.clock.advanceSeconds(20);
    expect(await heartbeats()).toMatchObject({ woken: 1, moved: 1 });
    expect((await checkOf(t, token)).status).toBe('LATE');
    t.clock.advanceSeconds(30);
    await runSweep(t.deps);
    expect((await checkOf(t, token)).status).toBe('DOWN');
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->LATE SWEEP', 'LATE->DOWN SWEEP']);
  });

  it('a steady ping whose signal never landed still leaves its check due on time', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 30 });
    await t.request('GET', `/signals/ping/${token}`);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    for (let round = 0; round < 2; round++) {
      // Round 0: the first ping's own entry is still there; round 1: only the last wake is.
      t.clock.advanceSeconds(50);
      const failing = failNextWake();
      expect((await t.request('GET', `/signals/ping/${token}`)).status).toBeGreaterThanOrEqual(500);
      failing.stop();
      expect((await checkOf(t, token)).dueAt).toBe(new Date(t.clock.now().getTime() + 60_000).toISOString());
      t.clock.advanceSeconds(11);
      // The older entry falls due, finds the check due later and no wake for that: it arms the check's own.
      expect(await heartbeats()).toMatchObject({ moved: 0, armed: 1 });
      // Round 0 ends with a good steady ping, so round 1 starts from its wake alone.
      if (round === 0) {
        t.clock.advanceSeconds(2);
        expect((await t.request('GET', `/signals/ping/${token}`)).status).toBe(200);
        t.clock.advanceSeconds(47);
        expect(await heartbeats()).toMatchObject({ read: 1, dropped: 1, moved: 0 });
      }
    }
    logged.mockRestore();
    t.clock.advanceSeconds(50);
    expect(await heartbeats()).toMatchObject({ read: 1, moved: 1 });
    expect((await checkOf(t, token)).status).toBe('LATE');
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->LATE SWEEP']);
  });

  it('reads a wake written after the sweep passed its time; older ones are not read again', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 3600 });
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(10);
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(100);
    // The first ping's own entry (superseded, due at 60 s) brings the sweep: the check is due (70 s) and moves.
    expect(await heartbeats()).toMatchObject({ read: 1, woken: 0, moved: 1 });
    // A ping written just now whose due time the last sweep already passed (a clock a little off).
    const steady = (await signalItemsOf(id)).find((signal) => signal.wakeAt !== undefined);
    if (!steady) throw new Error('no steady signal');
    const late = { ...steady, signalId: '01KZZZZZZZZZZZZZZZZZZZZZZZ', receivedAt: new Date(t.clock.now().getTime() - 5_000).toISOString(), wakeAt: new Date(t.clock.now().getTime() - 1_000).toISOString() };
    await t.deps.store.entities.signal.put(late).go();
    t.clock.advanceSeconds(10);
    expect(await heartbeats()).toMatchObject({ woken: 1, moved: 0 });
    // Entries of pings that recent are read again until the margin has passed them (changing nothing).
    expect(await heartbeats()).toMatchObject({ woken: 1, moved: 0 });
    t.clock.advance(WAKE_MARGIN_MS);
    expect(await heartbeats()).toMatchObject({ woken: 1, moved: 0 });
    // Once the mark is a margin past its ping, it is not read again.
    expect(await heartbeats()).toMatchObject({ woken: 0, moved: 0 });
  });

  it('a mark left ahead by a sweep whose clock ran ahead: later sweeps still run, and read nothing twice', async () => {
    const { token } = await createJob(t, user, key, { intervalSeconds: 60 });
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(10);
    await t.request('GET', `/signals/ping/${token}`);
    // One sweep three minutes ahead of everyone else's clock: the check is LATE from its point of view.
    expect(await sweepHeartbeats(t.deps, new Date(t.clock.now().getTime() + 180_000))).toMatchObject({ moved: 1 });
    expect(await heartbeats()).toMatchObject({ woken: 0, moved: 0 });
    expect((await runSweep(t.deps)).steps.find((step) => step.name === 'heartbeats')?.ok).toBe(true);
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
