import { execFile, fork } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';
import { createLocalDeps, type LocalDeps } from '../core/runtime.js';
import { checkKey } from '../core/store/checkKeys.js';
import type { CheckItem } from '../core/store/entities/check.js';
import { getItems } from '../core/store/batch.js';
import type { Store } from '../core/store/service.js';
import { runSweep, SWEEP_STEPS, type SweepReport } from '../core/sweep/index.js';
import type { HeartbeatSweepReport } from '../core/sweep/heartbeats.js';
import { steadyUsdPerMillionPings } from './aws.js';
import { processCpuMs } from './proc.js';
import { profilePhase } from './profile.js';
import { seedChecks } from './seed.js';
import { meterSteps } from './stepMeter.js';
import type { ReceiverCounts } from './alertReceiver.js';
import type { SteadyJob, WindowResult } from './steadyLoad.js';

/**
 * The steady state users live in, `BENCH_ONLY=steady`: 4,000 heartbeat jobs, each
 * pinging once per 20-second interval with up to a second of jitter either way, through the real
 * HTTP server on the embedded store on disk, with the evaluator sweep every 10 s in the server's
 * process. Then 1% of the jobs go silent (the sweep's reads must follow them only), then all of
 * them at once (a partition: the mass outage), then all ping again within one interval (the mass
 * recovery). CPU is every process of the tree (server with its sweep, store, queue store), read
 * from /proc; the load generator and the alerts' webhook receiver run apart and are not counted.
 */
const JOBS = Number(process.env.BENCH_STEADY_JOBS ?? 4_000);
const INTERVAL_S = 20;
const GRACE_S = 10;
const JITTER_MS = 1_000;
const SWEEP_MS = 10_000;
const MEASURED_INTERVALS = 3;
/** Intervals of pings alone measured before the steady state (after one that warms). */
const PACED_INTERVALS = 2;
const SILENT_SHARE = 0.01;
const CONNECTIONS = 64;
const OUTAGE_LIMIT_S = 300;
/** The mass recovery's own limit (the target is 120 s): the jobs keep pinging until then. */
const RECOVERY_LIMIT_S = 150;
const exec = promisify(execFile);

type Meter = (store: Pick<Store, 'client' | 'hot'>) => { on: boolean; requests: number; itemsRead: number };
type Print = (name: string, value: number, digits?: number) => void;
type Pids = { store: number | undefined; queueStore: number | undefined };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuNow = (pids: Pids) => {
  const own = process.cpuUsage();
  // A store in this process (no pid) is already in this process's own figure, its threads included.
  const child = (pid: number | undefined) => (pid === undefined ? 0 : processCpuMs(pid));
  return (own.user + own.system) / 1000 + child(pids.store) + child(pids.queueStore);
};
function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}
const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
};

