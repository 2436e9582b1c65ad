import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transitionIncident, type ActorRef, type FiredStep, type IncidentState } from '../incidents/transition.js';
import { escalationDecider } from './advance.js';
import type { Plan } from './engine.js';
import { cycleLengthMinutes } from './timeline.js';

/**
 * The engine as the sweep runs it (core/escalation/advance.ts): at each sweep instant, an incident
 * that is due (its dueAt at or before the instant, as the sparse index answers) is advanced
 * through the incident's state machine. Whatever the instants (monotonic, any gaps, repeated,
 * exactly on a step's due time), every step that fell due by the last sweep fires exactly once,
 * at the first sweep at or after its due time, and no other step fires.
 */
const MINUTE = 60_000;
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const BY: ActorRef = { kind: 'user', userId: 1, email: 'a@example.com' };

const plan: fc.Arbitrary<Plan> = fc
  .record({
    delays: fc.uniqueArray(fc.integer({ min: 0, max: 90 }), { minLength: 1, maxLength: 4 }),
    repeatCount: fc.integer({ min: 0, max: 3 }),
    ackTimeoutMinutes: fc.option(fc.integer({ min: 1, max: 90 }), { nil: null }),
  })
  .map(({ delays, repeatCount, ackTimeoutMinutes }) => ({
    steps: [...delays]
      .sort((a, b) => a - b)
      .map((delayMinutes, position) => ({ position, delayMinutes, targets: [{ targetType: 'ALERT_CHANNEL' as const, alertChannelId: position + 1 }] })),
    repeatCount,
    ackTimeoutMinutes,
  }));

type Due = { key: string; at: number };

/** Every (epoch, cycle, step) of a run anchored at `anchor` (ms), with its due instant. */
function runOf(routing: Plan, epoch: number, anchor: number): Due[] {
  const length = cycleLengthMinutes(routing.steps);
  return Array.from({ length: routing.repeatCount + 1 }, (_, cycle) =>
    routing.steps.map((step, position) => ({ key: `${epoch}.${cycle}.${position}`, at: anchor + (cycle * length + step.delayMinutes) * MINUTE })),
  ).flat();
}

/**
 * A scenario: a plan, an optional acknowledgement, and sweep instants drawn to land often on the
 * steps' due times (of both runs) and on each other.
 */
const scenario = plan.chain((routing) => {
  const ackAt = fc.option(
    fc.integer({ min: 0, max: 300 }).map((m) => m * MINUTE),
    { nil: null },
  );
  return ackAt.chain((ack) => {
    const onTime = [...runOf(routing, 0, T0), ...(ack !== null && routing.ackTimeoutMinutes !== null ? runOf(routing, 1, T0 + ack + routing.ackTimeoutMinutes * MINUTE) : [])].map(
      (d) => d.at - T0,
    );
    const instant = fc.oneof(
      fc.constantFrom(...onTime),
      fc.integer({ min: 0, max: 700 }).map((m) => m * MINUTE),
      fc.integer({ min: 0, max: 700 * MINUTE }),
    );
    return fc.record({
      routing: fc.constant(routing),
      ackAt: fc.constant(ack),
      sweeps: fc.array(instant, { maxLength: 40 }).map((list) => list.sort((a, b) => a - b).map((offset) => T0 + offset)),
    });
  });
});

/** Runs the sweeps in order; the acknowledgement lands before any sweep at or after its instant. */
function simulate(routing: Plan, ackAt: number | null, sweeps: number[]) {
  const opened = transitionIncident(null, { type: 'open', severity: 'P2', at: new Date(T0).toISOString(), message: 'down' }, new Date(T0));
  if (!opened.ok) throw new Error('open failed');
  let state: IncidentState = opened.state;
  let acked = ackAt === null;
  const fired: { step: FiredStep; sweptAt: number }[] = [];
  const timeline: string[] = [];
  for (const now of sweeps) {
    if (!acked && ackAt !== null && T0 + ackAt <= now) {
      const ack = transitionIncident(state, { type: 'acknowledge', by: BY }, new Date(T0 + ackAt));
      if (!ack.ok) throw new Error('ack refused');
      state = ack.state;
      acked = true;
    }
    const dueAt = state.escalation?.dueAt;
    if (!dueAt || Date.parse(dueAt) > now) continue;
    const result = transitionIncident(state, { type: 'advance', decide: escalationDecider({ plan: routing, muted: false, suppressed: false }, new Date(now)) }, new Date(now));
    if (!result.ok) throw new Error('advance refused');
    for (const step of result.steps ?? []) fired.push({ step, sweptAt: now });
    timeline.push(...result.effects.map((e) => e.key));
    state = result.state;
  }
  return { fired, timeline, state };
}

