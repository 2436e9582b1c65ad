import type { DEPLOYMENT_STATUSES } from '../store/entities/deployment.js';

export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** The part of a deployment its state machine reads and writes. */
export type DeploymentState = {
  status: DeploymentStatus;
  /** The window's start (the planned start while SCHEDULED); never changes. */
  startedAt: string;
  scheduledEndAt: string | null;
  endedAt: string | null;
  autoPause: boolean;
  /** The checks this deployment paused (or is about to): only these resume at its end. */
  autoPausedCheckIds: readonly number[];
  /** Start effects (hold, pauses) done. */
  startEffectsAt: string | null;
  /** End effects (resumes, hold gone) done. */
  endEffectsAt: string | null;
  /** The sparse due index: at or before now while effects are pending, else the next scheduled transition. */
  dueAt: string | null;
};

/**
 * `open` creates; `tick` is "time passed, or a request died half way: catch up"; `end` is the
 * verb. `pausing`, `started`, `scheduled` and `endApplied` report effects carried out, so the
 * record of them is written only once they landed (a crash in between leaves the deployment due).
 */
export type DeploymentEvent =
  | { type: 'open'; startedAt: string; endAt: string | null; endIsPlan: boolean; autoPause: boolean }
  | { type: 'tick' }
  | { type: 'end'; at: string }
  | { type: 'scheduled' }
  | { type: 'pausing'; checkIds: readonly number[] }
  | { type: 'started'; paused: readonly number[] }
  | { type: 'endApplied' };

export type DeploymentEffect =
  | { type: 'putHold' }
  | { type: 'deleteHold' }
  /** Reads the target checks still running (or recorded as ours); reports `pausing` with them. */
  | { type: 'findPauseTargets' }
  /** Pauses them; reports `started` with those this deployment now holds paused. */
  | { type: 'pauseChecks'; checkIds: readonly number[] }
  | { type: 'resumeChecks'; checkIds: readonly number[] }
  /** No I/O: once the effects before it are done, feed `event` back in. */
  | { type: 'confirm'; event: DeploymentEvent };

export type DeploymentRejection = 'END_NOT_AFTER_START' | 'PLANNED_END_PASSED' | 'END_IN_FUTURE' | 'END_BEFORE_START';

export type DeploymentTransition = { ok: true; changed: boolean; state: DeploymentState; effects: DeploymentEffect[] } | { ok: false; code: DeploymentRejection };

const ORDER: Record<DeploymentStatus, number> = { SCHEDULED: 0, ACTIVE: 1, ENDED: 2 };
/** Status only moves forward: SCHEDULED, ACTIVE, ENDED. */
export const statusRank = (status: DeploymentStatus): number => ORDER[status];

const at = (iso: string): number => Date.parse(iso);
/** A due time already reached stays (the work is findable); otherwise due now. */
const pending = (dueAt: string | null, now: Date): string => (dueAt !== null && at(dueAt) <= now.getTime() ? dueAt : now.toISOString());
const sorted = (ids: Iterable<number>): number[] => [...new Set(ids)].sort((a, b) => a - b);

function sameState(a: DeploymentState, b: DeploymentState): boolean {
  return (
    a.status === b.status &&
    a.startedAt === b.startedAt &&
    a.scheduledEndAt === b.scheduledEndAt &&
    a.endedAt === b.endedAt &&
    a.autoPause === b.autoPause &&
    a.startEffectsAt === b.startEffectsAt &&
    a.endEffectsAt === b.endEffectsAt &&
    a.dueAt === b.dueAt &&
    a.autoPausedCheckIds.length === b.autoPausedCheckIds.length &&
    a.autoPausedCheckIds.every((id, i) => b.autoPausedCheckIds[i] === id)
  );
}

function result(before: DeploymentState, state: DeploymentState, effects: DeploymentEffect[]): DeploymentTransition {
  return { ok: true, changed: !sameState(before, state), state, effects };
}

const END_EFFECTS = (s: DeploymentState): DeploymentEffect[] => [
  { type: 'resumeChecks', checkIds: s.autoPausedCheckIds },
  { type: 'deleteHold' },
  { type: 'confirm', event: { type: 'endApplied' } },
];

const START_EFFECTS = (s: DeploymentState): DeploymentEffect[] => [
  { type: 'putHold' },
  s.autoPause ? { type: 'findPauseTargets' } : { type: 'confirm', event: { type: 'started', paused: [] } },
];

/** Where time alone takes a deployment from `s` at `now`, and the effects that implies. */
function settle(before: DeploymentState, s: DeploymentState, now: Date): DeploymentTransition {
  const nowMs = now.getTime();
  switch (s.status) {
    case 'SCHEDULED': {
      if (at(s.startedAt) > nowMs) return result(before, s, [{ type: 'putHold' }, { type: 'confirm', event: { type: 'scheduled' } }]);
      const active: DeploymentState = { ...s, status: 'ACTIVE', dueAt: pending(s.dueAt, now) };
      return result(before, active, START_EFFECTS(active));
    }
    case 'ACTIVE': {
      if (s.startEffectsAt === null) return result(before, s, START_EFFECTS(s));
      if (s.scheduledEndAt !== null && at(s.scheduledEndAt) <= nowMs) {
        const ended: DeploymentState = { ...s, status: 'ENDED', endedAt: now.toISOString(), dueAt: pending(s.dueAt, now) };
        return result(before, ended, END_EFFECTS(ended));
      }
      return result(before, { ...s, dueAt: s.scheduledEndAt }, []);
    }
    case 'ENDED':
      if (s.endEffectsAt === null) return result(before, s, END_EFFECTS(s));
      return result(before, { ...s, dueAt: null }, []);
  }
}

