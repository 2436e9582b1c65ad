import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queueDataDir, startEmbeddedStore } from '../core/adapters/local/embeddedStore.js';
import { loadConfig } from '../core/config.js';
import { startLocalServer } from '../core/localServer.js';
import { createLocalDeps, type LocalDeps } from '../core/runtime.js';
import { runSweep, sweepHeartbeats } from '../core/sweep/index.js';
import type { Store } from '../core/store/service.js';
import { drivePingsApart, runApart } from './apart.js';
import { outboxAndCostBenchmark } from './aws.js';
import { coldStart } from './cold.js';
import { dashboardBenchmark } from './dashboard.js';
import { escalationBenchmark } from './escalation.js';
import { intakeBenchmark } from './intake.js';
import { applyBenchmark } from './apply.js';
import { machineBusyMs, processCpuMs, processRssMb } from './proc.js';
import { checkScale } from './scale.js';
import { passwordFloodBenchmark } from './passwordFlood.js';
import { seedChecks, signUp } from './seed.js';
import { SectionRunner, selectSections } from './sections.js';
import { statusPageBenchmark } from './statusPage.js';
import { steadyBenchmark } from './steady.js';
import { streamBenchmark } from './streams.js';

/**
 * `npm run bench`: the heartbeat pipeline on this machine, as `npm start` runs it. This process
 * runs `startLocalServer` (the same server, workers, queue poller and configuration as `npm start`)
 * with the embedded stores on disk in it (`BENCH_STORE_ISOLATE=child`: each in a child process),
 * and the load generators run in processes of their own. Prints one `name: value` per line, under a `section: <name>` line.
 * `BENCH_ONLY=cold,pings,scale,sweep,streams,pages,outbox,escalation,intake,password,steady,dashboard,apply` runs some
 * sections only (bench/sections.ts: each one's ceiling, and the budget they add up to; `steady`:
 * bench/steady.ts, the steady state, 1% silent, the mass outage and recovery, in real time).
 */
const CLIENTS = 50;
const PING_CHECKS = Number(process.env.BENCH_PING_CHECKS ?? 4_000);
const MAX_PINGS = Number(process.env.BENCH_MAX_PINGS ?? 60_000);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SWEEP_CHECKS = 10_000;
const DUE_SHARE = 0.01;
/** Alternating legs of native and Healthchecks-compatible pings after the main ping load. */
const HC_LEGS = 4;
const SCALE_CHECKS = Number(process.env.BENCH_SCALE_CHECKS ?? 10_000);
const sections = new SectionRunner(selectSections(process.env.BENCH_ONLY), process.env.BENCH_BUDGET_SECONDS ? Number(process.env.BENCH_BUDGET_SECONDS) : undefined);

/**
 * Counts requests and items read at the SDK clients (the document client and the ping path's
 * plain one), only while `on`. Added before their first request: the plain client caches its
 * middleware.
 */
function meter(store: Pick<Store, 'client' | 'hot'>) {
  const counts = { on: false, requests: 0, itemsRead: 0 };
  for (const client of [store.client, store.hot]) {
    client.middlewareStack.add(
      // Not an async function: while off (the mass outage), a request goes on without another
      // promise, since the outage's figure counts this meter's CPU too.
      (next) => (args) => {
        if (!counts.on) return next(args);
        return next(args).then((result) => {
          counts.requests++;
          const output = result.output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, unknown[]> };
          counts.itemsRead += output.ScannedCount ?? (output.Item ? 1 : 0);
          for (const items of Object.values(output.Responses ?? {})) counts.itemsRead += items.length;
          return result;
        });
      },
      { step: 'initialize', name: 'benchMeter' },
    );
  }
  return counts;
}

function meterQueue(deps: LocalDeps) {
  const counts = { on: false, messages: 0 };
  const publish = deps.queue.publish.bind(deps.queue);
  deps.queue.publish = async (queue, bodies) => {
    if (counts.on) counts.messages += bodies.length;
    return publish(queue, bodies);
  };
  return counts;
}

const print = (name: string, value: number, digits = 2) => console.log(`${name}: ${Number.isInteger(value) ? value : value.toFixed(digits)}`);

