import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { freshRateWindow, LONG_SESSIONS } from '../../test/support/checks.js';
import { checkOf, signalsOf } from '../../test/support/signals.js';
import type { JobV1 } from '../checks/schema.js';
import { emailChannel, mailTo } from '../../test/support/alerting.js';
import { runSweep } from '../sweep/index.js';
import { sweepMissedRuns } from '../sweep/missedRuns.js';

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('runner');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

type Made = JobV1 & { token: string; slug: string };
let counter = 0;
async function job(extra: Record<string, unknown> = {}): Promise<Made> {
  counter++;
  const res = await t.request<Made>('POST', '/v1/jobs', {
    token: key,
    body: { name: `runs ${counter}`, projectId: user.projectId, intervalSeconds: 3600, graceSeconds: 600, slug: `runs-${counter}`, ...extra },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The two ping forms of one job: by token (no auth) and by slug (API key in the header). */
const FORMS = {
  token: (j: Made, suffix: string, query = '') => ({ path: `/signals/ping/${j.token}${suffix}${query}`, token: undefined }),
  slug: (j: Made, suffix: string, query = '') => ({ path: `/signals/s/${j.slug}${suffix}${query}`, token: key }),
} as const;

for (const [form, url] of Object.entries(FORMS)) {
  const ping = async (j: Made, suffix = '', options: { query?: string; body?: string } = {}) => {
    const { path, token } = url(j, suffix, options.query);
    return t.request('POST', path, { ...(token ? { token } : {}), ...(options.body !== undefined ? { rawBody: options.body } : {}) });
  };

  describe(`${form} pings`, () => {
    it('exit codes: 0 is a success, 1-255 a fail, stored with the signal; 256 is 400, a word 404', async () => {
      const j = await job();
      expect((await ping(j, '/0')).status).toBe(200);
      expect((await checkOf(t, j.token)).status).toBe('OK');
      t.clock.advanceSeconds(2);
      expect((await ping(j, '/3', { body: 'backup failed: disk full' })).status).toBe(200);
      expect((await checkOf(t, j.token)).status).toBe('DOWN');
      t.clock.advanceSeconds(2);
      expect((await ping(j, '/255')).status).toBe(200);
      expectError(await ping(j, '/256'), 400, 'VALIDATION_ERROR');
      expectError(await ping(j, '/9999'), 400, 'VALIDATION_ERROR');
      expectError(await ping(j, '/restart'), 404);
      expectError(await ping(j, '/-1'), 404);
      const signals = await signalsOf(t, j.id);
      expect(signals.map((s) => [s.type, (s.details as { exitCode?: number } | undefined)?.exitCode, s.payload])).toEqual([
        ['SUCCESS', 0, undefined],
        ['FAIL', 3, 'backup failed: disk full'],
        ['FAIL', 255, undefined],
      ]);
      // The history shows it too.
      const history = await t.request<{ items: { type: string; details: { exitCode?: number } | null }[] }>('GET', `/signals/token/${j.token}`, { token: user.token });
      expect(history.body.items[1]).toMatchObject({ type: 'FAIL', details: { exitCode: 3 } });
    });

    it('/log stores the body as a LOG signal and changes nothing; log lines are never deduplicated', async () => {
      const j = await job();
      expect((await ping(j)).status).toBe(200);
      const before = await checkOf(t, j.token);
      t.clock.advanceSeconds(30);
      expect((await ping(j, '/log', { body: 'step 1 of 3 done' })).status).toBe(200);
      // Inside the 1 s dedup window, yet stored; 1 ms later so the two sort by their ids' time.
      t.clock.advance(1);
      expect((await ping(j, '/log', { body: 'step 2 of 3 done' })).status).toBe(200);
      const after = await checkOf(t, j.token);
      expect(after).toMatchObject({ status: 'OK', lastPingAt: before.lastPingAt, nextDueAt: before.nextDueAt, dueAt: before.dueAt });
      expect((await signalsOf(t, j.id)).map((s) => [s.type, s.payload])).toEqual([
        ['SUCCESS', undefined],
        ['LOG', 'step 1 of 3 done'],
        ['LOG', 'step 2 of 3 done'],
      ]);
    });

    it('run ids: two overlapping runs each get their own duration; a bad rid is 400', async () => {
      const j = await job();
      const a = randomUUID();
      const b = randomUUID();
      expect((await ping(j, '/start', { query: `?rid=${a}` })).status).toBe(200);
      t.clock.advanceSeconds(10);
      expect((await ping(j, '/start', { query: `?rid=${b}` })).status).toBe(200);
      t.clock.advanceSeconds(5);
      expect((await ping(j, '', { query: `?rid=${a}` })).status).toBe(200); // a: 15 s
      t.clock.advanceSeconds(20);
      expect((await ping(j, '/1', { query: `?rid=${b}` })).status).toBe(200); // b: 25 s, exit 1
      const ends = (await signalsOf(t, j.id)).filter((s) => s.type !== 'START');
      expect(ends.map((s) => [s.type, s.durationMs, (s.details as { rid?: string }).rid])).toEqual([
        ['SUCCESS', 15_000, a],
        ['FAIL', 25_000, b],
      ]);
      // Both runs are closed: nothing left on the check.
      const raw = await rawCheck(j.token);
      expect(Object.keys(raw).filter((name) => name.startsWith('run_'))).toEqual([]);
      expectError(await ping(j, '/start', { query: '?rid=not-a-uuid' }), 400, 'VALIDATION_ERROR');
      expectError(await ping(j, '/4', { query: '?rid=1234' }), 400, 'VALIDATION_ERROR');
    });

    it('a start without its end within the grace is a missed run once the sweep passes its bound: the job goes DOWN with an incident', async () => {
      const j = await job({ graceSeconds: 300 });
      expect((await ping(j)).status).toBe(200);
      await t.deps.queue.drain();
      t.clock.advanceSeconds(2);
      const lost = randomUUID();
      expect((await ping(j, '/start', { query: `?rid=${lost}` })).status).toBe(200);
      t.clock.advanceSeconds(299);
      await runSweep(t.deps);
      expect((await checkOf(t, j.token)).status).toBe('OK');
      // No other ping comes: the sweep alone finds it, long before the job's next hourly run.
      t.clock.advanceSeconds(2);
      await runSweep(t.deps);
      expect((await checkOf(t, j.token)).status).toBe('DOWN');
      const missed = (await signalsOf(t, j.id)).filter((s) => s.type === 'FAIL');
      expect(missed).toHaveLength(1);
      expect(missed[0]).toMatchObject({ source: 'SYSTEM', details: { reason: 'MISSED_RUN', rid: lost } });
      expect(Object.keys(await rawCheck(j.token)).filter((name) => name.startsWith('run_'))).toEqual([]);
      await t.deps.queue.drain();
      const incidents = (await t.deps.store.entities.incident.query.byCheck({ checkId: j.id }).go({ pages: 'all' })).data;
      expect(incidents.map((i) => i.state)).toEqual(['ACTIVE']);
      // Swept again: nothing more happens.
      t.clock.advanceSeconds(60);
      await runSweep(t.deps);
      expect((await signalsOf(t, j.id)).filter((s) => s.type === 'FAIL')).toHaveLength(1);
    });

    it('duration bounds: a run shorter than min or longer than max records a FAIL with the reason', async () => {
      const j = await job({ minDurationSeconds: 10, maxDurationSeconds: 60 });
      const run = async (seconds: number, rid?: string) => {
        const query = rid ? `?rid=${rid}` : '';
        expect((await ping(j, '/start', { query })).status).toBe(200);
        t.clock.advanceSeconds(seconds);
        expect((await ping(j, '', { query })).status).toBe(200);
        t.clock.advanceSeconds(2);
        return (await checkOf(t, j.token)).status;
      };
      expect(await run(30)).toBe('OK');
      expect(await run(3)).toBe('DOWN');
      expect(await run(30, randomUUID())).toBe('OK');
      expect(await run(90, randomUUID())).toBe('DOWN');
      const ends = (await signalsOf(t, j.id)).filter((s) => s.type !== 'START');
      expect(ends.map((s) => [s.type, s.durationMs])).toEqual([
        ['SUCCESS', 30_000],
        ['FAIL', 3_000],
        ['SUCCESS', 30_000],
        ['FAIL', 90_000],
      ]);
      expect((ends[1]?.details as { reason: string }).reason).toMatch(/under minDurationSeconds \(10 s\)/);
      expect((ends[3]?.details as { reason: string }).reason).toMatch(/over maxDurationSeconds \(60 s\)/);
    });

    it('minIntervalSeconds: a success too soon records TOO_FREQUENT and alerts once per episode', async () => {
      const j = await job({ minIntervalSeconds: 600 });
      expect((await ping(j)).status).toBe(200);
      t.clock.advanceSeconds(60);
      expect((await ping(j)).status).toBe(200); // too soon: an episode starts
      t.clock.advanceSeconds(60);
      expect((await ping(j)).status).toBe(200); // still too soon: same episode, no second alert
      t.clock.advanceSeconds(700);
      expect((await ping(j)).status).toBe(200); // on time: the episode ends
      t.clock.advanceSeconds(5);
      expect((await ping(j)).status).toBe(200); // too soon again: a new episode
      expect((await signalsOf(t, j.id)).map((s) => s.type)).toEqual(['SUCCESS', 'TOO_FREQUENT', 'TOO_FREQUENT', 'SUCCESS', 'TOO_FREQUENT']);
      // A too-frequent success still counts as the job's success for its timing.
      expect((await checkOf(t, j.token)).status).toBe('OK');
      const alerts = t.deps.queue.peek('alerts').filter((m) => (m as { type?: string }).type === 'check.too_frequent' && (m as { checkId?: number }).checkId === j.id);
      expect(alerts).toHaveLength(2);
      expect(alerts[0]).toMatchObject({ type: 'check.too_frequent', checkId: j.id, workspaceId: user.workspaceId, sinceSeconds: 60, minIntervalSeconds: 600 });
    });
  });
}

describe('missed runs, found by the sweep', () => {
  const start = (j: Made, rid: string) => t.request('GET', `/signals/ping/${j.token}/start?rid=${rid}`);
  const end = (j: Made, rid: string) => t.request('GET', `/signals/ping/${j.token}?rid=${rid}`);
  const missedRuns = async (j: Made) => (await signalsOf(t, j.id)).filter((s) => (s.details as { reason?: string } | undefined)?.reason === 'MISSED_RUN');

  it('waits for maxDurationSeconds when it is longer than the grace', async () => {
    const j = await job({ graceSeconds: 60, maxDurationSeconds: 900 });
    const rid = randomUUID();
    expect((await start(j, rid)).status).toBe(200);
    t.clock.advanceSeconds(61);
    await sweepMissedRuns(t.deps, t.clock.now());
    expect(await missedRuns(j)).toEqual([]);
    t.clock.advanceSeconds(840);
    const report = await sweepMissedRuns(t.deps, t.clock.now());
    expect(report.missed).toBeGreaterThanOrEqual(1);
    expect((await missedRuns(j)).map((s) => (s.details as { rid: string }).rid)).toEqual([rid]);
    expect((await checkOf(t, j.token)).status).toBe('DOWN');
  });

  it('an end that lands just before the sweep wins: no missed run, the job stays OK', async () => {
    const j = await job({ graceSeconds: 60 });
    const rid = randomUUID();
    expect((await start(j, rid)).status).toBe(200);
    t.clock.advanceSeconds(61);
    expect((await end(j, rid)).status).toBe(200);
    await sweepMissedRuns(t.deps, t.clock.now());
    expect(await missedRuns(j)).toEqual([]);
    expect((await checkOf(t, j.token)).status).toBe('OK');
    // The run's index entry is gone: later sweeps do not read it again.
    const [started] = (await signalsOf(t, j.id)).filter((s) => s.type === 'START');
    expect(started).toBeDefined();
    expect([started?.runDueAt, started?.runDueShard]).toEqual([undefined, undefined]);
  });

  it('an end and the sweep at the same moment, and two sweeps at once: the run counts once, missed or ended, never both', async () => {
    const j = await job({ graceSeconds: 60 });
    const rid = randomUUID();
    expect((await start(j, rid)).status).toBe(200);
    t.clock.advanceSeconds(61);
    const [ended] = await Promise.all([end(j, rid), sweepMissedRuns(t.deps, t.clock.now()), sweepMissedRuns(t.deps, t.clock.now())]);
    expect(ended.status).toBe(200);
    await sweepMissedRuns(t.deps, t.clock.now());
    const missed = await missedRuns(j);
    const success = (await signalsOf(t, j.id)).filter((s) => s.type === 'SUCCESS');
    expect(success).toHaveLength(1);
    expect(missed.length).toBeLessThanOrEqual(1);
    // An end that came first carries the run's duration; one that came after the miss has none (the run was already counted).
    expect(success[0]?.durationMs === undefined).toBe(missed.length === 1);
    // Whatever the order, the end was the last word: a success.
    expect((await checkOf(t, j.token)).status).toBe('OK');
    expect(Object.keys(await rawCheck(j.token)).filter((name) => name.startsWith('run_'))).toEqual([]);
  });

  it('a start whose START signal could not be stored answers 500 and leaves no open run the sweep could not see', async () => {
    const j = await job({ graceSeconds: 60 });
    const rid = randomUUID();
    const client = t.deps.store.hot;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand') throw new Error('store unavailable');
        return next(args);
      },
      { step: 'initialize', name: 'failPuts' },
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const failed = await start(j, rid);
    client.middlewareStack.remove('failPuts');
    logged.mockRestore();
    expectError(failed, 500);
    expect(Object.keys(await rawCheck(j.token)).filter((name) => name.startsWith('run_'))).toEqual([]);
    // The client's retry opens the run, and the sweep finds it missed.
    expect((await start(j, rid)).status).toBe(200);
    t.clock.advanceSeconds(61);
    await sweepMissedRuns(t.deps, t.clock.now());
    expect((await missedRuns(j)).map((s) => (s.details as { rid: string }).rid)).toEqual([rid]);
  });

  it('an end whose signal could not be stored answers 500 and gives its run start back: the retry carries the duration', async () => {
    for (const rid of [randomUUID(), undefined]) {
      const j = await job({ graceSeconds: 600 });
      const suffix = rid === undefined ? '' : `?rid=${rid}`;
      expect((await t.request('GET', `/signals/ping/${j.token}/start${suffix}`)).status).toBe(200);
      t.clock.advanceSeconds(30);
      const client = t.deps.store.hot;
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === 'PutItemCommand') throw new Error('store unavailable');
          return next(args);
        },
        { step: 'initialize', name: 'failEndPuts' },
      );
      const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const failed = await t.request('GET', `/signals/ping/${j.token}${suffix}`);
      client.middlewareStack.remove('failEndPuts');
      logged.mockRestore();
      expectError(failed, 500);
      t.clock.advanceSeconds(2);
      expect((await t.request('GET', `/signals/ping/${j.token}${suffix}`)).status).toBe(200);
      const success = (await signalsOf(t, j.id)).filter((s) => s.type === 'SUCCESS');
      expect(success.map((s) => s.durationMs)).toEqual([32_000]);
    }
  });

  it('caps open runs per job: a start past 100 open runs is refused with 409 and opens nothing; a restart and a start after an end are fine', async () => {
    const j = await job({ graceSeconds: 86_400 });
    const rids = Array.from({ length: 100 }, () => randomUUID());
    for (const rid of rids) {
      // One a second: the per-check ping rate limit (100 a minute) is not what this test is about.
      t.clock.advanceSeconds(1);
      expect((await start(j, rid)).status).toBe(200);
    }
    t.clock.advanceSeconds(1);
    const refused = await start(j, randomUUID());
    expectError(refused, 409, 'CONFLICT');
    expect(Object.keys(await rawCheck(j.token)).filter((name) => name.startsWith('run_'))).toHaveLength(100);
    expect((await signalsOf(t, j.id)).filter((s) => s.type === 'START')).toHaveLength(100);
    t.clock.advanceSeconds(1);
    expect((await start(j, rids[0]!)).status).toBe(200);
    t.clock.advanceSeconds(1);
    expect((await end(j, rids[1]!)).status).toBe(200);
    t.clock.advanceSeconds(1);
    expect((await start(j, randomUUID())).status).toBe(200);
    expect(Object.keys(await rawCheck(j.token)).filter((name) => name.startsWith('run_'))).toHaveLength(100);
  });
});

