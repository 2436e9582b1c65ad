import type { Deps } from '../deps.js';
import { SWEEP_STEPS, type SweepStep } from './steps.js';

export { SWEEP_STEPS, type SweepStep } from './steps.js';
export { sweepHeartbeats, type HeartbeatSweepReport } from './heartbeats.js';

export type SweepReport = {
  at: string;
  steps: { name: string; ok: boolean; result?: unknown; error?: string }[];
};

/**
 * One evaluator sweep: every step at one captured instant. A failing step is reported and logged
 * and does not keep the others from running; the next sweep retries it (steps are idempotent).
 */
export async function runSweep(deps: Deps, options: { steps?: readonly SweepStep[]; extraSteps?: readonly SweepStep[] } = {}): Promise<SweepReport> {
  const now = deps.clock.now();
  const steps = [...(options.steps ?? SWEEP_STEPS), ...(options.extraSteps ?? [])];
  const report: SweepReport = { at: now.toISOString(), steps: [] };
  for (const step of steps) {
    try {
      report.steps.push({ name: step.name, ok: true, result: await step.run(deps, now) });
    } catch (err) {
      console.error(`sweep step ${step.name} failed`, err);
      report.steps.push({ name: step.name, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return report;
}
