import type { Deps } from '../deps.js';
import type { OutboxClear } from '../store/outbox.js';
import { HttpError } from '../http/errors.js';
import { applyIncidentInput } from '../incidents/repository.js';
import type { EscalationVerdict, IncidentInput, IncidentState } from '../incidents/transition.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { openingCursor } from './cursor.js';
import { planEscalation, type Plan } from './engine.js';
import { targetLabel } from './recipients.js';

/** What the engine needs besides the incident: its routing, its check's mute, and whether a window holds its alerts. */
export type EscalationContext = { plan: Plan | null; muted: boolean; suppressed: boolean };

/**
 * The engine with an incident's context bound, as the `decide` of an advance
 * (core/incidents/transition.ts): pure, so a write that lost its race decides again on what it
 * reads next.
 */
export function escalationDecider(context: EscalationContext, now: Date): (state: IncidentState) => EscalationVerdict {
  return (state) => {
    // An incident opened before the engine has nothing to escalate: it gets a cursor and leaves the index.
    if (!state.escalation) return { fire: [], cursor: openingCursor(state.startedAt), dueAt: null, reescalatedAt: null };
    const result = planEscalation({
      plan: context.plan,
      incident: { state: state.state, acknowledgedAt: state.acknowledgedAt },
      cursor: state.escalation.cursor,
      now,
      suppressed: context.suppressed,
      muted: context.muted,
    });
    return {
      fire: result.fire.map((due) => ({
        epoch: due.epoch,
        cycle: due.cycle,
        step: due.step,
        at: due.at.toISOString(),
        escalated: due.escalated,
        targets: due.targets.map(targetLabel).join(', '),
      })),
      cursor: result.cursor,
      dueAt: result.dueAt?.toISOString() ?? null,
      reescalatedAt: result.reescalatedAt?.toISOString() ?? null,
    };
  };
}

/**
 * Moves one incident's escalation through its state machine: one conditional write on its
 * revision moves the cursor, clears a timed-out acknowledgement and owes the fired steps'
 * messages (the outbox), so a crash after it loses nothing and a lost race sends nothing: of two
 * sweeps, one write wins. `incident`: as just read (the first attempt writes against it);
 * `clearing`: the opening's outbox clear, folded into the plan's write (core/incidents/handOff.ts).
 */
export async function advanceEscalation(
  deps: Deps,
  incident: IncidentItem,
  now: Date,
  context: EscalationContext,
  clearing?: OutboxClear,
): Promise<{ fired: number; written: boolean }> {
  const outcome = await applyEscalationInput(deps, incident.incidentId, { type: 'advance', decide: escalationDecider(context, now) }, now, incident, clearing);
  const written = outcome?.ok === true && outcome.changed;
  return { fired: written ? (outcome.steps?.length ?? 0) : 0, written };
}

/** An incident gone meanwhile (its workspace deleted) has nothing left to escalate. */
export async function applyEscalationInput(deps: Deps, incidentId: number, input: IncidentInput, now: Date, read?: IncidentItem, clearing?: OutboxClear) {
  try {
    return (await applyIncidentInput(deps, incidentId, input, now, read, clearing)).result;
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
}
