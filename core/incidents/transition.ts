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
};

/** Who did it: a user, an API key (which has no user), or the system. */
export type ActorRef =
  | { kind: 'user'; userId: number; email: string }
  | { kind: 'apiKey'; apiKeyId: number; name: string }
  | { kind: 'system' };

export type ResolveCause =
  | 'RECOVERED'
  | 'MANUAL'
  | 'CHECK_DELETED'
  | 'DEPLOYMENT_PAUSED'
  | 'DEPENDENCY_RECOVERED'
  | 'DEPENDENCY_DELETED';

export type IncidentInput =
  | { type: 'open'; severity: Severity; at: string; message: string }
  /** `title`: what the incident is called from now on (a late check that went down is "down"); applied by the repository. */
  | { type: 'raise'; severity: Severity; at: string; title?: string }
  | { type: 'acknowledge'; by: ActorRef; round?: number }
  | { type: 'monitor'; by: ActorRef }
  | { type: 'resolve'; cause: ResolveCause; at: string; by?: ActorRef };

/** An event to append to the timeline; `key` names the logical event so a replay writes nothing. */
export type TimelineEffect = { key: string; type: IncidentEventType; message: string; occurredAt: string; actor: ActorRef };

export type TransitionResult =
  | { ok: true; changed: boolean; state: IncidentState; effects: TimelineEffect[] }
  | { ok: false; code: 'INCIDENT_RESOLVED'; message: string };

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
      };
      return {
        ok: true,
        changed: true,
        state,
        effects: [{ key: input.round ? `acknowledged#${input.round}` : 'acknowledged', type: 'ACKNOWLEDGED', message: `Acknowledged by ${describeActor(input.by)}`, occurredAt: nowIso, actor: input.by }],
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
      const recovered = input.cause === 'RECOVERED' || input.cause === 'DEPENDENCY_RECOVERED';
      const by = input.by ?? SYSTEM;
      const message = input.cause === 'MANUAL' ? `Resolved by ${describeActor(by)}` : RESOLVE_MESSAGES[input.cause];
      return {
        ok: true,
        changed: true,
        state: { ...current, state: 'RESOLVED', resolvedAt: input.at, recoveredAt: recovered ? input.at : null },
        effects: [{ key: 'resolved', type: 'RESOLVED', message, occurredAt: input.at, actor: by }],
      };
    }
  }
}
