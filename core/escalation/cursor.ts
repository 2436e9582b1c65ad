import type { IncidentItem } from '../store/entities/incident.js';
import { dueFields, ESCALATION_DUE_ATTRIBUTES } from '../store/escalationDue.js';

/**
 * Where an incident's escalation stands, as its own item stores it: the next (epoch, cycle, step)
 * to fire, counted from `anchor`. An epoch is one run of the routing from step 0: the opening
 * starts epoch 0; an acknowledgement that timed out, or the end of a maintenance hold, starts the
 * next one. Every delivery key names its epoch, so a new run never collides with an old one.
 */
export type Cursor = {
  epoch: number;
  cycle: number;
  step: number;
  /** The instant the steps' delays count from (the opening, or the start of a later epoch). */
  anchor: string;
  /** A maintenance window with suppressAlerts held the steps: the next unsuppressed sweep starts a new epoch. */
  held: boolean;
  /** The epoch was started by an acknowledgement that timed out: its step 0 is an escalation. */
  afterAck: boolean;
};

export const openingCursor = (startedAt: string): Cursor => ({ epoch: 0, cycle: 0, step: 0, anchor: startedAt, held: false, afterAck: false });

/** The cursor of a stored incident; undefined for incidents opened before the engine (nothing to escalate). */
export function cursorOf(incident: Pick<IncidentItem, 'escalationEpoch' | 'escalationCycle' | 'escalationStep' | 'escalationAnchor' | 'escalationHeld' | 'escalationAfterAck' | 'startedAt'>): Cursor | undefined {
  if (incident.escalationEpoch === undefined) return undefined;
  return {
    epoch: incident.escalationEpoch,
    cycle: incident.escalationCycle ?? 0,
    step: incident.escalationStep ?? 0,
    anchor: incident.escalationAnchor ?? incident.startedAt,
    held: incident.escalationHeld ?? false,
    afterAck: incident.escalationAfterAck ?? false,
  };
}

/** The attributes a write sets for a cursor and its due instant (null: leave the index). */
export function cursorFields(incidentId: number, cursor: Cursor, dueAt: Date | null) {
  return {
    set: {
      escalationEpoch: cursor.epoch,
      escalationCycle: cursor.cycle,
      escalationStep: cursor.step,
      escalationAnchor: cursor.anchor,
      escalationHeld: cursor.held,
      escalationAfterAck: cursor.afterAck,
      ...(dueAt ? dueFields(incidentId, dueAt) : {}),
    },
    remove: dueAt ? [] : ESCALATION_DUE_ATTRIBUTES,
  };
}

export const sameCursor = (a: Cursor, b: Cursor): boolean =>
  a.epoch === b.epoch && a.cycle === b.cycle && a.step === b.step && a.anchor === b.anchor && a.held === b.held && a.afterAck === b.afterAck;
