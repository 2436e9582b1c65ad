import type { INCIDENT_STATES } from '../store/entities/incident.js';
import type { INCIDENT_EVENT_TYPES } from '../store/entities/incidentEvent.js';

export type Severity = 'P1' | 'P2' | 'P3' | 'P4';
export type IncidentStateName = (typeof INCIDENT_STATES)[number];
export type IncidentEventType = (typeof INCIDENT_EVENT_TYPES)[number];

/** The part of an incident its state machine reads and writes. */
export type IncidentState = {
  state: IncidentStateName;
  severity: Severity;
  startedAt: string;
  resolvedAt: string | null;
  recoveredAt: string | null;
  acknowledgedBy: number | null;
  acknowledgedByKeyId: number | null;
  acknowledgedAt: string | null;
  /** null for an incident opened before the escalation engine: it has nothing to escalate. */
  escalation: EscalationState | null;
};

/**
 * Where an incident's escalation stands (its reader and mover: core/escalation/): the next
 * (epoch, cycle, step) to fire, counted from `anchor`. An epoch is one run of the routing from
 * step 0: the opening starts epoch 0; an acknowledgement that timed out, or the end of a
 * maintenance hold, starts the next one. Every delivery key names its epoch, so a new run never
 * collides with an old one.
 */
export type EscalationCursor = {
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

/** The cursor and when the escalation sweep next looks at the incident (null: it is out of the due index). */
export type EscalationState = { cursor: EscalationCursor; dueAt: string | null };

export const openingCursor = (startedAt: string): EscalationCursor => ({ epoch: 0, cycle: 0, step: 0, anchor: startedAt, held: false, afterAck: false });

export const sameCursor = (a: EscalationCursor, b: EscalationCursor): boolean =>
  a.epoch === b.epoch && a.cycle === b.cycle && a.step === b.step && a.anchor === b.anchor && a.held === b.held && a.afterAck === b.afterAck;

/** A step the engine fired: the write that moves the cursor past it owes its message on the alerts queue. */
export type FiredStep = {
  epoch: number;
  cycle: number;
  step: number;
  /** The instant it fell due. */
  at: string;
  /** Any firing but the first of a run (and every firing of a run started by an ack timeout): on the timeline. */
  escalated: boolean;
  /** Who the step pages, as the timeline names them. */
  targets: string;
};

/**
 * What the escalation engine (core/escalation/engine.ts) decides for an incident at one instant:
 * the steps due, where the cursor goes, when the incident is next due, and whether its
 * acknowledgement timed out (from that instant).
 */
export type EscalationVerdict = { fire: readonly FiredStep[]; cursor: EscalationCursor; dueAt: string | null; reescalatedAt: string | null };

/** Who did it: a user, an API key (which has no user), or the system. */
export type ActorRef = { kind: 'user'; userId: number; email: string } | { kind: 'apiKey'; apiKeyId: number; name: string } | { kind: 'system' };

/** SOURCE_RESOLVED: an integration's source (Alertmanager, Grafana, ...) said the alert is over. */
export type ResolveCause = 'RECOVERED' | 'MANUAL' | 'CHECK_DELETED' | 'DEPLOYMENT_PAUSED' | 'DEPENDENCY_RECOVERED' | 'DEPENDENCY_DELETED' | 'SOURCE_RESOLVED';

/** The causes that mean the outage itself is over (the incident records `recoveredAt`). */
export const isRecovery = (cause: ResolveCause): boolean => cause === 'RECOVERED' || cause === 'DEPENDENCY_RECOVERED' || cause === 'SOURCE_RESOLVED';

export type IncidentInput =
  | { type: 'open'; severity: Severity; at: string; message: string }
  /** `title`: what the incident is called from now on (a late check that went down is "down"); applied by the repository. */
  | { type: 'raise'; severity: Severity; at: string; title?: string }
  | { type: 'acknowledge'; by: ActorRef; round?: number }
  | { type: 'monitor'; by: ActorRef }
  | { type: 'resolve'; cause: ResolveCause; at: string; by?: ActorRef }
  /**
   * The escalation sweep (or the opening alert's handler) moves the escalation: `decide` is the
   * engine with the routing, the check's mute and the windows bound (pure), run on the state read
   * so a lost race decides again. An acknowledgement that timed out is cleared by the same write.
   */
  | { type: 'advance'; decide: (state: IncidentState) => EscalationVerdict }
  /** The opening alert found a window suppressing alerts: step 0 was not sent, the first run is held. */
  | { type: 'hold' };

/** An event to append to the timeline; `key` names the logical event so a replay writes nothing. */
export type TimelineEffect = { key: string; type: IncidentEventType; message: string; occurredAt: string; actor: ActorRef };

export type TransitionResult =
  /** `steps`: the escalation steps the change fired (an advance only), each owed once by its write. */
  { ok: true; changed: boolean; state: IncidentState; effects: TimelineEffect[]; steps?: readonly FiredStep[] } | { ok: false; code: 'INCIDENT_RESOLVED'; message: string };

const SYSTEM: ActorRef = { kind: 'system' };
const rank: Record<Severity, number> = { P1: 4, P2: 3, P3: 2, P4: 1 };

/** P1 is the most severe. */
export const moreSevere = (a: Severity, b: Severity): boolean => rank[a] > rank[b];

export function describeActor(actor: ActorRef): string {
  if (actor.kind === 'user') return actor.email;
  if (actor.kind === 'apiKey') return `API key "${actor.name}" (#${actor.apiKeyId})`;
  return 'the system';
}

const RESOLVE_MESSAGES: Record<Exclude<ResolveCause, 'MANUAL'>, string> = {
  RECOVERED: 'Resolved: the check recovered',
  CHECK_DELETED: 'Resolved: the check was deleted',
  DEPLOYMENT_PAUSED: 'Resolved: the check was paused by a deployment',
  DEPENDENCY_RECOVERED: 'Resolved: the dependency was reported ok',
  DEPENDENCY_DELETED: 'Resolved: the dependency was deleted',
  SOURCE_RESOLVED: 'Resolved: the alert source reported it resolved',
};

const unchanged = (state: IncidentState): TransitionResult => ({ ok: true, changed: false, state, effects: [] });
const rejectResolved = (): TransitionResult => ({ ok: false, code: 'INCIDENT_RESOLVED', message: 'The incident is resolved' });
const isOpen = (state: IncidentState): boolean => state.state !== 'RESOLVED';

/**
 * The incident state machine: from the current state (null before the incident exists) and one
 * input, the next state and the timeline events to append. Pure; the caller persists with a
 * conditional write on the state it read.
 *
 * - RESOLVED is terminal: system inputs leave it unchanged, acknowledge and monitor are refused.
 * - acknowledge, monitor and resolve are idempotent: repeating one changes nothing.
 * - Severity only rises within an episode.
 * - System inputs older than the incident's start are stale redeliveries and change nothing.
 * - An open incident is in the escalation-due index (dueAt) while something of its escalation is
 *   pending; acknowledging makes it due at once (the sweep plans its ack timeout), resolving
 *   takes it out. Only an advance moves the cursor past a step, and each step fires once.
 */
export function transitionIncident(current: IncidentState | null, input: IncidentInput, now: Date): TransitionResult {
  const nowIso = now.toISOString();
  if (current === null) {
    if (input.type !== 'open') throw new Error(`cannot ${input.type} an incident that does not exist`);
    const state: IncidentState = {
      state: 'ACTIVE',
      severity: input.severity,
      startedAt: input.at,
      resolvedAt: null,
      recoveredAt: null,
      acknowledgedBy: null,
      acknowledgedByKeyId: null,
      acknowledgedAt: null,
      // Due at once: the opening message sends step 0 and plans the rest (core/escalation/sweep.ts
      // planOpenedEscalation); should its handler fail first, the escalation sweep plans them.
      escalation: { cursor: openingCursor(input.at), dueAt: input.at },
    };
    return { ok: true, changed: true, state, effects: [{ key: 'opened', type: 'OPENED', message: input.message, occurredAt: input.at, actor: SYSTEM }] };
  }

  switch (input.type) {
    case 'open':
    case 'raise': {
      if (!isOpen(current)) return input.type === 'open' ? rejectResolved() : unchanged(current);
      if (input.at < current.startedAt || !moreSevere(input.severity, current.severity)) return unchanged(current);
      return {
        ok: true,
        changed: true,
        state: { ...current, severity: input.severity },
        effects: [
          {
            key: `severity#${input.severity}`,
            type: 'SEVERITY_CHANGED',
            message: `Severity raised from ${current.severity} to ${input.severity}`,
            occurredAt: input.at,
            actor: SYSTEM,
          },
        ],
      };
    }
    case 'acknowledge': {
      if (!isOpen(current)) return rejectResolved();
      if (current.acknowledgedAt !== null) return unchanged(current);
      const state: IncidentState = {
        ...current,
        acknowledgedAt: nowIso,
        acknowledgedBy: input.by.kind === 'user' ? input.by.userId : null,
        acknowledgedByKeyId: input.by.kind === 'apiKey' ? input.by.apiKeyId : null,
        // The steps stop at once (the sweep and the dispatch read the acknowledgement); due now so
        // the sweep plans the ack timeout, or takes the incident out of the index.
        escalation: current.escalation && { ...current.escalation, dueAt: nowIso },
      };
      // A new acknowledgement after an ack timeout re-escalated is its own timeline event.
      const round = input.round ?? (current.escalation && current.escalation.cursor.epoch > 0 ? current.escalation.cursor.epoch : undefined);
      return {
        ok: true,
        changed: true,
        state,
        effects: [
          {
            key: round ? `acknowledged#${round}` : 'acknowledged',
            type: 'ACKNOWLEDGED',
            message: `Acknowledged by ${describeActor(input.by)}`,
            occurredAt: nowIso,
            actor: input.by,
          },
        ],
      };
    }
    case 'monitor': {
      if (!isOpen(current)) return rejectResolved();
      if (current.state === 'MONITORING') return unchanged(current);
      return {
        ok: true,
        changed: true,
        state: { ...current, state: 'MONITORING' },
        effects: [{ key: 'monitoring', type: 'MONITORING', message: `Moved to monitoring by ${describeActor(input.by)}`, occurredAt: nowIso, actor: input.by }],
      };
    }
    case 'resolve': {
      if (!isOpen(current)) return unchanged(current);
      if (input.cause !== 'MANUAL' && input.at < current.startedAt) return unchanged(current);
      const recovered = isRecovery(input.cause);
      const by = input.by ?? SYSTEM;
      const message = input.cause === 'MANUAL' ? `Resolved by ${describeActor(by)}` : RESOLVE_MESSAGES[input.cause];
      return {
        ok: true,
        changed: true,
        // Resolution stops every pending step: the incident leaves the escalation-due index.
        state: {
          ...current,
          state: 'RESOLVED',
          resolvedAt: input.at,
          recoveredAt: recovered ? input.at : null,
          escalation: current.escalation && { ...current.escalation, dueAt: null },
        },
        effects: [{ key: 'resolved', type: 'RESOLVED', message, occurredAt: input.at, actor: by }],
      };
    }
    case 'advance':
      return advanceEscalation(current, input.decide);
    case 'hold': {
      const escalation = current.escalation;
      // Only the first run is held this way, once; later holds are the sweep's (suppressed steps).
      if (!isOpen(current) || !escalation || escalation.cursor.epoch !== 0 || escalation.cursor.held) return unchanged(current);
      return { ok: true, changed: true, state: { ...current, escalation: { cursor: { ...escalation.cursor, held: true }, dueAt: nowIso } }, effects: [] };
    }
  }
}

/**
 * An advance: the engine's verdict on the state read. A timed-out acknowledgement is cleared
 * first (its own timeline event, keyed by the epoch it starts), then the cursor moves past the
 * fired steps; an escalation beyond a run's first step is on the timeline. A resolved incident
 * only leaves the due index, should a stale read of it still be there.
 */
function advanceEscalation(current: IncidentState, decide: (state: IncidentState) => EscalationVerdict): TransitionResult {
  if (!isOpen(current)) {
    if (current.escalation?.dueAt == null) return unchanged(current);
    return { ok: true, changed: true, state: { ...current, escalation: { ...current.escalation, dueAt: null } }, effects: [] };
  }
  const verdict = decide(current);
  const from = current.escalation?.cursor;
  // The cursor only moves forward, and a step fires only as the cursor passes it: once.
  if (from && position(verdict.cursor) < position(from)) return unchanged(current);
  const passed = new Set<number>();
  const fire = verdict.fire.filter((due) => {
    const at = position(due);
    if (passed.has(at) || (from && at < position(from)) || at >= position(verdict.cursor)) return false;
    passed.add(at);
    return true;
  });
  let state: IncidentState = { ...current, escalation: { cursor: verdict.cursor, dueAt: verdict.dueAt } };
  const effects: TimelineEffect[] = [];
  // The acknowledgement timed out: cleared, and the run it starts is a new epoch.
  if (verdict.reescalatedAt !== null && current.acknowledgedAt !== null && (!from || verdict.cursor.epoch > from.epoch)) {
    const minutes = Math.round((Date.parse(verdict.reescalatedAt) - Date.parse(current.acknowledgedAt)) / 60_000);
    state = { ...state, acknowledgedAt: null, acknowledgedBy: null, acknowledgedByKeyId: null };
    effects.push({
      key: `reescalated#${verdict.cursor.epoch}`,
      type: 'ESCALATED',
      message: `Still unresolved ${minutes} minutes after the acknowledgement: the acknowledgement is cleared and escalation starts again from step 0`,
      occurredAt: verdict.reescalatedAt,
      actor: SYSTEM,
    });
  }
  for (const due of fire.filter((d) => d.escalated)) {
    effects.push({
      key: `escalated#${due.epoch}.${due.cycle}.${due.step}`,
      type: 'ESCALATED',
      message: `Escalated to step ${due.step} (cycle ${due.cycle}): ${due.targets}`,
      occurredAt: due.at,
      actor: SYSTEM,
    });
  }
  const moved = !from || !sameCursor(from, verdict.cursor) || current.escalation?.dueAt !== verdict.dueAt;
  if (!moved && effects.length === 0 && fire.length === 0) return unchanged(current);
  return { ok: true, changed: true, state, effects, ...(fire.length > 0 ? { steps: fire } : {}) };
}

/** (epoch, cycle, step) as one ordered number: a run has far fewer than 10^4 cycles of 10^4 steps. */
const position = (at: { epoch: number; cycle: number; step: number }): number => (at.epoch * 10_000 + at.cycle) * 10_000 + at.step;
