import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { lambdaBundleOptions } from '../stacks/bundling.js';

const exec = promisify(execFile);
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 7);

/**
 * Bundles a handler as SST v2 does for `sst deploy` (stacks/bundling.ts), then imports it in fresh
 * processes and keeps the median module init.
 */
async function bundleAndInit(entry: string, dir: string): Promise<{ kb: number; initMs: number }> {
  const outfile = join(dir, `${entry.replace(/\W/g, '_')}.mjs`);
  await build(lambdaBundleOptions(fileURLToPath(new URL(`../${entry}`, import.meta.url)), outfile));
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(outfile).href)}); console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { stdout } = await exec(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { env: { ...process.env, AWS_REGION: 'us-east-1' } });
    times.push(Number(stdout.trim().split('\n').at(-1)));
  }
  times.sort((a, b) => a - b);
  return { kb: statSync(outfile).size / 1024, initMs: times[Math.floor(times.length / 2)] ?? Number.NaN };
}

/** The ping Lambda's bundle and module init against the floor handler's (bench/floor.ts). */
export async function coldStart(print: (name: string, value: number, digits?: number) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cold-'));
  try {
    const signals = await bundleAndInit('functions/signals.ts', dir);
    const floor = await bundleAndInit('bench/floor.ts', dir);
    print('signals_bundle_kb', signals.kb, 0);
    print('signals_init_ms', signals.initMs, 0);
    print('floor_bundle_kb', floor.kb, 0);
    print('floor_init_ms', floor.initMs, 0);
    print('signals_bundle_ratio', signals.kb / floor.kb);
    print('signals_init_ratio', signals.initMs / floor.initMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