/**
 * A report of start effects (hold put, checks paused) that reaches a deployment which ended
 * meanwhile: its end may have cleaned up before they landed, so undo them again (resuming or
 * deleting twice is harmless). An end still pending does all of it anyway.
 */
function afterEnd(before: DeploymentState, s: DeploymentState, paused: readonly number[], now: Date): DeploymentTransition {
  const next = settle(before, s, now);
  if (!next.ok || s.status !== 'ENDED' || s.endEffectsAt === null) return next;
  const late: DeploymentEffect[] = paused.length > 0 ? [{ type: 'resumeChecks', checkIds: paused }] : [];
  return { ...next, effects: [...late, { type: 'deleteHold' }, ...next.effects] };
}

/**
 * The deployment state machine: from the current state (null before the deployment exists) and
 * one event, the next state and the effects to perform. Pure; the caller writes the state with a
 * condition on the status it read, then performs the effects in order.
 *
 * - Status only moves forward; ENDED is terminal, and ending an ENDED deployment changes nothing
 *   (it only finishes end effects an earlier request left undone).
 * - Only the checks recorded in autoPausedCheckIds are resumed, and every check paused is recorded.
 * - While effects are pending the deployment is due (dueAt at or before now), so the sweep
 *   finishes what a crashed request left half done.
 */
export function transitionDeployment(current: DeploymentState | null, event: DeploymentEvent, now: Date): DeploymentTransition {
  const nowIso = now.toISOString();
  if (current === null) {
    if (event.type !== 'open') throw new Error(`cannot ${event.type} a deployment that does not exist`);
    return open(event, now);
  }
  const s = current;
  switch (event.type) {
    case 'open':
      throw new Error('the deployment exists already');
    case 'tick':
      return settle(s, s, now);
    case 'scheduled':
      if (s.status === 'SCHEDULED' && at(s.startedAt) > now.getTime()) return result(s, { ...s, dueAt: s.startedAt }, []);
      return afterEnd(s, s, [], now);
    case 'end': {
      if (s.status === 'ENDED') return settle(s, s, now);
      const endedAt = new Date(event.at);
      if (endedAt.getTime() > now.getTime()) return { ok: false, code: 'END_IN_FUTURE' };
      if (s.status === 'ACTIVE' && endedAt.getTime() < at(s.startedAt)) return { ok: false, code: 'END_BEFORE_START' };
      const ended: DeploymentState = { ...s, status: 'ENDED', endedAt: endedAt.toISOString(), dueAt: nowIso };
      return result(s, ended, END_EFFECTS(ended));
    }
    case 'pausing': {
      if (s.status !== 'ACTIVE' || s.startEffectsAt !== null || !s.autoPause) return afterEnd(s, s, [], now);
      // The intent is recorded before any pause lands, so an end racing this step knows what to resume.
      const intent = [...s.autoPausedCheckIds, ...event.checkIds.filter((id) => !s.autoPausedCheckIds.includes(id))];
      return result(s, { ...s, autoPausedCheckIds: intent }, [{ type: 'pauseChecks', checkIds: event.checkIds }]);
    }
    case 'started': {
      // Pauses are only reported by a deployment that started: a stray report changes nothing.
      if (s.status === 'SCHEDULED') return settle(s, s, now);
      const paused = s.autoPause ? sorted(event.paused) : [];
      if (s.status === 'ACTIVE' && s.startEffectsAt === null) {
        return settle(s, { ...s, startEffectsAt: nowIso, autoPausedCheckIds: paused }, now);
      }
      // The deployment moved on while the pauses ran: keep the record complete.
      const missing = paused.filter((id) => !s.autoPausedCheckIds.includes(id));
      return afterEnd(s, { ...s, autoPausedCheckIds: [...s.autoPausedCheckIds, ...missing] }, paused, now);
    }
    case 'endApplied':
      if (s.status === 'ENDED' && s.endEffectsAt === null) return result(s, { ...s, endEffectsAt: nowIso, dueAt: null }, []);
      return settle(s, s, now);
  }
}

/**
 * A new deployment: SCHEDULED when its start is in the future, else ACTIVE, due at once (the first
 * tick applies the start effects). An end that is not a plan and has passed records a finished
 * deployment: ENDED with nothing pending (no check was touched, so there is nothing to undo).
 */
function open(event: Extract<DeploymentEvent, { type: 'open' }>, now: Date): DeploymentTransition {
  const nowIso = now.toISOString();
  const start = at(event.startedAt);
  const end = event.endAt === null ? null : at(event.endAt);
  if (end !== null && end <= start) return { ok: false, code: 'END_NOT_AFTER_START' };
  const finished = end !== null && end <= now.getTime();
  if (finished && event.endIsPlan) return { ok: false, code: 'PLANNED_END_PASSED' };
  const base = {
    startedAt: new Date(start).toISOString(),
    autoPause: event.autoPause,
    autoPausedCheckIds: [],
  };
  const state: DeploymentState = finished
    ? { ...base, status: 'ENDED', scheduledEndAt: null, endedAt: new Date(end).toISOString(), startEffectsAt: nowIso, endEffectsAt: nowIso, dueAt: null }
    : {
        ...base,
        status: start > now.getTime() ? 'SCHEDULED' : 'ACTIVE',
        scheduledEndAt: end === null ? null : new Date(end).toISOString(),
        endedAt: null,
        startEffectsAt: null,
        endEffectsAt: null,
        dueAt: nowIso,
      };
  return { ok: true, changed: true, state, effects: [] };
}
