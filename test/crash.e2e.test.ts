import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { CLAIM_LEASE_MS } from '../core/alerting/deliveryClaim.js';
import { RETRY_BACKOFF } from '../core/ports/retry.js';

/**
 * `kill -9` of the real `npm start` process in the middle of a ping flood, of a flip and of an
 * alert's delivery, a restart on the same data directory, a sweep: every ping answered 200 is
 * stored, every owed incident and every owed alert exists exactly once (docs/guarantees.md).
 */
const CLIENTS = 8;
const JOBS_PER_CLIENT = 8;
/** Jobs 0 of the first clients get a `/fail` in their third round, then successes again. */
const FLIPPING_CLIENTS = 4;
const FLIP_ROUND = 2;
/** Killed once this many pings were answered 200 after the first flip was answered (mid-flip). */
const KILL_AFTER_FLIP = 60;
/** A job is pinged again only this long after its previous ping was answered: the 1-second dedup would swallow a repeat (it answers 200 and stores nothing). */
const SAME_JOB_GAP_MS = 1_100;
const BOOT_TIMEOUT_MS = 40_000;
const SETTLE_TIMEOUT_MS = 30_000;
/**
 * The owed alerts may take one retry (a delivery that fails once comes back after at most the
 * backoff's base, 30 s: core/ports/retry.ts), but must not wait out a delivery claim's lease (60 s:
 * core/alerting/deliveryClaim.ts): the claim the killed process left mid-send is an orphan at once.
 * Before it was, that wait made this test time out now and then (and its alerts took 70 s).
 */
const ALERTS_SETTLE_TIMEOUT_MS = (RETRY_BACKOFF.baseSeconds * 1000 + CLAIM_LEASE_MS) / 2;
const POLL_MS = 1_000;

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-crash-'));
const started: ChildProcess[] = [];
/**
 * The alert channel is a signed webhook to this loopback receiver (VIGIL_PROBE_ALLOW_PRIVATE lets
 * deliveries reach loopback): it records each delivery's `webhook-id` and event type, so the test
 * counts what really arrived, across both processes.
 */
const received: { id: string; type: string }[] = [];
/**
 * Until the kill, the receiver holds every incident delivery unanswered, so the process dies while
 * an alert is being sent: its delivery claim is left behind, and the restarted process must send
 * that alert again at once rather than wait out the claim's lease.
 */
