import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { freshRateWindow, LONG_SESSIONS } from '../../test/support/checks.js';
import { addToWorkspace } from '../../test/support/identity.js';
import { checkOf, createJob, signalsOf, type Job } from '../../test/support/signals.js';
import { writeCheckRef } from '../store/checkLists.js';
import { HC_PING_BODY_LIMIT } from './hcPing.js';

/*
 * The exact requests Healthchecks' clients send, replayed over HTTP through the app: runitor
 * (github.com/bdd/runitor internal/api.go: `POST {api-url}/{handle}/start?rid=<uuid>` with an empty
 * text/plain body, then `POST {api-url}/{handle}/{exit code}?rid=<uuid>` whose body is the tail of
 * the command's output, `create=1` added with -create, retried on 408/429/5xx), and the curl lines of
 * healthchecks.io/docs (`curl -fsS -m 10 --retry 5 -o /dev/null URL`, `curl ... --data-raw "$m" URL`,
 * `curl -I` for HEAD). The base URL is the only change: `{signal_base_url}/ping`.
 */

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('hc');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

const RUNITOR = { 'content-type': 'text/plain', 'user-agent': 'runitor/v1.4.1 (linux-amd64; +https://bdd.fi/x/runitor)' };
const CURL = { 'user-agent': 'curl/8.5.0', accept: '*/*' };

/** runitor's request: always a POST, text/plain, its query in url.Values order (create before rid). */
function runitor(handle: string, path: string, options: { rid?: string; create?: boolean; body?: string } = {}) {
  const query = new URLSearchParams();
  if (options.create) query.set('create', '1');
  if (options.rid) query.set('rid', options.rid);
  const qs = query.size > 0 ? `?${query.toString()}` : '';
  return t.request('POST', `/ping/${handle}/${path}${qs}`, { headers: RUNITOR, rawBody: options.body ?? '' });
}

/** The state G's importer leaves: a job whose ping token is the Healthchecks check's UUID (moved as core/checks/rotate.ts moves a token). */
async function jobWithToken(uuid: string, slug?: string): Promise<Job> {
  const job = await createJob(t, user, key, { intervalSeconds: 3600, graceSeconds: 600, ...(slug ? { slug } : {}) });
  const { deps } = t;
  const current = await checkOf(t, job.token);
  await deps.store.entities.check.delete({ token: job.token }).go();
  await deps.store.entities.check.create({ ...current, token: uuid }).go();
  await writeCheckRef(deps.store, { checkId: current.checkId, token: uuid, workspaceId: current.workspaceId, checkMode: current.checkMode, projectId: current.projectId });
  return { ...job, token: uuid };
}

async function pingKey(projectId = user.projectId): Promise<string> {
  const res = await t.request<{ pingKey: string; projectId: number }>('POST', `/projects/${projectId}/ping-key`, { token: user.token });
  expect(res.status, res.text).toBe(201);
  return res.body.pingKey;
}

const summary = async (checkId: number) =>
  (await signalsOf(t, checkId)).map((s) => ({ type: s.type, details: s.details ?? null, durationMs: s.durationMs ?? null, payload: s.payload ?? null, method: s.method }));

/** One request while every PutItem to the store fails (the signal cannot be stored); its error log silenced. */
async function whilePutsFail<T>(send: () => Promise<T>): Promise<T> {
  const client = t.deps.store.hot;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand') throw new Error('store unavailable');
      return next(args);
    },
    { step: 'initialize', name: 'failPutsHc' },
  );
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    return await send();
  } finally {
    client.middlewareStack.remove('failPutsHc');
    logged.mockRestore();
  }
}

