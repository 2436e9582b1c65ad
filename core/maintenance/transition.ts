import type { MAINTENANCE_STATES } from '../store/entities/maintenanceWindow.js';
import { planWindow, type Occurrence, type WindowTiming } from './recurrence.js';

export type WindowStateName = (typeof MAINTENANCE_STATES)[number];
export type Timing = { startAt: string; endAt: string; timezone: string; recurringCron: string | null };

/** The part of a maintenance window its state machine reads and writes. */
export type WindowState = {
  state: WindowStateName;
  timing: Timing;
  projectIds: readonly number[];
  suppressIncidents: boolean;
  suppressAlerts: boolean;
  occurrenceStartAt: string | null;
  occurrenceEndAt: string | null;
  completedAt: string | null;
  cancelledAt: string | null;
  /** Bumped by every change; writes are conditional on the revision read. */
  revision: number;
  /** The sparse due index: at or before now while holds may be out of line, else the next change. */
  dueAt: string | null;
};

export type Reschedule = Pick<WindowState, 'timing' | 'projectIds' | 'suppressIncidents' | 'suppressAlerts'>;

/**
 * `tick` is "time passed, or a write left the window due: bring the holds in line"; `finish` and
 * `reschedule` are the verbs; `holdsSettled` reports that the holds a tick named are in place for
 * `revision`, and commits the state they were planned for at `plannedAt` (the holds go first, so a crash in between
 * leaves the window due and the next pass puts them again).
 */
export type WindowEvent =
  | { type: 'tick' }
  | { type: 'finish'; to: 'COMPLETED' | 'CANCELLED' }
  | { type: 'reschedule'; changes: Reschedule }
  | { type: 'holdsSettled'; revision: number; heldProjectIds: readonly number[]; plannedAt: string };

export type HoldInterval = { startsAt: string; endsAt: string; suppressIncidents: boolean; suppressAlerts: boolean };

export type WindowEffect =
  | { type: 'putHolds'; projectIds: readonly number[]; hold: HoldInterval }
  | { type: 'deleteHolds'; projectIds: readonly number[] }
  /** No I/O: once the effects before it are done, feed `event` back in. */
  | { type: 'confirm'; event: WindowEvent };

export type WindowTransition = { ok: true; changed: boolean; state: WindowState; effects: WindowEffect[] } | { ok: false; code: 'MAINTENANCE_WINDOW_IMMUTABLE' };

export const isTerminalState = (state: WindowStateName): boolean => state === 'COMPLETED' || state === 'CANCELLED';

export const timingOf = (t: { startAt: string; endAt: string; timezone: string; recurringCron?: string | null | undefined }): WindowTiming => ({
  startAt: new Date(t.startAt),
  endAt: new Date(t.endAt),
  recurringCron: t.recurringCron ?? null,
  timezone: t.timezone,
});

const sameIds = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((id, i) => b[i] === id);

function sameState(a: WindowState, b: WindowState): boolean {
  return (
    a.state === b.state &&
    a.timing.startAt === b.timing.startAt &&
    a.timing.endAt === b.timing.endAt &&
    a.timing.timezone === b.timing.timezone &&
    a.timing.recurringCron === b.timing.recurringCron &&
    sameIds(a.projectIds, b.projectIds) &&
    a.suppressIncidents === b.suppressIncidents &&
    a.suppressAlerts === b.suppressAlerts &&
    a.occurrenceStartAt === b.occurrenceStartAt &&
    a.occurrenceEndAt === b.occurrenceEndAt &&
    a.completedAt === b.completedAt &&
    a.cancelledAt === b.cancelledAt &&
    a.dueAt === b.dueAt
  );
}

/** The new state with its revision bumped when anything changed. */
function result(before: WindowState, next: WindowState, effects: WindowEffect[]): WindowTransition {
  const changed = !sameState(before, next);
  return { ok: true, changed, state: changed ? { ...next, revision: before.revision + 1 } : before, effects };
}

const iso = (d: Date): string => d.toISOString();

/** Where the window should be at `now` (state, occurrence, next due), per its recurrence. */
function planned(s: WindowState, now: Date): WindowState {
  if (isTerminalState(s.state)) return { ...s, dueAt: null };
  const plan = planWindow(timingOf(s.timing), now);
  if (plan.state === 'COMPLETED') {
    // The natural end: completed when its (last) occurrence ended, not when the processor noticed.
    const ended = s.occurrenceEndAt !== null && Date.parse(s.occurrenceEndAt) <= now.getTime() ? s.occurrenceEndAt : iso(now);
    return { ...s, state: 'COMPLETED', completedAt: ended, dueAt: null };
  }
  return { ...s, ...occurrenceFields(plan.occurrence), state: plan.state, dueAt: iso(plan.state === 'SCHEDULED' ? plan.occurrence.startAt : plan.occurrence.endAt) };
}