let holding = true;
const held: ServerResponse[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    const type = (() => {
      try {
        return String((JSON.parse(body) as { type?: unknown }).type);
      } catch {
        return 'unparsable';
      }
    })();
    received.push({ id: String(req.headers['webhook-id']), type });
    if (holding && type.startsWith('incident.')) held.push(res);
    else res.writeHead(204).end();
  });
});
afterAll(() => {
  for (const res of held) res.destroy();
  receiver.close();
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

type Server = { child: ChildProcess; origin: string; storePids: number[]; output: string[] };

/** `npm start` without npm in between, so the signal reaches the server itself. */
async function boot(): Promise<Server> {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', 'functions/local.ts'], {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, PORT: '0', VIGIL_DATA_DIR: dataDir, VIGIL_SWEEP_SECONDS: '1', VIGIL_PROBE_ALLOW_PRIVATE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  const output: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen within ${BOOT_TIMEOUT_MS} ms: ${output.join('')}`)), BOOT_TIMEOUT_MS);
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${output.join('')}`)));
    lines.on('line', (line) => {
      output.push(line);
      const match = /base URL http:\/\/localhost:(\d+)\/api/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    });
  });
  await until(async () => (await fetch(`${origin}/api/health`)).status === 200, BOOT_TIMEOUT_MS, 'health');
  // Any child processes it started. The embedded stores run inside the server process
  // (core/localServer.ts), so a SIGKILL takes them down with it, mid-write: no store outlives it.
  const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return { child, origin, storePids: children, output };
}

/** `server`: its last output goes with a timeout, so a failure says what the process logged. */
async function until(ready: () => Promise<boolean>, timeoutMs: number, what: string, pollMs = POLL_MS, server?: Server): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  while (performance.now() < deadline) {
    try {
      if (await ready()) return;
    } catch (err) {
      last = err;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  const logged = server ? `\nthe server's last output:\n${server.output.join('\n').split('\n').slice(-40).join('\n')}` : '';
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}${logged}`);
}

async function call<T>(origin: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${origin}/api${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

type Job = { id: number; token: string };
type Answered = { token: string; marker: string; kind: 'success' | 'fail' };

/**
 * Each client owns its jobs and pings them in rounds, one request at a time, as a POST whose body
 * carries a marker; every 200 is recorded. It stops at the first refused connection (the kill).
 */
function flood(origin: string, jobs: readonly Job[], onAnswered: (ping: Answered) => void): Promise<void>[] {
  return Array.from({ length: CLIENTS }, async (_, client) => {
    const pool = new Pool(origin, { connections: 1 });
    const mine = jobs.slice(client * JOBS_PER_CLIENT, (client + 1) * JOBS_PER_CLIENT);
    const answeredAt = new Map<string, number>();
    try {
      for (let round = 0; round < 1_000; round++) {
        for (const [index, job] of mine.entries()) {
          const wait = (answeredAt.get(job.token) ?? 0) + SAME_JOB_GAP_MS - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const kind = index === 0 && client < FLIPPING_CLIENTS && round === FLIP_ROUND ? 'fail' : 'success';
          const marker = `c${client}-r${round}-j${index}`;
          const res = await pool.request({
            path: `/api/signals/ping/${job.token}${kind === 'fail' ? '/fail' : ''}`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ marker }),
          });
          await res.body.dump();
          answeredAt.set(job.token, performance.now());
          if (res.statusCode === 200) onAnswered({ token: job.token, marker, kind });
        }
      }
    } catch {
      // The server is gone: this client's flood is over.
    } finally {
      await pool.destroy();
    }
  });
}

const processGone = (pid: number | undefined) => pid === undefined || !existsSync(`/proc/${pid}`) || readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

describe('npm start killed with SIGKILL mid-flood and mid-flip', () => {
  it('keeps every answered ping and owes every incident and alert exactly once after a restart', async () => {
    const first = await boot();
    const signup = await call<{ access_token: string; workspace: { id: number } }>(first.origin, 'POST', '/auth/signup', undefined, {
      email: 'crash@example.com',
      password: 'correct horse battery',
      name: 'crash',
    });
    expect(signup.status).toBe(201);
    const session = signup.body.access_token;
    const workspaceId = signup.body.workspace.id;
    // A second member polls the incidents after the restart: the dashboard's 100 requests a minute
    // are per user, and the first one spends most of them reading 64 signal histories.
    expect((await call(first.origin, 'POST', '/auth/signup', undefined, { email: 'watcher@example.com', password: 'correct horse battery', name: 'watcher' })).status).toBe(201);
    expect((await call(first.origin, 'POST', `/workspaces/${workspaceId}/members`, session, { email: 'watcher@example.com', role: 'VIEWER' })).status).toBe(201);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const channel = await call<{ id: number }>(first.origin, 'POST', '/alert-channels', session, { workspaceId, name: 'ops hook', type: 'WEBHOOK', config: { url: hookUrl } });
    expect(channel.status).toBe(201);
    // Jobs through a service key: the session's 100 requests a minute are kept for the checks at the end.
    const key = await call<{ key: string }>(first.origin, 'POST', '/api-keys', session, { workspaceId, name: 'crash key', permission: 'read_write', kind: 'service' });
    expect(key.status).toBe(201);
    const projects = await call<{ id: number }[]>(first.origin, 'GET', `/projects?workspaceId=${workspaceId}`, session);
    const projectId = projects.body[0]!.id;
    const jobs = await Promise.all(
      Array.from({ length: CLIENTS * JOBS_PER_CLIENT }, async (_, i) => {
        // Long interval and grace: no sweep makes a job late during the test, only the flips change status.
        const res = await call<Job>(first.origin, 'POST', '/v1/jobs', key.body.key, { name: `job ${i}`, projectId, intervalSeconds: 3600, graceSeconds: 3600 });
        expect(res.status).toBe(201);
        return res.body;
      }),
    );
    const flipped = jobs.filter((_, i) => i % JOBS_PER_CLIENT === 0 && i / JOBS_PER_CLIENT < FLIPPING_CLIENTS);

    const answered: Answered[] = [];
    let afterFlip = -1;
    let killed = false;
    const clients = flood(first.origin, jobs, (ping) => {
      if (killed) return;
      answered.push(ping);
      if (ping.kind === 'fail' && afterFlip < 0) afterFlip = 0;
      else if (afterFlip >= 0 && ++afterFlip >= KILL_AFTER_FLIP && held.length > 0) {
        killed = true;
        first.child.kill('SIGKILL');
        holding = false;
      }
    });
    await Promise.all(clients);
    expect(killed, 'the flood ended before the kill').toBe(true);
    expect(held.length, 'an alert in flight at the kill').toBeGreaterThan(0);
    expect(answered.filter((ping) => ping.kind === 'fail').length).toBeGreaterThan(0);
    expect(first.storePids).toEqual([]);
    await until(async () => first.child.signalCode === 'SIGKILL' && first.storePids.every(processGone), SETTLE_TIMEOUT_MS, 'the killed stores to exit');

    const second = await boot();
    try {
      const login = await call<{ access_token: string }>(second.origin, 'POST', '/oauth/token', undefined, {
        grant_type: 'password',
        username: 'crash@example.com',
        password: 'correct horse battery',
      });
      expect(login.status).toBe(200);
      const token = login.body.access_token;
      const watcherLogin = await call<{ access_token: string }>(second.origin, 'POST', '/oauth/token', undefined, {
        grant_type: 'password',
        username: 'watcher@example.com',
        password: 'correct horse battery',
      });
      expect(watcherLogin.status).toBe(200);
      const watcher = watcherLogin.body.access_token;

      // Every answered ping is stored, with its body (more may be: a ping in flight at the kill).
      for (const job of jobs) {
        const history = await call<{ items: { type: string; payload: { marker?: string } | null }[] }>(second.origin, 'GET', `/signals/token/${job.token}?limit=100`, token);
        expect(history.status).toBe(200);
        const stored = new Set(history.body.items.map((signal) => signal.payload?.marker));
        const missing = answered.filter((ping) => ping.token === job.token && !stored.has(ping.marker)).map((ping) => ping.marker);
        expect(missing, `job ${job.id}`).toEqual([]);
      }

      // Each flipped job: one incident; one alert per (incident event, channel), once the sweep relayed what was owed.
      const failedJobs = flipped.filter((job) => answered.some((ping) => ping.token === job.token && ping.kind === 'fail'));
      expect(failedJobs.length).toBeGreaterThan(0);
      type Event = { type: string; message: string };
      const settled = new Map<number, { incidents: number; resolved: boolean; events: Event[] }>();
      // A success answered after the fail resolves it; without one it may be either (a success in flight at the kill).
      const recovered = (job: Job) =>
        answered.findIndex((ping) => ping.token === job.token && ping.kind === 'fail') < answered.findLastIndex((ping) => ping.token === job.token && ping.kind === 'success');
      // First the incidents (one list a poll), then their timelines: few enough requests for one user's minute.
      await until(
        async () => {
          const list = await call<{ items: { id: number; checkId?: number; resolvedAt: string | null }[] }>(
            second.origin,
            'GET',
            `/incidents?workspaceId=${workspaceId}&limit=100`,
            watcher,
          );
          if (list.status !== 200) return false;
          for (const job of failedJobs) {
            const mine = list.body.items.filter((incident) => incident.checkId === job.id);
            const [incident] = mine;
            if (!incident || (recovered(job) && incident.resolvedAt === null)) return false;
            settled.set(job.id, { incidents: mine.length, resolved: incident.resolvedAt !== null, events: [] });
          }
          return true;
        },
        SETTLE_TIMEOUT_MS,
        'owed incidents',
        POLL_MS,
        second,
      );
      await until(
        async () => {
          for (const job of failedJobs) {
            const list = await call<{ items: { id: number; resolvedAt: string | null }[] }>(
              second.origin,
              'GET',
              `/incidents?workspaceId=${workspaceId}&checkId=${job.id}`,
              watcher,
            );
            const [incident] = list.body.items ?? [];
            if (!incident) return false;
            const events = await call<Event[]>(second.origin, 'GET', `/incident-events/${incident.id}`, watcher);
            if (events.status !== 200) return false;
            settled.set(job.id, { incidents: list.body.items.length, resolved: incident.resolvedAt !== null, events: events.body });
            const owed = events.body.filter((e) => e.type === 'OPENED' || e.type === 'RESOLVED').length;
            if (events.body.filter((e) => e.type === 'ALERT_SENT').length < owed) return false;
          }
          return true;
        },
        ALERTS_SETTLE_TIMEOUT_MS,
        'owed alerts',
        2_000,
        second,
      );
      for (const job of failedJobs) {
        const { incidents, resolved, events } = settled.get(job.id)!;
        expect(incidents, `job ${job.id}`).toBe(1);
        const kinds = events.filter((e) => e.type === 'OPENED' || e.type === 'RESOLVED').map((e) => e.type);
        expect(kinds, `job ${job.id}`).toEqual(resolved ? ['OPENED', 'RESOLVED'] : ['OPENED']);
        const alerts = events.filter((e) => e.type === 'ALERT_SENT').map((e) => e.message);
        const expected = ['incident.opened', ...(resolved ? ['incident.resolved'] : [])].map((event) => `Alert sent to WEBHOOK channel "ops hook" (${event})`);
        expect([...alerts].sort(), `job ${job.id}`).toEqual(expected.sort());
      }
      // What reached the receiver: each owed incident event arrived, and any repeat is the same
      // delivery again (same webhook-id: the documented send-then-record window), never a new one.
      const incidentEvents = received.filter((hit) => hit.type.startsWith('incident.'));
      const owedEvents = [...settled.values()].reduce((sum, job) => sum + (job.resolved ? 2 : 1), 0);
      expect(new Set(incidentEvents.map((hit) => hit.id)).size).toBe(owedEvents);
      // Jobs that never failed have no incident.
      const all = await call<{ items: { checkId?: number }[]; total: number }>(second.origin, 'GET', `/incidents?workspaceId=${workspaceId}&limit=100`, watcher);
      expect(all.body.total).toBe(failedJobs.length);
    } finally {
      second.child.kill('SIGTERM');
      await until(async () => second.child.exitCode !== null || second.child.signalCode !== null, SETTLE_TIMEOUT_MS, 'a clean stop', POLL_MS, second);
      expect(second.child.exitCode, second.output.join('\n')).toBe(0);
    }
  }, 180_000);
});