describe('runitor', () => {
  it('-uuid: a start with a run id, then the exit code with the output tail; the signals show start, exit code, duration, output and run id', async () => {
    const uuid = randomUUID();
    const job = await jobWithToken(uuid);
    const rid = randomUUID();
    const started = await runitor(uuid, 'start', { rid });
    expect([started.status, started.text]).toEqual([200, 'OK']);
    // runitor sizes its output ring buffer from this header.
    expect(started.headers.get('ping-body-limit')).toBe(String(HC_PING_BODY_LIMIT));
    expect(started.headers.get('content-type')).toMatch(/^text\/plain/);
    t.clock.advanceSeconds(42);
    const ended = await runitor(uuid, '0', { rid, body: 'dumped 3 databases\nbackup ok\n' });
    expect([ended.status, ended.text]).toEqual([200, 'OK']);
    t.clock.advanceSeconds(3600);
    const rid2 = randomUUID();
    expect((await runitor(uuid, 'start', { rid: rid2 })).status).toBe(200);
    t.clock.advanceSeconds(5);
    expect((await runitor(uuid, '2', { rid: rid2, body: 'pg_dump: connection refused\n' })).status).toBe(200);
    expect(await summary(job.id)).toEqual([
      { type: 'START', details: { rid }, durationMs: null, payload: null, method: 'POST' },
      { type: 'SUCCESS', details: { rid, exitCode: 0 }, durationMs: 42_000, payload: 'dumped 3 databases\nbackup ok\n', method: 'POST' },
      { type: 'START', details: { rid: rid2 }, durationMs: null, payload: null, method: 'POST' },
      { type: 'FAIL', details: { rid: rid2, exitCode: 2 }, durationMs: 5_000, payload: 'pg_dump: connection refused\n', method: 'POST' },
    ]);
    expect((await checkOf(t, uuid)).status).toBe('DOWN');
    // The signal history over the dashboard API shows the same, as Healthchecks' ping log does.
    const history = await t.request<{ items: { type: string; durationMs: number | null; userAgent: string | null }[] }>('GET', `/signals/token/${uuid}`, { token: user.token });
    expect(history.body.items[0]).toMatchObject({ type: 'FAIL', durationMs: 5_000, userAgent: RUNITOR['user-agent'] });
  });

  it('-slug with -ping-key: pings the project job holding that slug; -create makes it on the first start (201 Created, which runitor accepts)', async () => {
    const pk = await pingKey();
    const job = await createJob(t, user, key, { slug: 'nightly-backup' });
    const rid = randomUUID();
    expect((await runitor(`${pk}/nightly-backup`, 'start', { rid })).status).toBe(200);
    t.clock.advanceSeconds(7);
    expect((await runitor(`${pk}/nightly-backup`, '0', { rid, body: 'ok' })).text).toBe('OK');
    expect((await summary(job.id)).map((s) => [s.type, s.durationMs])).toEqual([
      ['START', null],
      ['SUCCESS', 7_000],
    ]);

    // Without -create an unknown slug is Healthchecks' 404 "not found", and nothing is made.
    const missing = await runitor(`${pk}/weekly-report`, 'start', { rid: randomUUID() });
    expect([missing.status, missing.text]).toEqual([404, 'not found']);
    const rid2 = randomUUID();
    const created = await runitor(`${pk}/weekly-report`, 'start', { rid: rid2, create: true });
    expect([created.status, created.text]).toEqual([201, 'Created']);
    t.clock.advanceSeconds(3);
    // runitor sends create=1 on the end too; the job exists by then: 200.
    const end = await runitor(`${pk}/weekly-report`, '1', { rid: rid2, create: true, body: 'report failed' });
    expect([end.status, end.text]).toEqual([200, 'OK']);
    const made = await t.request<{ id: number; name: string; slug: string; projectId: number }>('GET', '/v1/jobs/slug:weekly-report', { token: key });
    expect(made.body).toMatchObject({ name: 'weekly-report', slug: 'weekly-report', projectId: user.projectId });
    expect((await summary(made.body.id)).map((s) => [s.type, s.details, s.durationMs, s.payload])).toEqual([
      ['START', { rid: rid2 }, null, null],
      ['FAIL', { rid: rid2, exitCode: 1 }, 3_000, 'report failed'],
    ]);
  });

  it('retries after a 5xx: a start or an end that could not be stored answers 500, each retry lands once, and the run keeps its duration', async () => {
    const uuid = randomUUID();
    const job = await jobWithToken(uuid);
    const rid = randomUUID();
    // A 5xx is the app's own error (runitor retries 408, 429 and 5xx whatever the body).
    expectError(await whilePutsFail(() => runitor(uuid, 'start', { rid })), 500);
    // runitor's linear backoff: 1 s, then the same request again.
    t.clock.advanceSeconds(1);
    expect((await runitor(uuid, 'start', { rid })).status).toBe(200);
    t.clock.advanceSeconds(10);
    expectError(await whilePutsFail(() => runitor(uuid, '0', { rid, body: 'done' })), 500);
    t.clock.advanceSeconds(1);
    expect((await runitor(uuid, '0', { rid, body: 'done' })).status).toBe(200);
    // One START, one SUCCESS; the run measured from its start to the end that landed (10 s + the 1 s backoff).
    expect((await summary(job.id)).map((s) => [s.type, s.durationMs])).toEqual([
      ['START', null],
      ['SUCCESS', 11_000],
    ]);
  });
});

