import type { Cursor } from './cursor.js';
import type { Target } from './schema.js';
import { cycleLengthMinutes } from './timeline.js';

/**
 * The escalation engine, pure (docs/guide/oncall-and-escalation.md "Escalation: how it works"). Given what routes the
 * incident (a plan: policy steps, legacy rules grouped by delay, or every channel at once), the
 * incident's state, its cursor and the instant, it says which (epoch, cycle, step) are due now,
 * where the cursor goes, and when the incident is next due (null: it leaves the index).
 *
 * - Cycle k (0 <= k <= repeatCount) fires step s at anchor + k·L + d_s, L = cycleLengthMinutes.
 * - Resolution, a muted check or nothing to route stop everything.
 * - Acknowledgement stops the steps; with ackTimeoutMinutes, an incident still acknowledged that
 *   long after the acknowledgement starts a new epoch from step 0, anchored at the timeout.
 * - While a maintenance window with suppressAlerts covers the project, steps are held (checked
 *   again every HOLD_RECHECK_MS); once it is gone a new epoch starts from step 0 at that instant.
 * - In epoch 0, step 0 with delay 0 belongs to the opening message (sent at once, owed by the
 *   incident's own insert): the engine moves past it without firing it again.
 * - A late sweep (a restart) fires every step that fell due meanwhile, each once.
 */
export type PlanStep = { position: number; delayMinutes: number; targets: readonly Target[] };
export type Plan = { steps: readonly PlanStep[]; repeatCount: number; ackTimeoutMinutes: number | null };

export type EngineIncident = { state: 'ACTIVE' | 'MONITORING' | 'RESOLVED'; acknowledgedAt: string | null };

export type DueStep = {
  epoch: number;
  cycle: number;
  step: number;
  at: Date;
  targets: readonly Target[];
  /** Any firing but the first of a run (and every firing of a run started by an ack timeout). */
  escalated: boolean;
};

export type EngineResult = {
  fire: DueStep[];
  cursor: Cursor;
  dueAt: Date | null;
  /** Set when an acknowledgement timed out: the acknowledgement is cleared, from this instant. */
  reescalatedAt: Date | null;
};

export const HOLD_RECHECK_MS = 60_000;
const MINUTE_MS = 60_000;

export function planEscalation(input: { plan: Plan | null; incident: EngineIncident; cursor: Cursor; now: Date; suppressed: boolean; muted: boolean }): EngineResult {
  const { plan, incident, now } = input;
  let cursor = input.cursor;
  const stop = (): EngineResult => ({ fire: [], cursor, dueAt: null, reescalatedAt: null });
  if (incident.state === 'RESOLVED' || input.muted || !plan || plan.steps.length === 0) return stop();

  let reescalatedAt: Date | null = null;
  if (incident.acknowledgedAt !== null) {
    if (plan.ackTimeoutMinutes === null) return stop();
    const timeout = new Date(Date.parse(incident.acknowledgedAt) + plan.ackTimeoutMinutes * MINUTE_MS);
    if (timeout > now) return { fire: [], cursor, dueAt: timeout, reescalatedAt: null };
    reescalatedAt = timeout;
    cursor = { epoch: cursor.epoch + 1, cycle: 0, step: 0, anchor: timeout.toISOString(), held: false, afterAck: true };
  }
  if (input.suppressed) {
    return { fire: [], cursor: { ...cursor, held: true }, dueAt: new Date(now.getTime() + HOLD_RECHECK_MS), reescalatedAt };
  }
  if (cursor.held) cursor = { epoch: cursor.epoch + 1, cycle: 0, step: 0, anchor: now.toISOString(), held: false, afterAck: false };

  const steps = [...plan.steps].sort((a, b) => a.position - b.position);
  const length = cycleLengthMinutes(steps);
  const anchor = Date.parse(cursor.anchor);
  const fire: DueStep[] = [];
  let dueAt: Date | null = null;
  // Bounded: at most (repeatCount + 1) · steps firings, plus one move per cycle.
  for (;;) {
    if (cursor.cycle > plan.repeatCount) break;
    const step = steps[cursor.step];
    if (!step) {
      cursor = { ...cursor, cycle: cursor.cycle + 1, step: 0 };
      continue;
    }
    const at = new Date(anchor + (cursor.cycle * length + step.delayMinutes) * MINUTE_MS);
    if (at > now) {
      dueAt = at;
      break;
    }
    const first = cursor.cycle === 0 && cursor.step === 0;
    const ownedByOpening = first && cursor.epoch === 0 && step.delayMinutes === 0;
    if (!ownedByOpening) {
      fire.push({ epoch: cursor.epoch, cycle: cursor.cycle, step: cursor.step, at, targets: step.targets, escalated: !first || cursor.afterAck });
    }
    cursor = { ...cursor, step: cursor.step + 1 };
  }
  return { fire, cursor, dueAt, reescalatedAt };
}
