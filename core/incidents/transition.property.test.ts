import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IncidentItem } from '../store/entities/incident.js';
import {
  moreSevere,
  transitionIncident,
  type ActorRef,
  type EscalationCursor,
  type EscalationVerdict,
  type FiredStep,
  type IncidentInput,
  type IncidentState,
  type Severity,
} from './transition.js';
import { incidentWrite, toState } from './write.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (offsetSeconds: number): string => new Date(T0 + offsetSeconds * 1000).toISOString();

const severity = fc.constantFrom<Severity>('P1', 'P2', 'P3', 'P4');
const at = fc.integer({ min: -600, max: 3600 }).map(iso);
const actor = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), userId: fc.integer({ min: 1, max: 50 }), email: fc.constant('a@example.com') }),
  fc.record({ kind: fc.constant('apiKey' as const), apiKeyId: fc.integer({ min: 1, max: 50 }), name: fc.constant('ci') }),
) as fc.Arbitrary<ActorRef>;
const cause = fc.constantFrom('RECOVERED', 'MANUAL', 'CHECK_DELETED', 'DEPLOYMENT_PAUSED', 'DEPENDENCY_RECOVERED', 'DEPENDENCY_DELETED' as const);

/**
 * Whatever an escalation engine might decide, even nonsense (a cursor going back, steps fired
 * behind it or twice): the state machine alone must keep each step to one firing.
 * core/escalation/engine.property.test.ts runs the real engine.
 */
const slot = { epoch: fc.integer({ min: 0, max: 3 }), cycle: fc.integer({ min: 0, max: 2 }), step: fc.integer({ min: 0, max: 3 }) };
const cursor: fc.Arbitrary<EscalationCursor> = fc.record({ ...slot, anchor: at, held: fc.boolean(), afterAck: fc.boolean() });
const firedStep: fc.Arbitrary<FiredStep> = fc.record({ ...slot, at, escalated: fc.boolean(), targets: fc.constant('Team A') });
const verdict: fc.Arbitrary<EscalationVerdict> = fc.record({
  fire: fc.array(firedStep, { maxLength: 4 }),
  cursor,
  dueAt: fc.option(at, { nil: null }),
  reescalatedAt: fc.option(at, { nil: null }),
});

