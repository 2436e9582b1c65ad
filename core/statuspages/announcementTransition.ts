import type { AnnouncementImpact, AnnouncementStatus } from './announcementSchema.js';

/** The part of an announcement its state machine reads and writes. */
export type AnnouncementState = {
  title: string;
  status: AnnouncementStatus;
  impact: AnnouncementImpact | null;
  componentIds: number[];
  resolvedAt: string | null;
  /** Both or neither: scheduled maintenance. */
  scheduledFor: string | null;
  scheduledUntil: string | null;
  /** Set once when the sweep sees the maintenance begin, so `maintenance.started` goes out once. */
  maintenanceStartedAt: string | null;
  /** Set once the maintenance is over (by time or by a resolve inside or after the window). */
  maintenanceCompletedAt: string | null;
  /** Bumped by every change: the caller writes conditionally on the revision it read. */
  revision: number;
};

export type AnnouncementInput =
  | {
      type: 'create';
      title: string;
      status?: AnnouncementStatus | undefined;
      impact?: AnnouncementImpact | undefined;
      componentIds: number[];
      scheduledFor?: string | undefined;
      scheduledUntil?: string | undefined;
      /** Dashboard `body` / v1 `message`: the first timeline entry; absent or empty: none. */
      body?: string | undefined;
    }
  | { type: 'patch'; title?: string | undefined; status?: AnnouncementStatus | undefined; impact?: AnnouncementImpact | null | undefined; componentIds?: number[] | undefined }
  | { type: 'post'; body: string; status?: AnnouncementStatus | undefined }
  /** A maintenance window with autoPublishToStatusPage moved: keep its announcement in step. */
  | { type: 'reschedule'; scheduledFor: string; scheduledUntil: string; body?: string | undefined }
  /** The sweep: scheduled maintenance starts and completes by time. */
  | { type: 'tick' };

/** What subscribers hear. */
export type AnnouncementNotice =
  | 'announcement.created'
  | 'announcement.updated'
  | 'announcement.resolved'
  | 'maintenance.scheduled'
  | 'maintenance.started'
  | 'maintenance.completed';

/** `key` names the logical effect (`<revision>:<what>`) so a replayed write emits nothing twice. */
export type AnnouncementEffect =
  | { type: 'timeline'; key: string; status: AnnouncementStatus | null; body: string; createdAt: string }
  | { type: 'notify'; key: string; notice: AnnouncementNotice; at: string };

export type AnnouncementTransitionResult =
  | { ok: true; changed: boolean; state: AnnouncementState; effects: AnnouncementEffect[] }
  | { ok: false; code: 'SCHEDULE_IN_PAST' | 'INVALID_SCHEDULE' | 'NOT_SCHEDULED'; message: string };

export const MAINTENANCE_STARTED_BODY = 'Scheduled maintenance is in progress.';
export const MAINTENANCE_COMPLETED_BODY = 'Scheduled maintenance has been completed.';

const ms = Date.parse;
export const isScheduled = (a: Pick<AnnouncementState, 'scheduledFor' | 'scheduledUntil'>): boolean => a.scheduledFor !== null && a.scheduledUntil !== null;

export type AnnouncementPhase = 'SCHEDULED' | 'IN_PROGRESS' | 'ACTIVE' | 'RESOLVED';
/**
 * How the public page shows it at `now`: scheduled maintenance is SCHEDULED before its start and
 * IN_PROGRESS inside its window (spec: "shows as Scheduled until the start time, then becomes
 * active"); anything else open is ACTIVE.
 */
export function phaseOf(a: Pick<AnnouncementState, 'status' | 'scheduledFor' | 'scheduledUntil'>, now: Date): AnnouncementPhase {
  if (a.status === 'RESOLVED') return 'RESOLVED';
  if (a.scheduledFor === null || a.scheduledUntil === null) return 'ACTIVE';
  if (now.getTime() < ms(a.scheduledFor)) return 'SCHEDULED';
  return now.getTime() < ms(a.scheduledUntil) ? 'IN_PROGRESS' : 'ACTIVE';
}

