import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * A CPU profile of this process over one phase of a benchmark, when `BENCH_PROFILE_DIR` is set
 * (where a steady ping's CPU goes). The embedded stores are profiled by
 * `--cpu-prof` on their own processes (bench/run.ts), written when they exit. Open the files in
 * Chrome's DevTools or any .cpuprofile viewer.
 */
export async function profilePhase(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  // Allocations too, sampled (every 32 KB on average), where the garbage collector's work comes from.
  const heap = process.env.BENCH_HEAP_PROFILE === '1';
  if (heap) {
    await session.post('HeapProfiler.enable');
    // Collected objects included: the garbage is the point.
    await session.post('HeapProfiler.startSampling', { samplingInterval: 32_768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    const sampled = heap ? (await session.post('HeapProfiler.stopSampling')).profile : undefined;
    // The stores' --cpu-prof creates the folder only when they exit, after this phase ends.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    if (sampled) writeFileSync(join(dir, `${name}.heapprofile`), JSON.stringify(sampled));
    session.disconnect();
  };
}
