import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Pool } from 'undici';
import { createApp } from '../core/app.js';
import { loadConfig } from '../core/config.js';
import { localFetch } from '../core/localServer.js';
import { createLocalDeps, type LocalDeps } from '../core/runtime.js';
import { percentile } from './load.js';
import { machineBusyMs, mainThreadWaitMs } from './proc.js';
import { seedChecks, type SeedTarget } from './seed.js';
import { sweepHeartbeats } from '../core/sweep/index.js';

/**
 * The outbox's fast path under ping load (`relay_lag_ms_p99`) and what a steady-state ping costs
 * on AWS (`ddb_write_units_per_ping`, `aws_usd_per_million_pings`). Kept apart from run.ts's
 * figures; run.ts calls `outboxAndCostBenchmark`.
 */

/** Public us-east-1 prices (November 2026), USD. */
const USD_PER_MILLION_WRU = 0.625; // DynamoDB on-demand write request units
const USD_PER_MILLION_HTTP_API = 1.0; // API Gateway HTTP API, first 300 million requests a month
const USD_PER_MILLION_LAMBDA_REQUESTS = 0.2;
const USD_PER_GB_SECOND_ARM = 0.0000133334; // Lambda duration, arm64 (stacks/index.ts sets arm_64)
const USD_PER_MILLION_RRU = 0.125; // DynamoDB on-demand read request units
/** stacks/SweepStack.ts: the sweep function's memorySize. */
const SWEEP_MEMORY_GB = 512 / 1024;
/** stacks/ApiStack.ts: SignalsFunction memorySize. */
const SIGNALS_MEMORY_GB = 512 / 1024;
/**
 * Assumed billed duration of one ping on Lambda: the mean latency of one client pinging back to
 * back here (one conditional update and one put on loopback), plus the DynamoDB round trips this
 * machine does not have (two requests at ~5 ms each in-region), rounded up to the billed ms.
 */
const DDB_ROUND_TRIP_MS = 5;
const DDB_REQUESTS_PER_STEADY_PING = 2;

const CLIENTS = 50;
const STEADY_CHECKS = 2_000;
const FLIP_CHECKS = 200;
/** Each flipper's slice of 50 checks takes well over the 1-second dedup per round. */
const FLIPPERS = 4;
const LOAD_SECONDS = Number(process.env.BENCH_RELAY_SECONDS ?? 20);
const LOAD_WARMUP_MS = 1_500;
const KB = 1024;

const print = (name: string, value: number, digits = 2) => console.log(`${name}: ${Number.isInteger(value) ? value : value.toFixed(digits)}`);

/**
 * Times every fast-path relay: the ping's own conditional update (the write that records the
 * owed message) returned, then the relay's publish of that message returned. The hot client's
 * middleware sees the update and notes each message it appended (by its body, which the relay
 * publishes as is); a wrapper of the queue port (as run.ts's `meterQueue` does) sees the publish.
 * Keyed by the message, not by request context: an AsyncLocalStorage around every request would
 * put async hooks on every promise of the process under test, and would attribute background
 * work a request merely started to that request.
 */
function meterRelayLag(deps: LocalDeps) {
  const written = new Map<string, number>();
  const lags: number[] = [];
  deps.store.hot.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, AttributeValue> };
      // Only the update that appends to the outbox names `outboxId` on the ping path.
      if (context.commandName === 'UpdateItemCommand' && Object.values(input.ExpressionAttributeNames ?? {}).includes('outboxId')) {
        const at = performance.now();
        for (const body of appendedBodies(input.ExpressionAttributeValues ?? {})) written.set(body, at);
      }
      return result;
    },
    { step: 'initialize', name: 'benchRelayLag' },
  );
  const publish = deps.queue.publish.bind(deps.queue);
  deps.queue.publish = async (queue, bodies) => {
    await publish(queue, bodies);
    const at = performance.now();
    for (const body of bodies) {
      const key = JSON.stringify(body);
      const writtenAt = written.get(key);
      if (writtenAt === undefined) continue;
      written.delete(key);
      lags.push(at - writtenAt);
    }
  };
  return { lags };
}