describe('check.too_frequent through the alert dispatch', () => {
  it('mails the workspace channels once per episode', async () => {
    const owner = await t.signup('frequent');
    const ownerKey = await t.apiKey(owner);
    const { email } = await emailChannel(t, owner);
    const made = await t.request<Made>('POST', '/v1/jobs', {
      token: ownerKey,
      body: { name: 'hourly report', projectId: owner.projectId, intervalSeconds: 3600, minIntervalSeconds: 1800 },
    });
    expect(made.status, made.text).toBe(201);
    const send = async () => expect((await t.request('GET', `/signals/ping/${made.body.token}`)).status).toBe(200);
    await send();
    t.clock.advanceSeconds(120);
    await send();
    t.clock.advanceSeconds(120);
    await send();
    await t.deps.queue.drain();
    const mail = mailTo(t, email);
    expect(mail.map((m) => m.subject)).toEqual(['[Warning] Job ran too often: hourly report']);
    expect(mail[0]?.text).toContain('reported success 120 s after its previous success, sooner than its minimum interval of 1800 s');
    expect(t.deps.queue.deadLetters.alerts ?? []).toEqual([]);
  });
});

async function rawCheck(token: string): Promise<Record<string, unknown>> {
  const { GetItemCommand } = await import('@aws-sdk/client-dynamodb');
  const { marshall, unmarshall } = await import('@aws-sdk/util-dynamodb');
  const key = t.deps.store.entities.check.get({ token }).params<{ Key: Record<string, unknown> }>().Key;
  const result = await t.deps.store.hot.send(new GetItemCommand({ TableName: t.deps.store.table, Key: marshall(key), ConsistentRead: true }));
  return result.Item ? unmarshall(result.Item) : {};
}