async function pingBenchmark(endpoint: string, queueEndpoint: string, storePid: number | undefined, dataDir: string): Promise<void> {
  // What `npm start` runs, against the stores started above (it would start the same two itself).
  const config = loadConfig({ PORT: '0', VIGIL_TABLE_NAME: 'bench_pings', VIGIL_DYNAMODB_ENDPOINT: endpoint, VIGIL_DATA_DIR: dataDir });
  const server = await startLocalServer(config, { log: false, queueEndpoint });
  const deps = server.deps;
  const store = meter(deps.store);
  const queue = meterQueue(deps);
  const origin = server.baseUrl.replace(/\/api$/, '');
  try {
    const target = await signUp(origin);
    await sections.run('pings', async () => {
      // Checks that are up and pinging: steady state has no status change.
      const now = deps.clock.now();
      const nextDueAt = new Date(now.getTime() + 3_600_000).toISOString();
      const checks = await seedChecks(deps, target, PING_CHECKS, () => ({ status: 'OK', lastPingAt: now.toISOString(), nextDueAt, dueAt: nextDueAt, dueShard: '0' }));
      const tokens = checks.map((check) => check.token);
      // One ping each first: the ping path's per-process hints start cold (one read per check).
      const warm = await drivePingsApart(origin, tokens, { clients: CLIENTS, maxPings: tokens.length, maxSeconds: 60 });
      if (warm.failed > 0) throw new Error(`${warm.failed} warm-up pings failed`);
      await deps.queue.drain();
      // Every warm-up ping moved its check's own due entry past the seeded one (to its LATE
      // instant): a sweep at the seeded due time reads nothing, the steady state's sweep. All of
      // them: 4,000 seeded entries share one due instant, which the embedded store keeps apart by
      // the whole hash of each item's key (patches/dynalite+4.0.0.patch; docs/adr/0010-embedded-store-patch.md).
      const settled = await sweepHeartbeats(deps, new Date(Date.parse(nextDueAt) + 1));
      if (settled.read !== 0) throw new Error(`the sweep read ${settled.read} checks the warm-up pings had moved`);

      store.on = queue.on = true;
      const cpu = process.cpuUsage();
      const storeCpu = processCpuMs(storePid);
      const machineCpu = machineBusyMs();
      const load = await drivePingsApart(origin, tokens, { clients: CLIENTS, maxPings: MAX_PINGS, maxSeconds: MAX_SECONDS });
      const used = process.cpuUsage(cpu);
      const storeUsed = processCpuMs(storePid) - storeCpu;
      const machineUsed = machineBusyMs() - machineCpu;
      store.on = queue.on = false;
      const sent = load.completed + load.failed;
      const appMs = (used.user + used.system) / 1000;
      print('pings_per_second', load.completed / load.seconds, 0);
      print('ping_p50_ms', load.p50);
      print('ping_p99_ms', load.p99);
      print('ddb_requests_per_ping', store.requests / sent);
      print('queue_messages_per_ping', queue.messages / sent);
      print('ping_errors', load.failed);
      print('pings_measured', load.completed);
      // This process is the server alone (as `npm start`); the clients and the store have their own.
      print('app_process_cpu_ms_per_ping', appMs / sent, 3);
      print('store_process_cpu_ms_per_ping', storeUsed / sent, 3);
      // The load generator and anything else on the machine (compare runs only when it is steady).
      print('other_cpu_ms_per_ping', (machineUsed - storeUsed - appMs) / sent, 3);
      print('server_rss_mb', process.memoryUsage().rss / 1048576, 0);
      print('store_rss_mb', processRssMb(storePid), 0);

      // The same load on the Healthchecks-compatible path (core/signals/hcPing.ts), in this same
      // run: the tokens are UUIDs, as Healthchecks' are. Its routes keep their own hints, so they
      // are warmed the same way first. The two paths are then driven in alternating legs, so that
      // both see the same machine (it is shared, and its speed moves within seconds); the two
      // figures are meant to be within 10% of each other.
      const hc = { clients: CLIENTS, pathPrefix: '/api/ping/' };
      const hcWarm = await drivePingsApart(origin, tokens, { ...hc, maxPings: tokens.length, maxSeconds: 60 });
      if (hcWarm.failed > 0) throw new Error(`${hcWarm.failed} warm-up pings failed on the Healthchecks-compatible path`);
      const legs = await runApart<Record<string, { completed: number; failed: number; seconds: number }>>('loadgen.ts', {
        origin,
        tokens,
        clients: CLIENTS,
        maxPings: Math.ceil(MAX_PINGS / (2 * HC_LEGS)),
        maxSeconds: MAX_SECONDS / (2 * HC_LEGS),
        alternate: ['/api/signals/ping/', '/api/ping/'],
        legs: HC_LEGS,
      });
      const totals = { native: legs['/api/signals/ping/'] ?? { completed: 0, failed: 0, seconds: 1 }, hc: legs['/api/ping/'] ?? { completed: 0, failed: 0, seconds: 1 } };
      const rate = (total: { completed: number; seconds: number }) => total.completed / total.seconds;
      print('hc_ping_per_second', rate(totals.hc), 0);
      print('hc_ping_errors', totals.hc.failed);
      print('native_ping_per_second_alternated', rate(totals.native), 0);
      print('hc_to_native_ping_ratio', rate(totals.hc) / rate(totals.native), 3);
    });
    await sections.run('scale', async () => {
      const scale = await checkScale(deps, target.actor, { count: SCALE_CHECKS, clients: 4, listPages: 200 });
      print('check_create_ms_p99', scale.createP99Ms);
      print('check_create_ms_p99_first_1000', scale.createP99FirstMs);
      print('check_create_ms_p99_last_1000', scale.createP99LastMs);
      print('check_list_page_ms_p99', scale.listPageP99Ms);
      print('scale_rss_mb', process.memoryUsage().rss / 1048576, 0);
    });
  } finally {
    await server.stop();
  }
}