/**
 * Whether the announcement's impact bears on its components at `now`: open, and for scheduled
 * maintenance not before its start (before it, it is a notice). One reopened after its window is
 * an ordinary open announcement again.
 */
export function inEffect(a: Pick<AnnouncementState, 'status' | 'scheduledFor' | 'scheduledUntil'>, now: Date): boolean {
  const phase = phaseOf(a, now);
  return phase === 'IN_PROGRESS' || phase === 'ACTIVE';
}

/** Scheduled maintenance inside its window and not resolved: its components are UNDER_MAINTENANCE. */
export const maintenanceInProgress = (a: Pick<AnnouncementState, 'status' | 'scheduledFor' | 'scheduledUntil'>, now: Date): boolean => phaseOf(a, now) === 'IN_PROGRESS';

const unchanged = (state: AnnouncementState): AnnouncementTransitionResult => ({ ok: true, changed: false, state, effects: [] });

/** Moving to RESOLVED sets resolvedAt; leaving RESOLVED clears it. */
function moveStatus(state: AnnouncementState, to: AnnouncementStatus, at: string): AnnouncementState {
  if (to === state.status) return state;
  if (to !== 'RESOLVED') return { ...state, status: to, resolvedAt: null };
  // A maintenance resolved once its window began is over: the sweep must not close it again if
  // someone reopens it later.
  const over = isScheduled(state) && state.maintenanceCompletedAt === null && ms(at) >= ms(state.scheduledFor ?? at);
  return { ...state, status: 'RESOLVED', resolvedAt: at, maintenanceCompletedAt: over ? at : state.maintenanceCompletedAt };
}

function commit(
  before: AnnouncementState,
  after: AnnouncementState,
  notice: AnnouncementNotice,
  at: string,
  entry?: { status: AnnouncementStatus | null; body: string; at: string },
): AnnouncementTransitionResult {
  const revision = before.revision + 1;
  const effects: AnnouncementEffect[] = [];
  if (entry) effects.push({ type: 'timeline', key: `${revision}:entry`, status: entry.status, body: entry.body, createdAt: entry.at });
  effects.push({ type: 'notify', key: `${revision}:${notice}`, notice, at });
  return { ok: true, changed: true, state: { ...after, revision }, effects };
}

const noticeFor = (before: AnnouncementState, after: AnnouncementState): AnnouncementNotice =>
  after.status === 'RESOLVED' && before.status !== 'RESOLVED' ? 'announcement.resolved' : 'announcement.updated';

const sameIds = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((id, i) => id === b[i]);

function scheduleProblem(scheduledFor: string, scheduledUntil: string, now: Date): AnnouncementTransitionResult | null {
  if (ms(scheduledUntil) <= ms(scheduledFor)) return { ok: false, code: 'INVALID_SCHEDULE', message: 'scheduledUntil must be after scheduledFor' };
  if (ms(scheduledUntil) <= now.getTime()) return { ok: false, code: 'SCHEDULE_IN_PAST', message: 'The maintenance would already be over: scheduledUntil is in the past' };
  return null;
}

/**
 * The announcement state machine: from the current state (null before it exists), one input and
 * the instant, the next state and the effects (timeline entries, notices). Pure; the caller
 * persists with a conditional write on `revision` and then performs the effects.
 *
 * - Status moves follow the spec table: any status may move to any given status, RESOLVED too.
 * - `post` always appends one timeline entry; `patch` appends none and changes nothing when it
 *   repeats the current values.
 * - Scheduled maintenance is started and completed by `tick` from the clock alone, each once.
 */