const occurrenceFields = (o: Occurrence) => ({ occurrenceStartAt: iso(o.startAt), occurrenceEndAt: iso(o.endAt) });

/**
 * The holds `s` calls for at `now`, then a confirmation that commits the planned state. A live
 * window holds its projects for exactly its current or next occurrence; a finished one holds nothing.
 */
function holdEffects(s: WindowState, now: Date): WindowEffect[] {
  const target = planned(s, now);
  const confirm = (heldProjectIds: readonly number[]): WindowEffect => ({
    type: 'confirm',
    event: { type: 'holdsSettled', revision: s.revision, heldProjectIds, plannedAt: iso(now) },
  });
  if (isTerminalState(target.state) || target.occurrenceStartAt === null || target.occurrenceEndAt === null) {
    return [{ type: 'deleteHolds', projectIds: s.projectIds }, confirm([])];
  }
  const hold = { startsAt: target.occurrenceStartAt, endsAt: target.occurrenceEndAt, suppressIncidents: s.suppressIncidents, suppressAlerts: s.suppressAlerts };
  return [{ type: 'putHolds', projectIds: s.projectIds, hold }, confirm(s.projectIds)];
}

/** The holds of a terminal window are gone once its due time is cleared. */
const settledTerminal = (s: WindowState): boolean => isTerminalState(s.state) && s.dueAt === null;

/**
 * The maintenance window state machine: from the stored state and one event, the next state and
 * the effects to perform. Pure; the caller writes the state with a condition on the revision it
 * read, then performs the effects in order.
 *
 * - COMPLETED and CANCELLED are terminal: no event leaves them, and finishing twice equals
 *   finishing once (a second finish only completes hold deletions left undone).
 * - A window holds its projects only for an occurrence of its recurrence (recurrence.ts), and
 *   holds nothing once terminal.
 * - Only a SCHEDULED window is rescheduled.
 */
export function transitionWindow(s: WindowState, event: WindowEvent, now: Date): WindowTransition {
  switch (event.type) {
    case 'tick':
      return result(s, s, settledTerminal(s) ? [] : holdEffects(s, now));
    case 'finish': {
      if (isTerminalState(s.state)) return transitionWindow(s, { type: 'tick' }, now);
      const at = iso(now);
      const finished: WindowState = { ...s, state: event.to, ...(event.to === 'COMPLETED' ? { completedAt: at } : { cancelledAt: at }), dueAt: at };
      const next = result(s, finished, []);
      return next.ok ? { ...next, effects: holdEffects(next.state, now) } : next;
    }
    case 'reschedule': {
      if (s.state !== 'SCHEDULED') return { ok: false, code: 'MAINTENANCE_WINDOW_IMMUTABLE' };
      const { changes } = event;
      const dropped = s.projectIds.filter((id) => !changes.projectIds.includes(id));
      const next = result(s, { ...s, ...changes, dueAt: iso(now) }, []);
      if (!next.ok) return next;
      // Always a new revision: the write also carries the fields outside the state (name, ...).
      const state = next.changed ? next.state : { ...s, revision: s.revision + 1 };
      return { ok: true, changed: true, state, effects: [...(dropped.length > 0 ? [{ type: 'deleteHolds' as const, projectIds: dropped }] : []), ...holdEffects(state, now)] };
    }
    case 'holdsSettled': {
      // Commits the plan the holds were put for (a due time already passed is picked up again).
      // Written even when nothing changed: the conditional write is what tells a run that the
      // window was deleted or changed while its holds went in.
      if (event.revision === s.revision) return { ok: true, changed: true, state: { ...planned(s, new Date(event.plannedAt)), revision: s.revision + 1 }, effects: [] };
      // Written meanwhile: the holds just put may sit on projects the window no longer covers.
      const stray = event.heldProjectIds.filter((id) => !s.projectIds.includes(id));
      const tick = transitionWindow(s, { type: 'tick' }, now);
      if (!tick.ok || stray.length === 0) return tick;
      return { ...tick, effects: [{ type: 'deleteHolds', projectIds: stray }, ...tick.effects] };
    }
  }
}
