import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/**
 * Runs a load script of bench/ in its own process (so the server's process spends on the load only
 * what `npm start` would), hands it `job` as a JSON file and returns its last output line, parsed.
 */
export async function runApart<T>(script: string, job: unknown): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-load-'));
  try {
    const file = join(dir, 'job.json');
    writeFileSync(file, JSON.stringify(job));
    const { stdout } = await exec(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', new URL(`./${script}`, import.meta.url).pathname, file], {
      maxBuffer: 1 << 20,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type PingRun = { completed: number; failed: number; seconds: number; p50: number; p99: number };

/** bench/loadgen.ts apart: `clients` keep-alive ping clients over `tokens`. */
export const drivePingsApart = (origin: string, tokens: readonly string[], options: { clients: number; maxPings: number; maxSeconds: number }): Promise<PingRun> =>
  runApart<PingRun>('loadgen.ts', { origin, tokens, ...options });
