import { readFileSync } from 'node:fs';
import { drivePings, percentile } from './load.js';

/**
 * The ping clients in a process of their own (`bench/run.ts` spawns it), so the server process
 * spends on pings only what `npm start` spends. Input: a JSON file with origin, tokens and
 * limits; output: one JSON line. With `alternate` (path prefixes) and `legs`, it drives each
 * prefix in turn, `legs` times, and reports each prefix's totals: paths compared leg by leg see the
 * same machine, without a process start between legs.
 */
type Job = { origin: string; tokens: string[]; clients: number; maxPings: number; maxSeconds: number; startAt?: number; pathPrefix?: string; alternate?: string[]; legs?: number };

const job = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Job;
// For a parent that times other load against this one (bench/apart.ts `printed`).
console.log('started');
if (job.alternate && job.legs) {
  const totals: Record<string, { completed: number; failed: number; seconds: number }> = {};
  let startAt = job.startAt ?? 0;
  for (let leg = 0; leg < job.legs; leg++) {
    for (const pathPrefix of job.alternate) {
      const run = await drivePings(job.origin, job.tokens, { ...job, pathPrefix, startAt });
      // The next leg goes on round the tokens, so no check is pinged twice within its dedup window.
      startAt += run.completed + run.failed;
      const total = (totals[pathPrefix] ??= { completed: 0, failed: 0, seconds: 0 });
      total.completed += run.completed;
      total.failed += run.failed;
      total.seconds += run.seconds;
    }
  }
  console.log(JSON.stringify(totals));
} else {
  const result = await drivePings(job.origin, job.tokens, job);
  const sorted = Float64Array.from(result.latenciesMs).sort();
  console.log(JSON.stringify({ completed: result.completed, failed: result.failed, seconds: result.seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) }));
}