/** Runs bench/steadyLoad.ts in a process of its own: the load generator's CPU is not the server's. */
async function runLoad(job: SteadyJob): Promise<WindowResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-steady-'));
  try {
    const file = join(dir, 'job.json');
    writeFileSync(file, JSON.stringify(job));
    const { stdout } = await exec(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', new URL('./steadyLoad.ts', import.meta.url).pathname, file], {
      maxBuffer: 1 << 22,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as WindowResult[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The webhook receiver the bench's escalation policy pages, in a process of its own
 * (bench/alertReceiver.ts): not counted, as the load generator is not. `counts` asks it how many
 * checks it has heard of (one answer at a time: the bench polls in turn).
 */
async function startReceiver(): Promise<{ port: number; counts: () => Promise<ReceiverCounts>; stop: () => void }> {
  const child = fork(new URL('./alertReceiver.ts', import.meta.url).pathname, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the alert receiver exited (${code ?? 'signal'})`)));
  });
  return {
    port,
    counts: () =>
      new Promise<ReceiverCounts>((resolve) => {
        child.once('message', (message: ReceiverCounts) => resolve(message));
        child.send({ count: true });
      }),
    stop: () => child.disconnect(),
  };
}

/** The sweep every 10 s, as `npm start` runs it, each one timed and its reads counted apart, step by step. */
function sweepLoop(deps: LocalDeps, meter: ReturnType<Meter>) {
  const sweeps: { at: number; ms: number; itemsRead: number; byStep: Map<string, number>; heartbeats: HeartbeatSweepReport | undefined }[] = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const began = performance.now();
      const read = meter.itemsRead;
      const byStep = new Map<string, number>();
      const steps = SWEEP_STEPS.map((step) => ({
        name: step.name,
        run: async (stepDeps: LocalDeps, now: Date) => {
          const before = meter.itemsRead;
          try {
            return await step.run(stepDeps, now);
          } finally {
            byStep.set(step.name, meter.itemsRead - before);
          }
        },
      }));
      meter.on = true;
      const report: SweepReport = await runSweep(deps, { steps });
      meter.on = false;
      const heartbeats = report.steps.find((step) => step.name === 'heartbeats')?.result as HeartbeatSweepReport | undefined;
      sweeps.push({ at: Date.now(), ms: performance.now() - began, itemsRead: meter.itemsRead - read, byStep, heartbeats });
      await sleep(Math.max(0, SWEEP_MS - (performance.now() - began)));
    }
  })();
  return {
    sweeps,
    between: (from: number, to: number) => sweeps.filter((sweep) => sweep.at >= from && sweep.at < to),
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

export async function steadyBenchmark(endpoint: string, queueEndpoint: string, pids: Pids, dataDir: string, meter: Meter, print: Print): Promise<void> {
  const receiver = await startReceiver();
  const hook = `http://127.0.0.1:${receiver.port}/hook`;
  // The server's own sweep timer is pushed out of the way: the bench runs the same sweep on the
  // same schedule in this process, through deps of its own so that its reads are counted apart.
  const settings = { VIGIL_TABLE_NAME: 'bench_steady', VIGIL_DYNAMODB_ENDPOINT: endpoint, VIGIL_DATA_DIR: dataDir, VIGIL_PROBE_ALLOW_PRIVATE: '1', VIGIL_SWEEP_SECONDS: '3600' };
  // The queue store is the bench's own, as `npm start`'s is the server's: the server is the only
  // runtime that receives from it (the sweep's deps below share its queue), so it leases a batch at once.
  const server = await startLocalServer(loadConfig({ PORT: '0', ...settings }), { log: false, queueEndpoint, ownsQueueStore: true });
  // The server's own store requests (the pings'; the sweep's go through its own deps), counted in
  // the steady window. Added before the server's first request: the plain client caches its middleware.
  const serverMeter = meter(server.deps.store);
  // The sweep's deps share the server's queue, as `npm start`'s sweep does: its flips go straight
  // to the server's incidents consumer (docs/adr/0017-status-changes-skip-the-local-queue.md).
  const sweepDeps: LocalDeps = { ...(await createLocalDeps({ config: loadConfig(settings), endpoint, queueEndpoint, autoDrain: false })), queue: server.deps.queue };
  const sweepMeter = meter(sweepDeps.store);
  const steps = [meterSteps([server.deps.store, sweepDeps.store], ''), meterSteps([server.deps.queue.store], 'queue store: ')];
  const api = server.baseUrl;
  const origin = api.replace(/\/api$/, '');
  let loop: ReturnType<typeof sweepLoop> | undefined;
  try {
    const signup = await fetch(`${api}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `steady-${process.pid}@example.com`, password: 'benchmark password', name: 'bench' }),
    });
    const me = (await signup.json()) as { access_token: string; workspace: { id: number } };
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: { authorization: `Bearer ${me.access_token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const workspaceId = me.workspace.id;
    const [project] = await call<{ id: number }[]>('GET', `/projects?workspaceId=${workspaceId}`);
    if (!project) throw new Error('sign-up made no project');
    const channel = await call<{ id: number }>('POST', '/alert-channels', { workspaceId, name: 'receiver', type: 'WEBHOOK', config: { url: hook } });
    await call('POST', '/escalation-policies', {
      workspaceId,
      name: 'bench',
      priority: 0,
      projectIds: null,
      steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: channel.id }] }],
    });
    const activeIncidents = async () => (await call<{ total: number }>('GET', `/incidents?workspaceId=${workspaceId}&state=ACTIVE&limit=1`)).total;

    const intervalMs = INTERVAL_S * 1000;
    const paced = await pacedPings(server.deps, { workspaceId, projectId: project.id }, origin, pids, intervalMs);
    print('paced_pings', paced.pings);
    print('paced_cpu_ms_per_ping', paced.cpuMs / paced.pings, 3);
    print('paced_ping_p99_ms', paced.p99);
    print('paced_ping_errors', paced.failed);

    // Jobs spread evenly over the interval, each already pinged once (its first ping's cold path
    // is not the steady state): due at its phase, LATE 10 s later.
    const start = Date.now() + 15_000;
    const offsetsMs = Array.from({ length: JOBS }, (_, i) => Math.floor((i * intervalMs) / JOBS));
    const checks = await seedChecks(server.deps, { workspaceId, projectId: project.id }, JOBS, (i) => {
      const due = start + (offsetsMs[i] ?? 0);
      return {
        status: 'OK',
        intervalSeconds: INTERVAL_S,
        graceSeconds: GRACE_S,
        lastPingAt: new Date(due - intervalMs).toISOString(),
        nextDueAt: new Date(due).toISOString(),
        dueAt: new Date(due + GRACE_S * 1000).toISOString(),
        dueShard: '0',
      };
    });
    const tokens = checks.map((check) => check.token);
    const silentFrom = JOBS - Math.round(JOBS * SILENT_SHARE);
    const statuses = async () => {
      const items = await getItems(
        server.deps.store,
        tokens.map((token) => checkKey(token)),
      );
      const count: Record<string, number> = {};
      for (const item of items) {
        const status = (item as Partial<CheckItem> | undefined)?.status ?? 'missing';
        count[status] = (count[status] ?? 0) + 1;
      }
      return count;
    };

    loop = sweepLoop(sweepDeps, sweepMeter);
    // Interval 1 warms the ping path's per-process hints (one read per job); intervals 2-4 are the
    // steady state; from interval 5 on, 1% of the jobs are silent for three intervals.
    const steadyFrom = start + intervalMs;
    const steadyTo = steadyFrom + MEASURED_INTERVALS * intervalMs;
    const silentTo = steadyTo + MEASURED_INTERVALS * intervalMs;
    const cpuAt = new Map<number, number>();
    const sizeAt = new Map<number, number>();
    const profiles = new Map<number, Promise<() => Promise<void>>>();
    setTimeout(() => profiles.set(steadyFrom, profilePhase('steady-app')), steadyFrom - Date.now()).unref();
    setTimeout(() => void profiles.get(steadyFrom)?.then((stop) => stop()), steadyTo - Date.now()).unref();
    for (const at of [steadyFrom, steadyTo, silentTo]) {
      setTimeout(() => {
        serverMeter.on = at === steadyFrom;
        cpuAt.set(at, cpuNow(pids));
        sizeAt.set(at, dirBytes(dataDir));
      }, at - Date.now()).unref();
    }
    const [steady, silent] = await runLoad({
      origin,
      tokens,
      offsetsMs,
      intervalMs,
      jitterMs: JITTER_MS,
      connections: CONNECTIONS,
      segments: [
        { from: start, to: steadyTo, firstToken: 0, endToken: JOBS },
        // Without the outage after it, the other 99% keep pinging past the window's last sweep:
        // cut off at its end, the jobs due in its last second would turn LATE before the count.
        { from: steadyTo, to: process.env.BENCH_STEADY_SKIP_OUTAGE ? silentTo + SWEEP_MS + 2_000 : silentTo, firstToken: 0, endToken: silentFrom },
      ],
      windows: [
        { name: 'steady', from: steadyFrom, to: steadyTo },
        { name: 'silent', from: steadyTo, to: silentTo },
      ],
    });
    if (!steady || !silent) throw new Error('the load generator reported no windows');
    // The last sweeps of the silent window run after the load: the silent jobs' DOWN may lie there.
    await sleep(Math.max(0, silentTo + SWEEP_MS + 1_000 - Date.now()));

    const steadySweeps = loop.between(steadyFrom, steadyTo);
    const steadyCpu = (cpuAt.get(steadyTo) ?? Number.NaN) - (cpuAt.get(steadyFrom) ?? Number.NaN);
    const steadyPings = steady.completed + steady.failed;
    const steadyRead = steadySweeps.reduce((sum, sweep) => sum + sweep.itemsRead, 0);
    const steadyMoved = steadySweeps.reduce((sum, sweep) => sum + (sweep.heartbeats?.moved ?? 0), 0);
    const steadySweepMs = steadySweeps.reduce((sum, sweep) => sum + sweep.ms, 0);
    print('steady_jobs', JOBS);
    print('steady_pings', steady.completed);
    print('steady_pings_per_second', steady.completed / (MEASURED_INTERVALS * INTERVAL_S), 0);
    print('steady_cpu_ms_per_ping', steadyCpu / steadyPings, 3);
    // What the due times a steady ping moves and the sweep behind them add to the pings themselves.
    print('steady_to_paced_cpu_ratio', steadyCpu / steadyPings / (paced.cpuMs / paced.pings), 3);
    print('steady_ddb_requests_per_ping', serverMeter.requests / steadyPings, 3);
    print('steady_sweep_items_read_per_ping', steadyRead / steadyPings, 4);
    print('steady_sweeps', steadySweeps.length);
    print('steady_sweep_ms_p99', p99(steadySweeps.map((sweep) => sweep.ms)));
    print('steady_ping_p50_ms', steady.p50);
    print('steady_ping_p99_ms', steady.p99);
    print('steady_ping_errors', steady.failed);
    print('steady_checks_moved_by_sweep', steadyMoved);
    print('steady_data_kb_per_ping', ((sizeAt.get(steadyTo) ?? Number.NaN) - (sizeAt.get(steadyFrom) ?? Number.NaN)) / 1024 / steadyPings);
    const wru = 4;
    const usd = steadyUsdPerMillionPings({
      writeUnitsPerPing: wru,
      sweepItemsReadPerPing: steadyRead / steadyPings,
      sweepMsPerPing: steadySweepMs / steadyPings,
      pingMs: steady.p50,
    });
    print('aws_usd_per_million_pings_steady', usd.total);
    print('aws_sweep_usd_per_million_pings_steady', usd.sweep, 4);

    const silentSweeps = loop.between(steadyTo, silentTo + SWEEP_MS + 1_000);
    const silentRead = silentSweeps.reduce((sum, sweep) => sum + sweep.itemsRead, 0);
    const silentMoved = silentSweeps.reduce((sum, sweep) => sum + (sweep.heartbeats?.moved ?? 0), 0);
    const silentPings = silent.completed + silent.failed;
    const afterSilent = await statuses();
    print('silent_jobs', JOBS - silentFrom);
    print('silent_cpu_ms_per_ping', ((cpuAt.get(silentTo) ?? Number.NaN) - (cpuAt.get(steadyTo) ?? Number.NaN)) / silentPings, 3);
    print('silent_sweep_items_read_per_ping', silentRead / silentPings, 4);
    print('silent_sweep_ms_p99', p99(silentSweeps.map((sweep) => sweep.ms)));
    print('silent_ping_p99_ms', silent.p99);
    print('silent_ping_errors', silent.failed);
    // Each LATE and each DOWN is one due check for the sweep.
    print('sweep_items_read_per_due_check', silentRead / Math.max(1, silentMoved));
    print('silent_moves', silentMoved);
    // Which step read what: a step whose reads do not follow the due checks is named here.
    const silentByStep = new Map<string, number>();
    for (const sweep of silentSweeps) for (const [name, read] of sweep.byStep) silentByStep.set(name, (silentByStep.get(name) ?? 0) + read);
    for (const [name, read] of silentByStep) if (read > 0) console.log(`silent_sweep_items_read[${name}]: ${read}`);
    const failures: string[] = [];
    if (steady.failed + silent.failed > 0) failures.push(`${steady.failed + silent.failed} pings failed`);
    if (steadyMoved > 0) failures.push(`${steadyMoved} checks moved in the steady state`);
    if ((afterSilent.DOWN ?? 0) !== JOBS - silentFrom || (afterSilent.OK ?? 0) !== silentFrom) failures.push(`after the silent window: ${JSON.stringify(afterSilent)}`);

    if (!process.env.BENCH_STEADY_SKIP_OUTAGE)
      await massOutage({
        steps,
        server,
        tokens,
        offsetsMs,
        intervalMs,
        lastPingsFrom: silentTo - intervalMs,
        pids,
        dataDir,
        statuses,
        activeIncidents,
        alerts: receiver.counts,
        origin,
        print,
        failures,
      });
    if (failures.length > 0) throw new Error(`steady state: ${failures.join('; ')}`);
  } finally {
    await loop?.stop();
    await server.stop();
    receiver.stop();
  }
}

/**
 * Pings alone at the steady state's pace, the figure the steady state is compared with: as many
 * checks of their own, each pinged once per interval at its phase with the same jitter, over the
 * same connections to the same server, but with hour-long intervals and no sweep running, so that
 * nothing falls due and nothing is swept. The first interval warms the ping path's per-process
 * hints, as the steady state's does; the next two are measured. A flood (the ping section) shares
 * each event-loop wake-up, store batch and socket write among the pings in flight, which pings
 * 5 ms apart cannot, so its figure is not this comparison.
 */
async function pacedPings(deps: LocalDeps, target: { workspaceId: number; projectId: number }, origin: string, pids: Pids, intervalMs: number) {
  const now = Date.now();
  const hour = (at: number) => new Date(at + 3_600_000).toISOString();
  const checks = await seedChecks(deps, target, JOBS, () => ({
    status: 'OK',
    intervalSeconds: 3600,
    graceSeconds: GRACE_S,
    lastPingAt: new Date(now).toISOString(),
    nextDueAt: hour(now),
    dueAt: hour(now + GRACE_S * 1000),
    dueShard: '0',
  }));
  const from = Date.now() + 2_000;
  const measuredFrom = from + intervalMs;
  const to = measuredFrom + PACED_INTERVALS * intervalMs;
  const cpuAt = new Map<number, number>();
  for (const at of [measuredFrom, to]) setTimeout(() => cpuAt.set(at, cpuNow(pids)), at - Date.now()).unref();
  const [window] = await runLoad({
    origin,
    tokens: checks.map((check) => check.token),
    offsetsMs: checks.map((_, i) => Math.floor((i * intervalMs) / JOBS)),
    intervalMs,
    jitterMs: JITTER_MS,
    connections: CONNECTIONS,
    segments: [{ from, to, firstToken: 0, endToken: JOBS }],
    windows: [{ name: 'paced', from: measuredFrom, to }],
  });
  if (!window) throw new Error('the paced pings reported no window');
  // The window's CPU is read by a timer at its end, which the last ping's answer may come before.
  await sleep(Math.max(0, to + 500 - Date.now()));
  return { pings: window.completed + window.failed, failed: window.failed, p99: window.p99, cpuMs: (cpuAt.get(to) ?? Number.NaN) - (cpuAt.get(measuredFrom) ?? Number.NaN) };
}

type OutageInput = {
  steps: ReturnType<typeof meterSteps>[];
  server: { deps: LocalDeps };
  tokens: string[];
  offsetsMs: number[];
  intervalMs: number;
  /** The interval in which every job (but the silent 1%) pinged last. */
  lastPingsFrom: number;
  pids: Pids;
  dataDir: string;
  statuses: () => Promise<Record<string, number>>;
  activeIncidents: () => Promise<number>;
  alerts: () => Promise<ReceiverCounts>;
  origin: string;
  print: Print;
  failures: string[];
};

/**
 * Every job silent at once after its last ping: from the last job's due time until the webhook
 * receiver has heard every one's incident open and at its down severity (then the store is checked
 * once: every job DOWN, one active incident each). Then every job pings again within one interval:
 * until every one's resolution is heard (then no incident may be active).
 */
async function massOutage(input: OutageInput): Promise<void> {
  const { steps, tokens, offsetsMs, intervalMs, lastPingsFrom, pids, dataDir, statuses, activeIncidents, alerts, origin, print, failures } = input;
  const jobs = tokens.length;
  const lastDue = lastPingsFrom + intervalMs + Math.max(...offsetsMs) + JITTER_MS;
  for (const step of steps) step.on = true;
  const stopProfile = await profilePhase('mass-outage-app');
  const cpu0 = cpuNow(pids);
  const size0 = dirBytes(dataDir);
  let done: number | undefined;
  while (Date.now() < lastDue + OUTAGE_LIMIT_S * 1000) {
    await sleep(2_000);
    if (Date.now() < lastDue + 2 * GRACE_S * 1000) continue;
    // The poll reads nothing of the server's: the receiver's counts are in its own process. A job
    // is told its incident is at the down severity after its DOWN was written and its incident
    // raised (or opened at it), so every job told that is the end. Reading 4,000 checks and every
    // active incident at each poll (as this did) was the bench's CPU, not the flips': the store's
    // state is checked once, after the figure.
    const told = await alerts();
    if (told.opened === jobs && told.down === jobs) {
      done = Date.now();
      break;
    }
  }
  const cpu = cpuNow(pids) - cpu0;
  await stopProfile();
  const grown = dirBytes(dataDir) - size0;
  for (const step of steps) step.on = false;
  const down = (await statuses()).DOWN ?? 0;
  const active = await activeIncidents();
  if (done !== undefined && (down !== jobs || active !== jobs)) failures.push(`mass outage: every job told, but ${down} DOWN and ${active} active incidents of ${jobs}`);
  // Per flipping check: what each kind of request to each kind of item cost (the sweeps' included).
  const rows = steps.flatMap((step) => [...step.counts.entries()]).sort((a, b) => b[1].bytes - a[1].bytes || b[1].requests - a[1].requests);
  for (const [name, count] of rows)
    console.log(
      `mass_outage_per_check[${name}]: ops ${(count.requests / jobs).toFixed(2)}, items ${(count.items / jobs).toFixed(2)}, kb ${(count.bytes / 1024 / jobs).toFixed(2)}, items read ${(count.read / jobs).toFixed(2)}`,
    );
  print('mass_outage_jobs', jobs);
  print('mass_outage_seconds', done === undefined ? Number.POSITIVE_INFINITY : (done - lastDue) / 1000, 1);
  print('mass_outage_cpu_ms_per_check', cpu / jobs, 2);
  print('mass_outage_data_kb_per_check', grown / 1024 / jobs, 2);
  const told = await alerts();
  print('mass_outage_alerts_received', told.opened);
  print('mass_outage_down_alerts_received', told.down);
  if (done === undefined) {
    failures.push(`mass outage not over after ${OUTAGE_LIMIT_S} s: ${JSON.stringify(await statuses())}, ${told.opened} alerts`);
    return;
  }

  // Mass recovery: every job pings again within one interval, and keeps pinging (a job that
  // stopped again would turn LATE and open a new incident, and the count would never reach 0).
  const start = Date.now() + 2_000;
  const cpu1 = cpuNow(pids);
  const recovering = runLoad({
    origin,
    tokens,
    offsetsMs,
    intervalMs,
    jitterMs: JITTER_MS,
    connections: CONNECTIONS,
    segments: [{ from: start, to: start + RECOVERY_LIMIT_S * 1000, firstToken: 0, endToken: jobs }],
    // The figure is the recovery's first two intervals: every job's first ping back, then one more.
    windows: [{ name: 'recovery', from: start - JITTER_MS, to: start + 2 * intervalMs }],
  });
  let resolved: number | undefined;
  let cpuResolved: number | undefined;
  while (Date.now() < start + RECOVERY_LIMIT_S * 1000) {
    await sleep(2_000);
    // As in the outage, the poll asks the receiver, and the store is checked once at the end.
    if ((await alerts()).resolved === jobs) {
      resolved = Date.now();
      cpuResolved = cpuNow(pids);
      break;
    }
  }
  const [recovery] = await recovering;
  const stillActive = await activeIncidents();
  if (resolved !== undefined && stillActive !== 0) failures.push(`mass recovery: every job told resolved, but ${stillActive} incidents active`);
  print('mass_recovery_seconds', resolved === undefined ? Number.POSITIVE_INFINITY : (resolved - start) / 1000, 1);
  print('mass_recovery_ping_p99_ms', recovery?.p99 ?? Number.NaN);
  print('mass_recovery_ping_errors', recovery?.failed ?? Number.NaN);
  // Until the last incident resolved, the recovering jobs' pings included.
  print('mass_recovery_cpu_ms_per_check', ((cpuResolved ?? cpuNow(pids)) - cpu1) / jobs, 2);
  print('mass_recovery_resolved_alerts_received', (await alerts()).resolved);
  if (resolved === undefined) failures.push('mass recovery: incidents still open');
  if ((recovery?.failed ?? 1) > 0) failures.push(`${recovery?.failed ?? '?'} recovery pings failed`);
}
