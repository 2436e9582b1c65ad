import type { LocalDeps } from '../runtime.js';
import { timedSweep } from '../metrics/sweepTiming.js';
import { startLocalProbes } from './localProbes.js';

/**
 * Starts the background work of the embedded runtime: queue consumers, the evaluator sweep and
 * the probe schedules. Returns a function that stops them.
 */
export function startLocalWorkers(deps: LocalDeps): () => Promise<void> {
  const stops: (() => void)[] = [];
  // The incidents consumer is registered in createLocalDeps (core/runtime.ts) so tests drain it too.

  // The evaluator sweep; a tick that finds the previous sweep still running skips.
  let sweeping: Promise<unknown> | undefined;
  const sweepTimer = setInterval(() => {
    sweeping ??= timedSweep(deps)
      .catch((err: unknown) => console.error('sweep failed', err))
      .finally(() => (sweeping = undefined));
  }, deps.config.sweepSeconds * 1000);
  sweepTimer.unref();
  stops.push(() => clearInterval(sweepTimer));

  // Outbound probes: each schedule runs in-process for each region; checks stored before this boot are re-armed.
  const probesArmed = startLocalProbes(deps).catch((err: unknown) => console.error('probe schedules failed to re-arm', err));
  return async () => {
    for (const stop of stops) stop();
    deps.scheduler.stop();
    await sweeping;
    await probesArmed;
  };
}