async function sweepBenchmark(endpoint: string): Promise<void> {
  const deps = await createLocalDeps({ config: loadConfig({ VIGIL_TABLE_NAME: 'bench_sweep' }), endpoint, autoDrain: false });
  const now = deps.clock.now();
  const due = Math.round(SWEEP_CHECKS * DUE_SHARE);
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();
  // Every check pinged and waiting on its deadline; 1% of them missed it 100 s ago.
  await seedChecks(deps, { workspaceId: 1, projectId: 1 }, SWEEP_CHECKS, (i) => {
    const nextDueAt = i < due ? at(-100) : at(60 + (i % 3000));
    return { status: 'OK', lastPingAt: at(-3600), nextDueAt, dueAt: nextDueAt, dueShard: '0' };
  });
  const store = meter(deps.store);
  store.on = true;
  const started = performance.now();
  await runSweep(deps);
  const ms = performance.now() - started;
  store.on = false;
  print('sweep_items_read_per_due_check', store.itemsRead / due);
  print('sweep_due_checks', due);
  print('sweep_ms', ms, 0);
}

async function main(): Promise<void> {
  const budget = setTimeout(() => {
    console.error(`bench: over its ${sections.budgetSeconds}-second budget, in ${sections.current}`);
    process.exit(1);
  }, sections.budgetSeconds * 1000);
  budget.unref();
  console.log(`load_average_1m: ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
  console.log(`budget_seconds: ${sections.budgetSeconds}`);
  await sections.run('cold', () => coldStart(print));
  if ((['pings', 'sweep', 'scale', 'streams', 'pages', 'outbox', 'escalation', 'intake', 'password', 'steady', 'dashboard', 'apply'] as const).some((name) => sections.has(name))) {
    // On disk, as `npm start` keeps it (BENCH_STORE=memory for the in-memory store).
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
    const storeDir = process.env.BENCH_STORE === 'memory' ? ':memory:' : dataDir;
    // And the queue lanes' own store beside it, both in this process, as `npm start` runs them
    // (core/localServer.ts). BENCH_STORE_ISOLATE=child runs each in a child process over loopback
    // HTTP instead (the shape before), and BENCH_PROFILE_DIR then has each child write its CPU profile.
    const isolated = process.env.BENCH_STORE_ISOLATE === 'child';
    const placement = isolated
      ? { isolate: 'child' as const, nodeFlags: process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [] }
      : {};
    console.log(`embedded_store: ${isolated ? 'child processes' : 'in process'}`);
    const [store, queueStore] = await Promise.all([startEmbeddedStore(storeDir, 0, placement), startEmbeddedStore(queueDataDir(storeDir), 0, placement)]);
    try {
      if (sections.has('pings') || sections.has('scale')) await pingBenchmark(store.endpoint, queueStore.endpoint, store.pid, dataDir);
      await sections.run('sweep', () => sweepBenchmark(store.endpoint));
      // 500 WebSocket clients across 50 workspaces: ping -> signal event received (bench/streams.ts).
      await sections.run('streams', async () => print('broadcast_ms_p99', (await streamBenchmark(store.endpoint)).p99));
      await sections.run('pages', () => statusPageBenchmark(store.endpoint, meter, print));
      // Status change written -> published under ping load, and what a steady ping costs on AWS (bench/aws.ts).
      await sections.run('outbox', () => outboxAndCostBenchmark(store.endpoint, queueStore.endpoint));
      // The escalation sweep's reads per due step, and check flip -> step-0 webhook (bench/escalation.ts).
      await sections.run('escalation', () => escalationBenchmark(store.endpoint, meter, print));
      // An Alertmanager notification to an intake URL -> its step-0 webhook (bench/intake.ts).
      await sections.run('intake', () => intakeBenchmark(store.endpoint, print));
      // 300 concurrent status-page password attempts on new slugs under ping load (bench/passwordFlood.ts).
      await sections.run('password', () => passwordFloodBenchmark(store.endpoint, queueStore.endpoint, dataDir, print));
      // The steady state users live in, 1% silent, a mass outage and recovery (bench/steady.ts).
      await sections.run('steady', () => steadyBenchmark(store.endpoint, queueStore.endpoint, { store: store.pid, queueStore: queueStore.pid }, dataDir, meter, print));
      // The dashboard in Chromium: initial JS, first page of 10,000 checks, ping -> row (bench/dashboard.ts).
      await sections.run('dashboard', () => dashboardBenchmark(store.endpoint, print));
      // `vigil apply` of 1,000 checks to an empty workspace, then again as a no-op (bench/apply.ts).
      await sections.run('apply', () => applyBenchmark(store.endpoint, print));
    } finally {
      await Promise.all([store.close(), queueStore.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (sections.failed.length > 0) {
    console.error(`bench: failed sections: ${sections.failed.join(', ')}`);
    process.exitCode = 1;
  }
}

await main();
