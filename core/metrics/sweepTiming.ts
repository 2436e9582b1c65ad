import type { Deps } from '../deps.js';
import { runSweep, type SweepReport } from '../sweep/index.js';

// Apart from install.ts so the sweep Lambda bundles no metrics client.

/** The setting item the sweep's last run is kept in: the sweep Lambda writes it, the API Lambda reads it. */
export const SWEEP_SETTING = 'metrics:sweep';
export type SweepRecord = { at: string; durationMs: number; failedSteps: number };

/**
 * One evaluator sweep, timed, its duration written to one setting item (one put a minute on AWS,
 * one per VIGIL_SWEEP_SECONDS locally) so that whichever process serves `/metrics` can read it.
 * A failed write is logged and costs the sweep nothing.
 */
export async function timedSweep(deps: Deps, elapsedMs: () => number = () => performance.now()): Promise<SweepReport> {
  const began = elapsedMs();
  const report = await runSweep(deps);
  const record: SweepRecord = { at: report.at, durationMs: Math.max(0, elapsedMs() - began), failedSteps: report.steps.filter((step) => !step.ok).length };
  await deps.store.entities.setting
    .put({ name: SWEEP_SETTING, value: JSON.stringify(record), createdAt: report.at })
    .go()
    .catch((err: unknown) => console.error('sweep duration not recorded', err));
  return report;
}

export async function lastSweep(deps: Deps): Promise<SweepRecord | undefined> {
  const item = (await deps.store.entities.setting.get({ name: SWEEP_SETTING }).go()).data;
  if (!item) return undefined;
  try {
    return JSON.parse(item.value) as SweepRecord;
  } catch {
    return undefined;
  }
}