export function transitionAnnouncement(current: AnnouncementState | null, input: AnnouncementInput, now: Date): AnnouncementTransitionResult {
  const nowIso = now.toISOString();
  if (current === null) {
    if (input.type !== 'create') throw new Error(`cannot ${input.type} an announcement that does not exist`);
    const scheduledFor = input.scheduledFor ?? null;
    const scheduledUntil = input.scheduledUntil ?? null;
    if ((scheduledFor === null) !== (scheduledUntil === null)) return { ok: false, code: 'INVALID_SCHEDULE', message: 'Set both scheduledFor and scheduledUntil, or neither' };
    if (scheduledFor !== null && scheduledUntil !== null) {
      const problem = scheduleProblem(scheduledFor, scheduledUntil, now);
      if (problem) return problem;
    }
    const scheduled = scheduledFor !== null;
    const status = input.status ?? (scheduled ? 'IDENTIFIED' : 'INVESTIGATING');
    const state: AnnouncementState = {
      title: input.title,
      status,
      impact: input.impact ?? null,
      componentIds: [...input.componentIds],
      resolvedAt: status === 'RESOLVED' ? nowIso : null,
      scheduledFor,
      scheduledUntil,
      maintenanceStartedAt: null,
      maintenanceCompletedAt: null,
      revision: 0,
    };
    const body = input.body ?? '';
    const entry = body.length > 0 ? { status, body, at: nowIso } : undefined;
    return commit(state, state, scheduled ? 'maintenance.scheduled' : 'announcement.created', nowIso, entry);
  }

  switch (input.type) {
    case 'create':
      return unchanged(current);
    case 'patch': {
      let next: AnnouncementState = { ...current };
      if (input.title !== undefined) next.title = input.title;
      if (input.impact !== undefined) next.impact = input.impact;
      if (input.componentIds !== undefined && !sameIds(input.componentIds, current.componentIds)) next.componentIds = [...input.componentIds];
      if (input.status !== undefined) next = moveStatus(next, input.status, nowIso);
      const same = next.title === current.title && next.impact === current.impact && next.status === current.status && next.componentIds === current.componentIds;
      return same ? unchanged(current) : commit(current, next, noticeFor(current, next), nowIso);
    }
    case 'post': {
      const next = input.status === undefined ? current : moveStatus(current, input.status, nowIso);
      return commit(current, next, noticeFor(current, next), nowIso, { status: input.status ?? null, body: input.body, at: nowIso });
    }
    case 'reschedule': {
      if (!isScheduled(current)) return { ok: false, code: 'NOT_SCHEDULED', message: 'Only scheduled maintenance can be rescheduled' };
      if (current.status === 'RESOLVED' || current.maintenanceCompletedAt !== null) return unchanged(current);
      const problem = scheduleProblem(input.scheduledFor, input.scheduledUntil, now);
      if (problem) return problem;
      if (input.scheduledFor === current.scheduledFor && input.scheduledUntil === current.scheduledUntil && !input.body) return unchanged(current);
      const notStarted = ms(input.scheduledFor) > now.getTime();
      const next: AnnouncementState = {
        ...current,
        scheduledFor: input.scheduledFor,
        scheduledUntil: input.scheduledUntil,
        maintenanceStartedAt: notStarted ? null : current.maintenanceStartedAt,
      };
      const entry = input.body ? { status: null, body: input.body, at: nowIso } : undefined;
      return commit(current, next, 'announcement.updated', nowIso, entry);
    }
    case 'tick': {
      const { scheduledFor, scheduledUntil } = current;
      if (scheduledFor === null || scheduledUntil === null) return unchanged(current);
      if (current.status === 'RESOLVED' || current.maintenanceCompletedAt !== null) return unchanged(current);
      const at = now.getTime();
      if (at >= ms(scheduledUntil)) {
        // Stamped with the scheduled end, not the sweep's instant: a late sweep must not stretch
        // the maintenance in history.
        const next: AnnouncementState = {
          ...current,
          status: 'RESOLVED',
          resolvedAt: scheduledUntil,
          maintenanceStartedAt: current.maintenanceStartedAt ?? scheduledFor,
          maintenanceCompletedAt: scheduledUntil,
        };
        return commit(current, next, 'maintenance.completed', scheduledUntil, { status: 'RESOLVED', body: MAINTENANCE_COMPLETED_BODY, at: scheduledUntil });
      }
      if (at >= ms(scheduledFor) && current.maintenanceStartedAt === null) {
        const next: AnnouncementState = { ...current, maintenanceStartedAt: scheduledFor };
        return commit(current, next, 'maintenance.started', scheduledFor, { status: null, body: MAINTENANCE_STARTED_BODY, at: scheduledFor });
      }
      return unchanged(current);
    }
  }
}