/**
 * How strained the machine was while relays were timed: the share of all its CPUs that was busy,
 * the share of the time this process's event loop waited for a CPU while it had work, and the
 * loop's delay. A relay's publish is answered within a few ms by the queue store; what makes the
 * tail is the wait for this process's loop to read the answer, and that tracks these figures.
 */
function meterStrain() {
  const startedAt = performance.now();
  const busy = machineBusyMs();
  const waited = mainThreadWaitMs();
  const delay = monitorEventLoopDelay();
  delay.enable();
  return () => {
    delay.disable();
    const wallMs = performance.now() - startedAt;
    return {
      machineBusyShare: (machineBusyMs() - busy) / (wallMs * availableParallelism()),
      appWaitShare: (mainThreadWaitMs() - waited) / wallMs,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
    };
  };
}

/** The message bodies an outbox append carries (core/outbox/owe.ts: entries of `{ id, queue, body }`, body as JSON text). */
function appendedBodies(values: Record<string, AttributeValue>): string[] {
  return Object.values(values).flatMap((value) =>
    (value.L ?? []).flatMap((entry) => {
      const body = entry.M?.body?.S;
      return entry.M?.id?.S !== undefined && body !== undefined ? [body] : [];
    }),
  );
}

/** The steady ping load from bench/loadgen.ts in a process of its own, as run.ts drives its own. */
async function drivePingsApart(origin: string, tokens: readonly string[], options: { clients: number; maxPings: number; maxSeconds: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-relay-load-'));
  try {
    const file = join(dir, 'job.json');
    writeFileSync(file, JSON.stringify({ origin, tokens, ...options }));
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', new URL('./loadgen.ts', import.meta.url).pathname, file], {
      maxBuffer: 1 << 20,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { completed: number; failed: number; seconds: number; p50: number };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function signUp(origin: string): Promise<SeedTarget> {
  const signup = await fetch(`${origin}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-relay-${process.pid}@example.com`, password: 'benchmark password', name: 'bench' }),
  });
  const created = (await signup.json()) as { access_token: string; workspace: { id: number } };
  const projects = await fetch(`${origin}/api/projects?workspaceId=${created.workspace.id}`, { headers: { authorization: `Bearer ${created.access_token}` } });
  const [project] = (await projects.json()) as { id: number }[];
  if (!project) throw new Error('sign-up made no project');
  return { workspaceId: created.workspace.id, projectId: project.id };
}

/**
 * Flips checks DOWN (`/fail`) and back OK until `until` (or for `rounds` passes over the checks),
 * one client of `flippers` over each slice, alongside the steady load: each flip is a status
 * change the outbox owes. The clients are kept across calls, so the measured flips do not start
 * on fresh connections.
 */
async function flipChecks(flippers: readonly Pool[], tokens: readonly string[], until: number, rounds = Number.POSITIVE_INFINITY): Promise<number> {
  const share = Math.ceil(tokens.length / flippers.length);
  const counts = await Promise.all(flippers.map((pool, i) => flipSlice(pool, tokens.slice(i * share, (i + 1) * share), until, rounds)));
  return counts.reduce((a, b) => a + b, 0);
}

async function flipSlice(pool: Pool, tokens: readonly string[], until: number, rounds: number): Promise<number> {
  let flips = 0;
  for (let round = 0; round < rounds && performance.now() < until; round++) {
    for (const token of tokens) {
      if (performance.now() >= until) break;
      const res = await pool.request({ path: `/api/signals/ping/${token}${round % 2 === 0 ? '/fail' : ''}`, method: 'GET' });
      await res.body.dump();
      if (res.statusCode === 200) flips++;
    }
  }
  return flips;
}

