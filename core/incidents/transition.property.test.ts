import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moreSevere, transitionIncident, type ActorRef, type IncidentInput, type IncidentState, type Severity } from './transition.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (offsetSeconds: number): string => new Date(T0 + offsetSeconds * 1000).toISOString();

const severity = fc.constantFrom<Severity>('P1', 'P2', 'P3', 'P4');
const at = fc.integer({ min: -600, max: 3600 }).map(iso);
const actor = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), userId: fc.integer({ min: 1, max: 50 }), email: fc.constant('a@example.com') }),
  fc.record({ kind: fc.constant('apiKey' as const), apiKeyId: fc.integer({ min: 1, max: 50 }), name: fc.constant('ci') }),
) as fc.Arbitrary<ActorRef>;
const cause = fc.constantFrom('RECOVERED', 'MANUAL', 'CHECK_DELETED', 'DEPLOYMENT_PAUSED', 'DEPENDENCY_RECOVERED', 'DEPENDENCY_DELETED' as const);

const input: fc.Arbitrary<IncidentInput> = fc.oneof(
  fc.record({ type: fc.constant('open' as const), severity, at, message: fc.constant('down') }),
  fc.record({ type: fc.constant('raise' as const), severity, at }),
  fc.record({ type: fc.constant('acknowledge' as const), by: actor }),
  fc.record({ type: fc.constant('monitor' as const), by: actor }),
  fc.record({ type: fc.constant('resolve' as const), cause, at }),
);

/** Opens an incident, then applies each input; returns every intermediate state and all effects. */
function run(openSeverity: Severity, inputs: IncidentInput[], nowOffsets: number[]) {
  const opened = transitionIncident(null, { type: 'open', severity: openSeverity, at: iso(0), message: 'down' }, new Date(T0));
  if (!opened.ok) throw new Error('open failed');
  const states: IncidentState[] = [opened.state];
  const effects = [...opened.effects];
  const outcomes: { before: IncidentState; input: IncidentInput; result: ReturnType<typeof transitionIncident> }[] = [];
  let state = opened.state;
  inputs.forEach((next, i) => {
    const result = transitionIncident(state, next, new Date(T0 + (nowOffsets[i] ?? 0) * 1000));
    outcomes.push({ before: state, input: next, result });
    if (result.ok) {
      state = result.state;
      effects.push(...result.effects);
    }
    states.push(state);
  });
  return { states, effects, outcomes };
}

const scenario = fc.record({
  openSeverity: severity,
  inputs: fc.array(input, { maxLength: 25 }),
  nowOffsets: fc.array(fc.integer({ min: 0, max: 7200 }), { maxLength: 25 }),
});