const input: fc.Arbitrary<IncidentInput> = fc.oneof(
  fc.record({ type: fc.constant('open' as const), severity, at, message: fc.constant('down') }),
  fc.record({ type: fc.constant('raise' as const), severity, at }),
  fc.record({ type: fc.constant('acknowledge' as const), by: actor }),
  fc.record({ type: fc.constant('monitor' as const), by: actor }),
  fc.record({ type: fc.constant('resolve' as const), cause, at }),
  fc.record({ type: fc.constant('advance' as const), decide: fc.func(verdict) }),
  fc.record({ type: fc.constant('hold' as const) }),
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

const position = (at: { epoch: number; cycle: number; step: number }): number => (at.epoch * 10_000 + at.cycle) * 10_000 + at.step;
const nowOf = (nowOffsets: number[], i: number): string => iso(nowOffsets[i] ?? 0);

describe('transitionIncident: escalation events (properties)', () => {
  it('fires each escalation step at most once, only as the cursor passes it, and never moves the cursor back', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { states, outcomes } = run(openSeverity, inputs, nowOffsets);
        const fired = outcomes.flatMap(({ before, result }) => {
          if (!result.ok || !result.steps) return [];
          expect(result.changed).toBe(true);
          for (const due of result.steps) {
            expect(position(due)).toBeGreaterThanOrEqual(position(before.escalation!.cursor));
            expect(position(due)).toBeLessThan(position(result.state.escalation!.cursor));
          }
          return result.steps.map(position);
        });
        expect(new Set(fired).size).toBe(fired.length);
        for (let i = 1; i < states.length; i++) {
          expect(position(states[i]!.escalation!.cursor)).toBeGreaterThanOrEqual(position(states[i - 1]!.escalation!.cursor));
        }
      }),
    );
  });

  it('clears an acknowledgement only by its timeout: an advance into a new epoch, with its own reescalated#<epoch> event', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { outcomes } = run(openSeverity, inputs, nowOffsets);
        for (const { before, input: applied, result } of outcomes) {
          if (!result.ok || before.acknowledgedAt === null || result.state.acknowledgedAt !== null) continue;
          expect(applied.type).toBe('advance');
          const epoch = result.state.escalation!.cursor.epoch;
          expect(epoch).toBeGreaterThan(before.escalation!.cursor.epoch);
          expect(result.state).toMatchObject({ acknowledgedBy: null, acknowledgedByKeyId: null });
          expect(result.effects.filter((e) => e.key === `reescalated#${epoch}`)).toHaveLength(1);
        }
      }),
    );
  });

  it('advance and hold change nothing the incident shows but an acknowledgement that timed out', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { outcomes } = run(openSeverity, inputs, nowOffsets);
        for (const { before, input: applied, result } of outcomes) {
          if ((applied.type !== 'advance' && applied.type !== 'hold') || !result.ok) continue;
          const { escalation: _after, acknowledgedAt: _a, acknowledgedBy: _b, acknowledgedByKeyId: _c, ...shown } = result.state;
          const { escalation: _before, acknowledgedAt: _d, acknowledgedBy: _e, acknowledgedByKeyId: _f, ...was } = before;
          expect(shown).toEqual(was);
          expect(result.effects.every((e) => e.type === 'ESCALATED')).toBe(true);
          if (applied.type === 'hold') expect(result.state.acknowledgedAt).toBe(before.acknowledgedAt);
        }
      }),
    );
  });

  it('keeps an open incident due while escalation is pending: acknowledge makes it due now, resolve takes it out, hold holds the first run once', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const { outcomes } = run(openSeverity, inputs, nowOffsets);
        outcomes.forEach(({ before, input: applied, result }, i) => {
          if (!result.ok || !result.changed) {
            if (applied.type === 'hold') expect(before.state === 'RESOLVED' || before.escalation!.cursor.epoch !== 0 || before.escalation!.cursor.held).toBe(true);
            return;
          }
          if (applied.type === 'acknowledge') expect(result.state.escalation!.dueAt).toBe(nowOf(nowOffsets, i));
          if (applied.type === 'resolve') expect(result.state.escalation!.dueAt).toBeNull();
          if (applied.type === 'hold') {
            expect(before).toMatchObject({ escalation: { cursor: { epoch: 0, held: false } } });
            expect(result.state.escalation).toEqual({ cursor: { ...before.escalation!.cursor, held: true }, dueAt: nowOf(nowOffsets, i) });
            expect(transitionIncident(result.state, applied, new Date(T0))).toEqual({ ok: true, changed: false, state: result.state, effects: [] });
          }
          if (result.state.state === 'RESOLVED') expect(result.state.escalation!.dueAt).toBeNull();
        });
      }),
    );
  });

  it('names the acknowledgement after an ack timeout by its epoch, so each round is its own timeline event', () => {
    const opened = transitionIncident(null, { type: 'open', severity: 'P2', at: iso(0), message: 'x' }, new Date(T0));
    if (!opened.ok) throw new Error('open failed');
    const by: ActorRef = { kind: 'user', userId: 1, email: 'a@example.com' };
    const acked = transitionIncident(opened.state, { type: 'acknowledge', by }, new Date(T0 + 60_000));
    expect(acked).toMatchObject({ ok: true, effects: [{ key: 'acknowledged' }] });
    if (!acked.ok) return;
    const timeout: EscalationVerdict = {
      fire: [],
      cursor: { epoch: 1, cycle: 0, step: 0, anchor: iso(1860), held: false, afterAck: true },
      dueAt: iso(1860),
      reescalatedAt: iso(1860),
    };
    const reescalated = transitionIncident(acked.state, { type: 'advance', decide: () => timeout }, new Date(T0 + 1_860_000));
    expect(reescalated).toMatchObject({
      ok: true,
      changed: true,
      state: { acknowledgedAt: null, escalation: { cursor: { epoch: 1 } } },
      effects: [{ key: 'reescalated#1', message: 'Still unresolved 30 minutes after the acknowledgement: the acknowledgement is cleared and escalation starts again from step 0' }],
    });
    if (!reescalated.ok) return;
    expect(transitionIncident(reescalated.state, { type: 'acknowledge', by }, new Date(T0 + 1_900_000))).toMatchObject({ ok: true, effects: [{ key: 'acknowledged#1' }] });
  });
});

describe('incidentWrite (properties)', () => {
  /** The item an insert stores for an opened incident (core/incidents/repository.ts insertIncident). */
  function insertedItem(state: IncidentState): IncidentItem {
    const { cursor, dueAt } = state.escalation!;
    return {
      incidentId: 7,
      publicId: 'x',
      workspaceId: 1,
      title: 'down',
      reason: 'SERVICE_DOWN',
      declared: false,
      state: state.state,
      severity: state.severity,
      startedAt: state.startedAt,
      revision: 1,
      escalationEpoch: cursor.epoch,
      escalationCycle: cursor.cycle,
      escalationStep: cursor.step,
      escalationAnchor: cursor.anchor,
      dueShard: 'escalation#0',
      dueAt: String(Date.parse(dueAt!)).padStart(15, '0'),
      createdAt: state.startedAt,
      updatedAt: state.startedAt,
    };
  }

  it('stores every transition so that the item reads back as the state it produced, one revision later', () => {
    fc.assert(
      fc.property(scenario, ({ openSeverity, inputs, nowOffsets }) => {
        const opened = transitionIncident(null, { type: 'open', severity: openSeverity, at: iso(0), message: 'down' }, new Date(T0));
        if (!opened.ok) throw new Error('open failed');
        let item = insertedItem(opened.state);
        expect(toState(item)).toEqual(opened.state);
        inputs.forEach((next, i) => {
          const now = new Date(nowOf(nowOffsets, i));
          const result = transitionIncident(toState(item), next, now);
          if (!result.ok || !result.changed) return;
          const write = incidentWrite(item, result.state, undefined, now);
          expect(write.item.revision).toBe(item.revision + 1);
          // Only a change the API shows moves updatedAt.
          const shown = JSON.stringify({ ...toState(item), escalation: null }) !== JSON.stringify({ ...result.state, escalation: null });
          expect(write.set.updatedAt).toBe(shown ? now.toISOString() : undefined);
          item = write.item;
          expect(toState(item)).toEqual(result.state);
          expect(item.dueShard !== undefined).toBe(result.state.escalation!.dueAt !== null);
        });
      }),
    );
  });
});