/** DynamoDB's item size: UTF-8 attribute names plus values (AWS "Item sizes and formats"). */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  // Numbers: about one byte per two significant digits, plus one.
  if (typeof value === 'number')
    return (
      Math.ceil(
        String(Math.abs(value))
          .replace(/[.-]|e.*$/g, '')
          .replace(/^0+/, '').length / 2,
      ) + 1
    );
  if (value instanceof Uint8Array) return value.byteLength;
  // Lists and maps: 3 bytes, plus one per element, plus the elements (a map's keys count as names).
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, element) => sum + 1 + valueSize(element), 0);
  if (value instanceof Set) return [...value].reduce<number>((sum, element) => sum + valueSize(element), 0);
  if (typeof value === 'object') return 3 + Object.entries(value).reduce<number>((sum, [key, element]) => sum + 1 + Buffer.byteLength(key) + valueSize(element), 0);
  return 0;
}

const units = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));

/** The index key pairs a table item can carry (the table's GSIs, core/store/table.ts). */
const INDEX_KEYS = [1, 2, 3, 4, 5, 6].map((n) => [`gsi${n}pk`, `gsi${n}sk`] as const);
const indexKey = (item: Record<string, unknown>, [pk, sk]: readonly [string, string]): string | undefined =>
  item[pk] !== undefined && item[sk] !== undefined ? `${String(item[pk])}/${String(item[sk])}` : undefined;

/**
 * Index writes of one item write, from the item before and after (every index here projects ALL):
 * an entry that stays put is rewritten (one write of the new item), one whose key moved is a delete
 * and a put, one that appears a put, one that goes a delete; an index the item is in neither time
 * costs nothing.
 */
function indexWriteUnits(before: Record<string, unknown> | undefined, after: Record<string, unknown>): number {
  let wru = 0;
  for (const keys of INDEX_KEYS) {
    const was = before ? indexKey(before, keys) : undefined;
    const is = indexKey(after, keys);
    if (was !== undefined && was === is) wru += units(Math.max(itemSize(before ?? {}), itemSize(after)));
    else {
      if (was !== undefined) wru += units(itemSize(before ?? {}));
      if (is !== undefined) wru += units(itemSize(after));
    }
  }
  return wru;
}

/**
 * Write units of one steady-state ping, from the items it actually wrote (read back raw): the
 * check update (the larger of the item before and after, per 1 KB) with its index writes, and the
 * signal put with its index writes (none: signals are in no sparse index since 2026-11-26). Measured
 * on the last of three back-to-back pings; each moves the check's own due entry (a GSI delete plus
 * a put on AWS: docs/adr/0001-check-due-index.md).
 */
async function steadyPingWriteUnits(
  deps: LocalDeps,
  origin: string,
  token: string,
  checkId: number,
): Promise<{ wru: number; check: number; signal: number; signalIndexWrites: number; durationMs: number }> {
  const read = async () => (await deps.store.entities.check.get({ token }).go({ data: 'raw' })).data as { Item?: Record<string, unknown> } | null;
  // Back to back from one client, past the 1-second dedup each time: the per-ping duration assumption.
  const pool = new Pool(origin, { connections: 1 });
  const samples: number[] = [];
  let before: Record<string, unknown> | undefined;
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    if (i === 2) before = (await read())?.Item;
    const sent = performance.now();
    const res = await pool.request({ path: `/api/signals/ping/${token}`, method: 'GET' });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`steady ping answered ${res.statusCode}`);
    samples.push(performance.now() - sent);
  }
  await pool.close();
  const after = (await read())?.Item;
  if (!before || !after) throw new Error('the pinged check is missing');
  const signals = (await deps.store.entities.signal.query.byCheck({ checkId }).go({ data: 'raw', order: 'desc', limit: 1 })) as unknown as {
    data: { Items?: Record<string, unknown>[] };
  };
  const signal = signals.data.Items?.[0];
  if (!signal) throw new Error('the ping stored no signal');
  const check = Math.max(itemSize(before), itemSize(after));
  const signalIndexWrites = indexWriteUnits(undefined, signal);
  const wru = units(check) + indexWriteUnits(before, after) + units(itemSize(signal)) + signalIndexWrites;
  return { wru, check, signal: itemSize(signal), signalIndexWrites, durationMs: samples.reduce((a, b) => a + b, 0) / samples.length };
}

