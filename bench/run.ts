import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startEmbeddedStore } from '../core/adapters/local/embeddedStore.js';
import { createApp } from '../core/app.js';
import { loadConfig } from '../core/config.js';
import { createLocalDeps, type LocalDeps } from '../core/runtime.js';
import { runSweep } from '../core/sweep/index.js';
import type { Store } from '../core/store/service.js';
import { drivePings, percentile } from './load.js';
import { seedChecks, type SeedTarget } from './seed.js';
import { statusPageBenchmark } from './statusPage.js';

/**
 * `npm run bench`: the heartbeat pipeline on this machine. The embedded store runs in a child
 * process (its own core), the app serves HTTP on a loopback port in this process, and 50
 * keep-alive clients ping it. Prints one `name: value` per line.
 */
const CLIENTS = 50;
const PING_CHECKS = Number(process.env.BENCH_PING_CHECKS ?? 4_000);
const MAX_PINGS = Number(process.env.BENCH_MAX_PINGS ?? 60_000);
const MAX_SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SWEEP_CHECKS = 10_000;
const DUE_SHARE = 0.01;

/**
 * Counts requests and items read at the SDK clients (the document client and the ping path's
 * plain one), only while `on`. Added before their first request: the plain client caches its
 * middleware.
 */
function meter(store: Pick<Store, 'client' | 'hot'>) {
  const counts = { on: false, requests: 0, itemsRead: 0 };
  for (const client of [store.client, store.hot]) {
    client.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        if (counts.on) {
          counts.requests++;
          const output = result.output as { ScannedCount?: number; Item?: unknown; Responses?: Record<string, unknown[]> };
          counts.itemsRead += output.ScannedCount ?? (output.Item ? 1 : 0);
          for (const items of Object.values(output.Responses ?? {})) counts.itemsRead += items.length;
        }
        return result;
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

async function signUp(origin: string): Promise<SeedTarget> {
  const signup = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${process.pid}@example.com`, password: 'benchmark password', name: 'bench' }),
  });
  const created = (await signup.json()) as { access_token: string; workspace: { id: number } };
  const projects = await fetch(`${origin}/api/projects?workspaceId=${created.workspace.id}`, { headers: { authorization: `Bearer ${created.access_token}` } });
  const [project] = (await projects.json()) as { id: number }[];
  if (!project) throw new Error('sign-up made no project');
  return { workspaceId: created.workspace.id, projectId: project.id };
}

/** CPU time of another process in ms (Linux /proc; clock ticks of 10 ms). */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Busy CPU time of the whole machine in ms (Linux /proc/stat), to show load from other processes. */
function machineBusyMs(): number {
  try {
    const [user, nice, system, , , irq, softirq, steal] = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
  } catch {
    return Number.NaN;
  }
}

const print = (name: string, value: number, digits = 2) => console.log(`${name}: ${Number.isInteger(value) ? value : value.toFixed(digits)}`);

async function pingBenchmark(endpoint: string, storePid: number | undefined): Promise<void> {
  const deps = await createLocalDeps({ config: loadConfig({ VIGIL_TABLE_NAME: 'bench_pings' }), endpoint, autoDrain: true });
  const store = meter(deps.store);
  const queue = meterQueue(deps);
  const server = serve({ fetch: createApp(deps).fetch, hostname: '127.0.0.1', port: 0 });
  if (!server.listening) await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const target = await signUp(origin);
    // Checks that are up and pinging: steady state has no status change.
    const now = deps.clock.now();
    const nextDueAt = new Date(now.getTime() + 3_600_000).toISOString();
    const checks = await seedChecks(deps, target, PING_CHECKS, () => ({ status: 'OK', lastPingAt: now.toISOString(), nextDueAt, dueAt: nextDueAt, dueShard: '0' }));
    const tokens = checks.map((check) => check.token);
    // One ping each first: the ping path's per-process hints start cold (one read per check).
    const warm = await drivePings(origin, tokens, { clients: CLIENTS, maxPings: tokens.length, maxSeconds: 60 });
    if (warm.failed > 0) throw new Error(`${warm.failed} warm-up pings failed`);
    await deps.queue.drain();

    store.on = queue.on = true;
    const cpu = process.cpuUsage();
    const storeCpu = processCpuMs(storePid);
    const machineCpu = machineBusyMs();
    const load = await drivePings(origin, tokens, { clients: CLIENTS, maxPings: MAX_PINGS, maxSeconds: MAX_SECONDS });
    const used = process.cpuUsage(cpu);
    const storeUsed = processCpuMs(storePid) - storeCpu;
    const machineUsed = machineBusyMs() - machineCpu;
    store.on = queue.on = false;
    const sorted = Float64Array.from(load.latenciesMs).sort();
    const sent = load.completed + load.failed;
    print('pings_per_second', load.completed / load.seconds, 0);
    print('ping_p50_ms', percentile(sorted, 50));
    print('ping_p99_ms', percentile(sorted, 99));
    print('ddb_requests_per_ping', store.requests / sent);
    print('queue_messages_per_ping', queue.messages / sent);
    print('ping_errors', load.failed);
    print('pings_measured', load.completed);
    // This process serves HTTP, runs the app and drives the clients; the store has its own process.
    print('app_process_cpu_ms_per_ping', (used.user + used.system) / 1000 / sent, 3);
    print('store_process_cpu_ms_per_ping', storeUsed / sent, 3);
    // Anything else running on the machine meanwhile (compare runs only when this is near 0).
    print('other_cpu_ms_per_ping', (machineUsed - storeUsed) / sent - (used.user + used.system) / 1000 / sent, 3);
  } finally {
    server.close();
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
    console.error('bench: over its 3-minute budget');
    process.exit(1);
  }, 175_000);
  budget.unref();
  const store = await startEmbeddedStore(':memory:', 0, process.env.BENCH_STORE === 'inline' ? {} : { isolate: 'child' });
  try {
    await pingBenchmark(store.endpoint, store.pid);
    await sweepBenchmark(store.endpoint);
    await statusPageBenchmark(store.endpoint, meter, print);
  } finally {
    await store.close();
  }
}

await main();
