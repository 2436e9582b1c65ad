import { readFileSync } from 'node:fs';
import { drivePings, percentile } from './load.js';

/**
 * The ping clients in a process of their own (`bench/run.ts` spawns it), so the server process
 * spends on pings only what `npm start` spends. Input: a JSON file with origin, tokens and
 * limits; output: one JSON line.
 */
type Job = { origin: string; tokens: string[]; clients: number; maxPings: number; maxSeconds: number; startAt?: number; pathPrefix?: string };

const job = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Job;
// For a parent that times other load against this one (bench/apart.ts `printed`).
console.log('started');
const result = await drivePings(job.origin, job.tokens, job);
const sorted = Float64Array.from(result.latenciesMs).sort();
console.log(JSON.stringify({ completed: result.completed, failed: result.failed, seconds: result.seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) }));