/** `queueEndpoint`: the queue lanes' own store, as `npm start` runs it (core/localServer.ts). */
export async function outboxAndCostBenchmark(endpoint: string, queueEndpoint: string): Promise<void> {
  const deps = await createLocalDeps({ config: loadConfig({ VIGIL_TABLE_NAME: 'bench_relay' }), endpoint, queueEndpoint, autoDrain: true });
  const relay = meterRelayLag(deps);
  const app = createApp(deps);
  // Served as `npm start` serves it (core/localServer.ts: new requests admitted a few per loop turn).
  const server = serve({ fetch: localFetch(app.fetch), hostname: '127.0.0.1', port: 0 });
  if (!server.listening) await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Kept open from the warm-up through the measured window (the queue drain and the load
  // generator's start lie between): both ends' idle timeouts are longer than that.
  (server as { keepAliveTimeout?: number }).keepAliveTimeout = 60_000;
  const flippers = Array.from({ length: FLIPPERS }, () => new Pool(origin, { connections: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 }));
  try {
    const target = await signUp(origin);
    const now = deps.clock.now();
    const nextDueAt = new Date(now.getTime() + 3_600_000).toISOString();
    const checks = await seedChecks(deps, target, STEADY_CHECKS + FLIP_CHECKS, () => ({ status: 'OK', lastPingAt: now.toISOString(), nextDueAt, dueAt: nextDueAt, dueShard: '0' }));
    const steady = checks.slice(0, STEADY_CHECKS).map((check) => check.token);
    const flipTokens = checks.slice(STEADY_CHECKS).map((check) => check.token);
    const warm = await drivePingsApart(origin, [...steady, ...flipTokens], { clients: CLIENTS, maxPings: checks.length, maxSeconds: 60 });
    if (warm.failed > 0) throw new Error(`${warm.failed} warm-up pings failed`);
    // The status-change path warms up too: a process's first flips compile the consumers' code and
    // build the entities they use (ElectroDB validates each model once), a one-off stall of 50 ms
    // and more that hit the first relays of the measured window and so its p99. Two whole rounds
    // take every flipping check DOWN and back OK, opening and resolving its incident.
    const warmFlips = await flipChecks(flippers, flipTokens, Number.POSITIVE_INFINITY, 2);
    if (warmFlips !== 2 * flipTokens.length) throw new Error(`${2 * flipTokens.length - warmFlips} warm-up flips failed`);
    await deps.queue.drain();
    relay.lags.length = 0;

    const until = performance.now() + LOAD_SECONDS * 1000;
    // The flips start once the load generator's process is up and pinging.
    const flipping = new Promise((resolve) => setTimeout(resolve, LOAD_WARMUP_MS)).then(async () => {
      const strained = meterStrain();
      const flipped = await flipChecks(flippers, flipTokens, until);
      return { flipped, strain: strained() };
    });
    const [load, { flipped: flips, strain }] = await Promise.all([drivePingsApart(origin, steady, { clients: CLIENTS, maxPings: 1_000_000, maxSeconds: LOAD_SECONDS }), flipping]);
    const lags = Float64Array.from(relay.lags).sort();
    print('relay_lag_ms_p99', percentile(lags, 99));
    print('relay_lag_ms_p50', percentile(lags, 50));
    print('relay_status_changes', lags.length);
    print('relay_flip_pings', flips);
    print('relay_load_pings_per_second', load.completed / load.seconds, 0);
    // A steady ping is two store requests and the relay's publish one: compare under the same load.
    print('relay_load_ping_p50_ms', load.p50);
    // While the relays were timed (flips): see meterStrain.
    print('relay_machine_cpu_busy_share', strain.machineBusyShare);
    print('relay_app_cpu_wait_share', strain.appWaitShare);
    print('relay_app_loop_delay_ms_p99', strain.loopDelayP99Ms);
    await deps.queue.drain();

    // The seeded checks' due time passes: every one was pinged since, which moved its own entry,
    // so the sweep reads none of them (the steady state; `BENCH_ONLY=steady` measures it at length).
    const sweepStarted = performance.now();
    const swept = await sweepHeartbeats(deps, new Date(Date.parse(nextDueAt) + 1));
    const sweepMs = performance.now() - sweepStarted;
    const pinged = warm.completed + load.completed + flips;
    print('sweep_items_read_after_load', swept.read + swept.woken);
    print('sweep_ms_after_load', sweepMs);

    const [first] = checks;
    if (!first) throw new Error('no check seeded');
    const cost = await steadyPingWriteUnits(deps, origin, first.token, first.checkId);
    print('ddb_write_units_per_ping', cost.wru);
    print('signal_index_write_units', cost.signalIndexWrites);
    print('check_item_bytes', cost.check, 0);
    print('signal_item_bytes', cost.signal, 0);
    const billedMs = Math.ceil(cost.durationMs + DDB_ROUND_TRIP_MS * DDB_REQUESTS_PER_STEADY_PING);
    // What the sweep read of the pinged checks, per ping (eventually consistent: half a unit per
    // item up to 4 KB), and its Lambda time (as measured here, an upper bound: this store is slower).
    const sweepRru = ((swept.read + swept.woken) * 0.5) / Math.max(1, pinged);
    const sweepUsd = sweepRru * USD_PER_MILLION_RRU + SWEEP_MEMORY_GB * (sweepMs / Math.max(1, pinged) / 1000) * USD_PER_GB_SECOND_ARM * 1e6;
    const usd =
      cost.wru * USD_PER_MILLION_WRU + USD_PER_MILLION_HTTP_API + USD_PER_MILLION_LAMBDA_REQUESTS + SIGNALS_MEMORY_GB * (billedMs / 1000) * USD_PER_GB_SECOND_ARM * 1e6 + sweepUsd;
    print('lambda_billed_ms_per_ping_assumed', billedMs);
    print('sweep_read_units_per_ping', sweepRru);
    print('sweep_usd_per_million_pings', sweepUsd, 3);
    print('aws_usd_per_million_pings', usd);
  } finally {
    await Promise.all(flippers.map((pool) => pool.close()));
    server.close();
  }
}

/**
 * What a million pings cost on AWS in the steady state, from the steady-state section's
 * measurements (bench/steady.ts): the ping's write units, API Gateway, Lambda requests and duration
 * (the measured ping latency plus two in-region DynamoDB round trips), and the sweep's reads and
 * Lambda time per ping. The sweep's time per ping is measured with a sweep every 10 s (`npm start`);
 * on AWS it runs once a minute, so its fixed part per ping is smaller there: an upper bound.
 */
export function steadyUsdPerMillionPings(input: { writeUnitsPerPing: number; sweepItemsReadPerPing: number; sweepMsPerPing: number; pingMs: number }): {
  total: number;
  sweep: number;
} {
  const billedMs = Math.ceil(input.pingMs + DDB_ROUND_TRIP_MS * DDB_REQUESTS_PER_STEADY_PING);
  const sweep = input.sweepItemsReadPerPing * 0.5 * USD_PER_MILLION_RRU + SWEEP_MEMORY_GB * (input.sweepMsPerPing / 1000) * USD_PER_GB_SECOND_ARM * 1e6;
  const total =
    input.writeUnitsPerPing * USD_PER_MILLION_WRU +
    USD_PER_MILLION_HTTP_API +
    USD_PER_MILLION_LAMBDA_REQUESTS +
    SIGNALS_MEMORY_GB * (billedMs / 1000) * USD_PER_GB_SECOND_ARM * 1e6 +
    sweep;
  return { total, sweep };
}