describe('transitionIncident (properties)', () => {
  it('never lowers severity while an episode lasts', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { states } = run(openSeverity, inputs, nowOffsets);
        for (let i = 1; i < states.length; i++) {
          expect(moreSevere(states[i - 1]!.severity, states[i]!.severity)).toBe(false);
        }
      }),
    );
  });

  it('keeps RESOLVED terminal: system inputs change nothing, acknowledge and monitor are refused with INCIDENT_RESOLVED', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { outcomes } = run(openSeverity, inputs, nowOffsets);
        for (const { before, input: applied, result } of outcomes.filter((o) => o.before.state === 'RESOLVED')) {
          if (applied.type === 'acknowledge' || applied.type === 'monitor' || applied.type === 'open') {
            expect(result).toMatchObject({ ok: false, code: 'INCIDENT_RESOLVED' });
          } else {
            expect(result).toEqual({ ok: true, changed: false, state: before, effects: [] });
          }
        }
      }),
    );
  });

  it('writes each logical timeline event at most once (OPENED, ACKNOWLEDGED, MONITORING, RESOLVED, each severity)', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { effects } = run(openSeverity, inputs, nowOffsets);
        const keys = effects.map((e) => e.key);
        expect(new Set(keys).size).toBe(keys.length);
        expect(effects.filter((e) => e.type === 'OPENED')).toHaveLength(1);
      }),
    );
  });

  it('makes acknowledge idempotent: the second one returns the same state and no event', () => {
    fc.assert(
      fc.property(scenario, actor, actor, fc.integer({ min: 0, max: 9999 }), ({ openSeverity, inputs, nowOffsets }, first, second, later) => {
        const { states } = run(openSeverity, inputs, nowOffsets);
        const state = states.at(-1)!;
        const once = transitionIncident(state, { type: 'acknowledge', by: first }, new Date(T0 + 1000));
        if (!once.ok) {
          expect(state.state).toBe('RESOLVED');
          return;
        }
        const twice = transitionIncident(once.state, { type: 'acknowledge', by: second }, new Date(T0 + later * 1000));
        expect(twice).toEqual({ ok: true, changed: false, state: once.state, effects: [] });
        expect(once.state.acknowledgedAt).not.toBeNull();
      }),
    );
  });

  it('sets resolvedAt exactly when RESOLVED, and recoveredAt only for a recovery', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { states, outcomes } = run(openSeverity, inputs, nowOffsets);
        for (const state of states) {
          expect(state.resolvedAt !== null).toBe(state.state === 'RESOLVED');
          if (state.recoveredAt !== null) expect(state.state).toBe('RESOLVED');
        }
        for (const { input: applied, result } of outcomes) {
          if (applied.type === 'resolve' && result.ok && result.changed) {
            const recovery = applied.cause === 'RECOVERED' || applied.cause === 'DEPENDENCY_RECOVERED';
            expect(result.state.recoveredAt).toBe(recovery ? applied.at : null);
          }
        }
      }),
    );
  });

  it('ignores system inputs older than the start (stale redeliveries)', () => {
    fc.assert(
      fc.property(severity, severity, fc.integer({ min: 1, max: 600 }), (opened, raised, earlier) => {
        const start = transitionIncident(null, { type: 'open', severity: opened, at: iso(0), message: 'x' }, new Date(T0));
        if (!start.ok) throw new Error('open failed');
        for (const stale of [
          { type: 'raise' as const, severity: raised, at: iso(-earlier) },
          { type: 'resolve' as const, cause: 'RECOVERED' as const, at: iso(-earlier) },
        ]) {
          expect(transitionIncident(start.state, stale, new Date(T0))).toMatchObject({ ok: true, changed: false });
        }
      }),
    );
  });

  it('records who acknowledged: a user id, or null with the key for an API key', () => {
    fc.assert(
      fc.property(actor, (by) => {
        const start = transitionIncident(null, { type: 'open', severity: 'P3', at: iso(0), message: 'x' }, new Date(T0));
        if (!start.ok) throw new Error('open failed');
        const acked = transitionIncident(start.state, { type: 'acknowledge', by }, new Date(T0 + 5000));
        if (!acked.ok) throw new Error('ack failed');
        expect(acked.state.acknowledgedAt).toBe(iso(5));
        expect(acked.state.acknowledgedBy).toBe(by.kind === 'user' ? by.userId : null);
        expect(acked.state.acknowledgedByKeyId).toBe(by.kind === 'apiKey' ? by.apiKeyId : null);
        expect(acked.effects[0]?.message).toMatch(by.kind === 'user' ? by.email : `#${(by as { apiKeyId: number }).apiKeyId}`);
      }),
    );
  });

  it('moves ACTIVE to MONITORING once and keeps it open', () => {
    const start = transitionIncident(null, { type: 'open', severity: 'P2', at: iso(0), message: 'x' }, new Date(T0));
    if (!start.ok) throw new Error('open failed');
    const by: ActorRef = { kind: 'user', userId: 1, email: 'a@example.com' };
    const monitored = transitionIncident(start.state, { type: 'monitor', by }, new Date(T0 + 1000));
    expect(monitored).toMatchObject({ ok: true, changed: true, state: { state: 'MONITORING', resolvedAt: null } });
    if (!monitored.ok) return;
    expect(transitionIncident(monitored.state, { type: 'monitor', by }, new Date(T0 + 2000))).toMatchObject({ ok: true, changed: false });
    const raised = transitionIncident(monitored.state, { type: 'raise', severity: 'P1', at: iso(3) }, new Date(T0 + 3000));
    expect(raised).toMatchObject({ ok: true, changed: true, state: { state: 'MONITORING', severity: 'P1' } });
  });
});
