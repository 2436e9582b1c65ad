import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { percentile } from './load.js';

/**
 * The steady state's ping clients, in a process of their own (bench/steady.ts spawns it): each
 * job pings once per interval at its own phase (`offsetMs`), moved by up to `jitterMs` either way,
 * as cron jobs and workers do, instead of a flood. Segments say which jobs ping when; windows say
 * which pings each figure counts. Input: a JSON file; output: one JSON line.
 */
export type SteadyJob = {
  origin: string;
  tokens: string[];
  /** Each job's phase within the interval, by token index. */
  offsetsMs: number[];
  intervalMs: number;
  jitterMs: number;
  connections: number;
  /** Epoch ms. Job i pings at from + offset_i + k x interval (+ jitter) while that is before `to`. */
  segments: { from: number; to: number; firstToken: number; endToken: number }[];
  windows: { name: string; from: number; to: number }[];
};
export type WindowResult = { name: string; completed: number; failed: number; p50: number; p99: number; max: number };

const job = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as SteadyJob;
const schedule: { at: number; token: string }[] = [];
for (const segment of job.segments) {
  for (let i = segment.firstToken; i < segment.endToken; i++) {
    const token = job.tokens[i];
    if (token === undefined) continue;
    for (let at = segment.from + (job.offsetsMs[i] ?? 0); at < segment.to; at += job.intervalMs) {
      schedule.push({ at: Math.max(segment.from, at + (Math.random() * 2 - 1) * job.jitterMs), token });
    }
  }
}
schedule.sort((a, b) => a.at - b.at);

const pool = new Pool(job.origin, { connections: job.connections, pipelining: 1 });
const samples = job.windows.map(() => ({ latencies: [] as number[], failed: 0 }));
const windowsAt = (at: number) => job.windows.flatMap((window, i) => (at >= window.from && at < window.to ? [i] : []));
const inFlight = new Set<Promise<void>>();

async function ping(token: string, at: number): Promise<void> {
  const sent = performance.now();
  let ok = false;
  try {
    const res = await pool.request({ path: `/api/signals/ping/${token}`, method: 'GET' });
    await res.body.dump();
    ok = res.statusCode === 200;
  } catch {
    ok = false;
  }
  const ms = performance.now() - sent;
  for (const i of windowsAt(at)) {
    const sample = samples[i];
    if (!sample) continue;
    if (ok) sample.latencies.push(ms);
    else sample.failed++;
  }
}

for (const { at, token } of schedule) {
  const wait = at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const sending = ping(token, at).finally(() => inFlight.delete(sending));
  inFlight.add(sending);
}
await Promise.all(inFlight);
await pool.close();
const results: WindowResult[] = job.windows.map((window, i) => {
  const sample = samples[i] ?? { latencies: [], failed: 0 };
  const sorted = Float64Array.from(sample.latencies).sort();
  return { name: window.name, completed: sorted.length, failed: sample.failed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
});
console.log(JSON.stringify(results));