describe("Healthchecks' curl and shell lines", () => {
  it('GET, HEAD and POST (--data-raw) by UUID; /fail and /log; answers are plain text "OK"', async () => {
    const uuid = randomUUID();
    const job = await jobWithToken(uuid);
    // curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/<uuid>
    const get = await t.request('GET', `/ping/${uuid}`, { headers: CURL });
    expect([get.status, get.text, get.headers.get('access-control-allow-origin')]).toEqual([200, 'OK', '*']);
    t.clock.advanceSeconds(2);
    // curl -I (HEAD) answers like GET, without a body.
    const head = await t.request('HEAD', `/ping/${uuid}`, { headers: CURL });
    expect([head.status, head.text]).toEqual([200, '']);
    t.clock.advanceSeconds(2);
    // m=$(/usr/bin/certbot renew 2>&1); curl -fsS -m 10 --retry 5 --data-raw "$m" https://hc-ping.com/<uuid>
    const m = 'Cert not yet due for renewal';
    const posted = await t.request('POST', `/ping/${uuid}`, { headers: { ...CURL, 'content-type': 'application/x-www-form-urlencoded' }, rawBody: m });
    expect([posted.status, posted.text]).toEqual([200, 'OK']);
    t.clock.advanceSeconds(2);
    expect((await t.request('POST', `/ping/${uuid}/log`, { headers: CURL, rawBody: 'step 1 of 2' })).text).toBe('OK');
    // 1 ms later, so the two signals sort by their ids' time.
    t.clock.advance(1);
    expect((await t.request('GET', `/ping/${uuid}/fail`, { headers: CURL })).text).toBe('OK');
    t.clock.advanceSeconds(2);
    // A trailing slash is the success ping too (hc/api/urls.py `ping/<uuid:code>/` + "").
    expect((await t.request('GET', `/ping/${uuid}/`, { headers: CURL })).text).toBe('OK');
    expect((await summary(job.id)).map((s) => [s.type, s.method, s.payload])).toEqual([
      ['SUCCESS', 'GET', null],
      ['SUCCESS', 'HEAD', null],
      ['SUCCESS', 'POST', m],
      ['LOG', 'POST', 'step 1 of 2'],
      ['FAIL', 'GET', null],
      ['SUCCESS', 'GET', null],
    ]);
  });

  it('a Vigil token works too; the shell snippet "$?" exit status lands as the exit code', async () => {
    const job = await createJob(t, user, key, {});
    // command; curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/<uuid>/$?
    expect((await t.request('GET', `/ping/${job.token}/0`, { headers: CURL })).text).toBe('OK');
    t.clock.advanceSeconds(2);
    expect((await t.request('GET', `/ping/${job.token}/127`, { headers: CURL })).text).toBe('OK');
    expect((await summary(job.id)).map((s) => [s.type, s.details])).toEqual([
      ['SUCCESS', { exitCode: 0 }],
      ['FAIL', { exitCode: 127 }],
    ]);
  });

  it("PowerShell's Invoke-RestMethod, with and without a body", async () => {
    const uuid = randomUUID();
    const job = await jobWithToken(uuid);
    const ps = { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.19045; en-US) PowerShell/7.4.1' };
    // Invoke-RestMethod https://hc-ping.com/<uuid>
    expect((await t.request('GET', `/ping/${uuid}`, { headers: ps })).text).toBe('OK');
    t.clock.advanceSeconds(2);
    // Invoke-RestMethod -Uri https://hc-ping.com/<uuid>/fail -Method Post -Body $output (a string body is sent form-encoded)
    const res = await t.request('POST', `/ping/${uuid}/fail`, { headers: { ...ps, 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'Disk C: 98% full' });
    expect([res.status, res.text]).toEqual([200, 'OK']);
    expect((await summary(job.id)).map((s) => [s.type, s.payload])).toEqual([
      ['SUCCESS', null],
      ['FAIL', 'Disk C: 98% full'],
    ]);
  });

  it('keeps the first 100 kB of a body and drops the rest, as Healthchecks does', async () => {
    const uuid = randomUUID();
    const job = await jobWithToken(uuid);
    const body = `${'a'.repeat(HC_PING_BODY_LIMIT)}TAIL`;
    const res = await t.request('POST', `/ping/${uuid}`, { headers: RUNITOR, rawBody: body });
    expect([res.status, res.text]).toEqual([200, 'OK']);
    const [signal] = await signalsOf(t, job.id);
    expect(signal?.payload).toBe('a'.repeat(HC_PING_BODY_LIMIT));
  });

  it('refuses what Healthchecks refuses, in its words, storing nothing', async () => {
    const uuid = randomUUID();
    const job = await jobWithToken(uuid, 'refusals');
    const pk = await pingKey();
    const cases: [string, string, number, string][] = [
      ['POST', `/ping/${randomUUID()}`, 404, 'not found'],
      ['GET', `/ping/${uuid}/256`, 400, 'invalid url format'],
      ['GET', `/ping/${uuid}/start?rid=not-a-uuid`, 400, 'invalid uuid format'],
      ['GET', `/ping/${pk}/Refusals`, 400, 'invalid url format'],
      ['GET', `/ping/${pk}/refusals/restart`, 404, 'not found'],
      ['GET', '/ping/not-a-uuid', 404, 'not found'],
      ['GET', `/ping/wrongkey0000000000000/refusals`, 404, 'not found'],
    ];
    for (const [method, path, status, text] of cases) {
      const res = await t.request(method, path, { headers: CURL });
      expect([path, res.status, res.text, res.headers.get('ping-body-limit')]).toEqual([path, status, text, null]);
    }
    expect(await signalsOf(t, job.id)).toEqual([]);
  });

  it('409 "ambiguous slug" when the slug names a check of another project of the workspace, even with create=1', async () => {
    const other = await t.request<{ id: number }>('POST', '/projects', { token: user.token, body: { workspaceId: user.workspaceId, name: 'second' } });
    expect(other.status, other.text).toBe(201);
    const job = await createJob(t, user, key, { slug: 'shared-name', projectId: other.body.id });
    const pk = await pingKey();
    for (const path of [`/ping/${pk}/shared-name`, `/ping/${pk}/shared-name/start?create=1`]) {
      const res = await t.request('GET', path, { headers: CURL });
      expect([res.status, res.text]).toEqual([409, 'ambiguous slug']);
    }
    expect(await signalsOf(t, job.id)).toEqual([]);
    // The other project's own key pings it.
    const otherKey = await pingKey(other.body.id);
    expect((await t.request('GET', `/ping/${otherKey}/shared-name`, { headers: CURL })).text).toBe('OK');
  });
});

describe('project ping keys', () => {
  it('are created and rotated by ADMINs only, shown once; a rotated key stops working; foreign projects are 404', async () => {
    await createJob(t, user, key, { slug: 'rotating' });
    const first = await pingKey();
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await t.request('GET', `/ping/${first}/rotating`)).text).toBe('OK');
    const second = await pingKey();
    expect(second).not.toBe(first);
    t.clock.advanceSeconds(2);
    expect((await t.request('GET', `/ping/${first}/rotating`)).status).toBe(404);
    expect((await t.request('GET', `/ping/${second}/rotating`)).text).toBe('OK');
    // Never shown again: the project carries no key.
    const project = await t.request('GET', `/projects/${user.projectId}`, { token: user.token });
    expect(JSON.stringify(project.body)).not.toContain(second);
    // A ping key is no API key, and an API key is no ping key.
    expectError(await t.request('GET', '/v1/checks', { token: second }), 401);
    expect((await t.request('GET', `/ping/${key}/rotating`)).status).toBe(404);
    // Another workspace's project does not exist for this user; a MEMBER may not make or rotate keys.
    const stranger = await t.signup('stranger');
    expectError(await t.request('POST', `/projects/${stranger.projectId}/ping-key`, { token: user.token }), 404);
    await addToWorkspace(t, user, stranger, 'MEMBER');
    expectError(await t.request('POST', `/projects/${user.projectId}/ping-key`, { token: stranger.token }), 403);
    t.clock.advanceSeconds(2);
    expect((await t.request('GET', `/ping/${second}/rotating`)).text).toBe('OK');
  });
});
