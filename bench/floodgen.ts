import { readFileSync } from 'node:fs';
import { Client } from 'undici';
import { percentile } from './load.js';

/**
 * Password attempts on status pages, all sent at once, each on a slug of its own (none exists), from
 * `addresses` loopback addresses (127.1.x.y; Linux answers the whole 127/8). Run apart by
 * bench/passwordFlood.ts: it prints `ready` once loaded and sends `delayMs` after a `go` line on
 * its stdin, so its own start-up does not land in the ping window. Output: one JSON line with the
 * answers by status and how long they took.
 */
type Job = { origin: string; attempts: number; addresses: number; delayMs: number };

const job = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Job;
const clients = Array.from({ length: job.attempts }, (_, i) => {
  const n = (i % job.addresses) + 1;
  return new Client(job.origin, job.addresses === 1 ? {} : { localAddress: `127.1.${Math.floor(n / 250)}.${(n % 250) + 1}` });
});
console.log('ready');
await new Promise<void>((resolve) => process.stdin.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('go') && resolve()));
process.stdin.pause();
await new Promise((resolve) => setTimeout(resolve, job.delayMs));
const byStatus: Record<string, number> = {};
const latencies = new Float64Array(job.attempts);
const started = performance.now();
await Promise.all(
  clients.map(async (client, i) => {
    const sent = performance.now();
    const res = await client.request({
      path: `/api/public/status/flood-${process.pid}-${i}/auth`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: `guess number ${i}` }),
    });
    await res.body.dump();
    latencies[i] = performance.now() - sent;
    byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1;
  }),
);
const seconds = (performance.now() - started) / 1000;
await Promise.all(clients.map((client) => client.close()));
const sorted = latencies.sort();
console.log(JSON.stringify({ byStatus, seconds, p50: percentile(sorted, 50), max: sorted.at(-1) ?? Number.NaN }));