/** What the design says fires (core/escalation/engine.ts): step 0 at once belongs to the opening message. */
function expected(routing: Plan, ackAt: number | null, sweeps: number[]): Map<string, number> {
  const last = sweeps.at(-1) ?? -Infinity;
  const firstSweepFrom = (at: number) => sweeps.find((t) => t >= at);
  const owed = new Map<string, number>();
  for (const due of runOf(routing, 0, T0)) {
    if (due.key === '0.0.0' && routing.steps[0]?.delayMinutes === 0) continue;
    const sweptAt = firstSweepFrom(due.at);
    // The acknowledgement stops what no sweep fired before it.
    if (sweptAt !== undefined && (ackAt === null || sweptAt < T0 + ackAt)) owed.set(due.key, sweptAt);
  }
  if (ackAt !== null && routing.ackTimeoutMinutes !== null) {
    const timeout = T0 + ackAt + routing.ackTimeoutMinutes * MINUTE;
    if (timeout <= last) {
      for (const due of runOf(routing, 1, timeout)) {
        const sweptAt = firstSweepFrom(due.at);
        if (sweptAt !== undefined) owed.set(due.key, sweptAt);
      }
    }
  }
  return owed;
}

describe('escalation engine (properties, as the sweep runs it)', () => {
  it('for any sweep instants, every due step fires exactly once, at the first sweep from its due time, and nothing else fires', () => {
    fc.assert(
      fc.property(scenario, ({ routing, ackAt, sweeps }) => {
        const { fired } = simulate(routing, ackAt, sweeps);
        const keys = fired.map(({ step }) => `${step.epoch}.${step.cycle}.${step.step}`);
        expect(new Set(keys).size).toBe(keys.length);
        const owed = expected(routing, ackAt, sweeps);
        expect(new Map(fired.map(({ step, sweptAt }) => [`${step.epoch}.${step.cycle}.${step.step}`, sweptAt]))).toEqual(owed);
        const timeout = ackAt !== null && routing.ackTimeoutMinutes !== null ? T0 + ackAt + routing.ackTimeoutMinutes * MINUTE : null;
        const dueAt = new Map([...runOf(routing, 0, T0), ...(timeout !== null ? runOf(routing, 1, timeout) : [])].map((d) => [d.key, d.at]));
        for (const { step } of fired) expect(Date.parse(step.at)).toBe(dueAt.get(`${step.epoch}.${step.cycle}.${step.step}`));
      }),
      { numRuns: 300 },
    );
  });

  it('re-escalates once per ack timeout, on the timeline once, and leaves the due index when every repeat has fired', () => {
    fc.assert(
      fc.property(scenario, ({ routing, ackAt, sweeps }) => {
        const { timeline, state, fired } = simulate(routing, ackAt, sweeps);
        expect(new Set(timeline).size).toBe(timeline.length);
        const timeout = ackAt !== null && routing.ackTimeoutMinutes !== null ? T0 + ackAt + routing.ackTimeoutMinutes * MINUTE : null;
        const reescalated = timeout !== null && sweeps.some((t) => t >= timeout);
        expect(timeline.filter((key) => key.startsWith('reescalated#'))).toEqual(reescalated ? ['reescalated#1'] : []);
        expect(state.acknowledgedAt === null).toBe(ackAt === null || reescalated || !sweeps.some((t) => t >= T0 + ackAt));
        // Every firing after a run's first (and every firing of a run an ack timeout started) is an escalation on the timeline.
        const escalations = fired.filter(({ step }) => step.escalated).map(({ step }) => `escalated#${step.epoch}.${step.cycle}.${step.step}`);
        expect(timeline.filter((key) => key.startsWith('escalated#'))).toEqual(escalations);
        if (fired.some(({ step }) => step.epoch === 1)) expect(fired.filter(({ step }) => step.epoch === 1).every(({ step }) => step.escalated)).toBe(true);
        // Unacknowledged with every repeat behind the last sweep: nothing is pending, the incident is out of the index.
        const lastDue = Math.max(...runOf(routing, reescalated ? 1 : 0, reescalated ? timeout! : T0).map((d) => d.at));
        if (state.acknowledgedAt === null && sweeps.some((t) => t >= lastDue)) expect(state.escalation?.dueAt).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
