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

/** The next signal put fails, as if the process died between the check's update and its signal. */
function failNextSignal(): { stop(): void } {
  const name = `fail-signal-${Math.random().toString(36).slice(2)}`;
  let failed = false;
  t.deps.store.hot.middlewareStack.add(
    (next) => async (args) => {
      if (!failed && JSON.stringify(args.input ?? null).includes('$signal_1#receivedat')) {
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
  it('interval 10 s, grace 5 s: LATE after >15 s, DOWN after >20 s, OK again on the next ping', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 10, graceSeconds: 5 });
    await t.request('GET', `/signals/ping/${token}`);
    // Due at 10 s; the grace is lateness tolerated, so still OK up to 15 s.
    t.clock.advanceSeconds(15);
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
    // Due 10 s after the resume, LATE once its 5 s of grace have passed too.
    t.clock.advanceSeconds(15);
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
    t.clock.advanceSeconds(16);
    const reports = await Promise.all([sweepHeartbeats(t.deps, t.clock.now()), sweepHeartbeats(t.deps, t.clock.now()), sweepHeartbeats(t.deps, t.clock.now())]);
    expect(reports.reduce((sum, r) => sum + r.moved, 0)).toBe(1);
    expect((await signalsOf(t, id)).filter((s) => s.type === 'SUSPECT')).toHaveLength(1);
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->LATE SWEEP']);
  });

  it('reads only the due checks, each entry once: steady pings leave the sweep nothing to read', async () => {
    const jobs = await Promise.all(Array.from({ length: 12 }, () => createJob(t, user, key, { intervalSeconds: 60 })));
    // Every ping moves the check's own entry to the instant it would turn LATE (60 s + 5 s of grace).
    for (const job of jobs) await t.request('GET', `/signals/ping/${job.token}`);
    await runSweep(t.deps);
    t.clock.advanceSeconds(30);
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    // Ten keep pinging (their entries move to 95 s); two stop (theirs stay at 65 s).
    for (const job of jobs.slice(2)) await t.request('GET', `/signals/ping/${job.token}`);
    t.clock.advanceSeconds(31);
    // 61 s: past the two's due time but within their grace; the ten pinged ones are not read at all.
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    t.clock.advanceSeconds(5);
    expect(await heartbeats()).toEqual({ read: 2, moved: 2, held: 0, woken: 0, armed: 0, dropped: 0 });
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    for (const job of jobs.slice(2, 7)) await t.request('GET', `/signals/ping/${job.token}`);
    // 96 s: the five not pinged again go LATE; the two LATE ones reach the end of their second
    // grace (70 s) and go DOWN; the five pinged again are not read.
    t.clock.advanceSeconds(30);
    expect(await heartbeats()).toEqual({ read: 7, moved: 7, held: 0, woken: 0, armed: 0, dropped: 0 });
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    expect(await Promise.all(jobs.map(async (job) => (await checkOf(t, job.token)).status))).toEqual(['DOWN', 'DOWN', ...Array(5).fill('OK'), ...Array(5).fill('LATE')]);
  });

  it("a steady ping moves the check's own due entry in its one update, and its signal carries no wake", async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 30 });
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(20);
    await t.request('GET', `/signals/ping/${token}`);
    const lateAt = new Date(t.clock.now().getTime() + 90_000).toISOString();
    const [, steady] = await signalItemsOf(id);
    expect(steady?.wakeAt).toBeUndefined();
    expect((await rawCheck(token)).Item).toMatchObject({ dueAt: lateAt, gsi2sk: `$check_1#dueat_${lateAt.toLowerCase()}` });
    // The first ping's LATE instant (90 s) passes: nothing is read.
    t.clock.advanceSeconds(71);
    expect(await heartbeats()).toEqual({ read: 0, moved: 0, held: 0, woken: 0, armed: 0, dropped: 0 });
    t.clock.advanceSeconds(20);
    expect(await heartbeats()).toMatchObject({ read: 1, moved: 1 });
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
    t.clock.advanceSeconds(50);
    const failing = failNextSignal();
    expect((await t.request('GET', `/signals/ping/${token}`)).status).toBeGreaterThanOrEqual(500);
    failing.stop();
    logged.mockRestore();
    // The update that took the ping moved the due entry itself: no second write to lose.
    const lateAt = new Date(t.clock.now().getTime() + 90_000).toISOString();
    expect((await rawCheck(token)).Item).toMatchObject({ dueAt: lateAt, gsi2sk: `$check_1#dueat_${lateAt.toLowerCase()}` });
    t.clock.advanceSeconds(89);
    expect(await heartbeats()).toMatchObject({ read: 0, moved: 0 });
    t.clock.advance(1_001);
    expect(await heartbeats()).toMatchObject({ read: 1, moved: 1 });
    expect((await checkOf(t, token)).status).toBe('LATE');
    expect(messagesFor(id)).toEqual(['NEW->OK PING', 'OK->LATE SWEEP']);
  });

  it('legacy wake entries (written by steady pings before 2026-11-26): one written after the sweep passed its time is read; older ones are not read again', async () => {
    const { id, token } = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 3600 });
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(10);
    await t.request('GET', `/signals/ping/${token}`);
    t.clock.advanceSeconds(100);
    expect(await heartbeats()).toMatchObject({ read: 0, woken: 0, moved: 0 });
    // A wake entry as steady pings wrote them, whose due time the last sweep already passed (a clock a little off).
    const [, steady] = await signalItemsOf(id);
    if (!steady) throw new Error('no steady signal');
    const late = {
      ...steady,
      signalId: '01KZZZZZZZZZZZZZZZZZZZZZZZ',
      receivedAt: new Date(t.clock.now().getTime() - 5_000).toISOString(),
      wakeAt: new Date(t.clock.now().getTime() - 1_000).toISOString(),
      wakeShard: '0',
    };
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
    expect(report.steps.map((s) => [s.name, s.ok])).toEqual([
      ['broken', false],
      ['after', true],
    ]);
    expect(seen).toEqual([report.at]);
    expect(logged).toHaveBeenCalledWith('sweep step broken failed', expect.any(Error));
    logged.mockRestore();
  });
});
