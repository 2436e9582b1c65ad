import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A load script of bench/ in its own process (so the server's process spends on the load only what
 * `npm start` would), handed `job` as a JSON file. `printed(text)` resolves when the script prints
 * that line (a load that has started), `send(text)` writes a line to its stdin (a signal to go),
 * and `result` is its last output line, parsed.
 */
export function startApart<T>(script: string, job: unknown): { printed(text: string): Promise<void>; send(text: string): void; result: Promise<T> } {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-load-'));
  const file = join(dir, 'job.json');
  writeFileSync(file, JSON.stringify(job));
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', new URL(`./${script}`, import.meta.url).pathname, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // A script that never reads its stdin may have ended before a line sent to it.
  child.stdin.on('error', () => undefined);
  const lines: string[] = [];
  const waiting: { text: string; resolve: () => void }[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const wait of waiting.filter((entry) => entry.text === line.trim())) wait.resolve();
    }
  });
  const result = new Promise<T>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      if (partial) lines.push(partial);
      if (code !== 0) reject(new Error(`bench/${script} exited ${code}`));
      else resolve(JSON.parse(lines.filter(Boolean).at(-1) ?? '{}') as T);
    });
  });
  return {
    printed: (text) => (lines.some((line) => line.trim() === text) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ text, resolve }))),
    send: (text) => child.stdin.write(`${text}\n`),
    result,
  };
}

/** Runs a load script apart to its end and returns its last output line, parsed. */
export const runApart = <T>(script: string, job: unknown): Promise<T> => {
  const run = startApart<T>(script, job);
  run.send('go');
  return run.result;
};

export type PingRun = { completed: number; failed: number; seconds: number; p50: number; p99: number };

/** bench/loadgen.ts apart: `clients` keep-alive ping clients over `tokens` (on `pathPrefix`, Vigil's own ping path by default). */
export const drivePingsApart = (
  origin: string,
  tokens: readonly string[],
  options: { clients: number; maxPings: number; maxSeconds: number; pathPrefix?: string },
): Promise<PingRun> => runApart<PingRun>('loadgen.ts', { origin, tokens, ...options });
