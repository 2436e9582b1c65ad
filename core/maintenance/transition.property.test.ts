import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { occurrenceAt, planWindow } from './recurrence.js';
import { isTerminalState, timingOf, transitionWindow, type Timing, type WindowEffect, type WindowEvent, type WindowState, type WindowTransition } from './transition.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString();

const timing: fc.Arbitrary<Timing> = fc
  .record({
    start: fc.integer({ min: -180, max: 600 }),
    length: fc.integer({ min: 1, max: 240 }),
    recurringCron: fc.constantFrom(null, null, '*/20 * * * *', '0 * * * *', '30 2 * * *', '@daily', '0 9 * * 1-5'),
    timezone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York'),
  })
  .map(({ start, length, recurringCron, timezone }) => ({
    startAt: iso(T0 + start * MINUTE),
    endAt: iso(T0 + (start + length) * MINUTE),
    timezone,
    recurringCron,
  }));
const projectIds = fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }).map((ids) => ids.sort((a, b) => a - b));

const event: fc.Arbitrary<WindowEvent | 'settle' | 'staleSettle'> = fc.oneof(
  fc.constant({ type: 'tick' as const }),
  fc.constant('settle' as const),
  fc.constant('staleSettle' as const),
  fc.record({ type: fc.constant('finish' as const), to: fc.constantFrom('COMPLETED' as const, 'CANCELLED' as const) }),
  fc.record({
    type: fc.constant('reschedule' as const),
    changes: fc.record({ timing, projectIds, suppressIncidents: fc.boolean(), suppressAlerts: fc.boolean() }),
  }),
);

const scenario = fc.record({
  timing,
  projectIds,
  steps: fc.array(fc.record({ event, advance: fc.integer({ min: 0, max: 120 }) }), { maxLength: 20 }),
});

/** A window as create writes it: SCHEDULED, revision 0, due at once. */
function created(t: Timing, ids: number[]): WindowState {
  return {
    state: 'SCHEDULED',
    timing: t,
    projectIds: ids,
    suppressIncidents: true,
    suppressAlerts: true,
    occurrenceStartAt: null,
    occurrenceEndAt: null,
    completedAt: null,
    cancelledAt: null,
    revision: 0,
    dueAt: iso(T0),
  };
}

type Step = { before: WindowState; event: WindowEvent; now: Date; result: WindowTransition; confirming?: readonly WindowEffect[] };

/**
 * Applies the steps. `settle` feeds back the last confirmation the machine emitted (as the
 * interpreter does once the holds are in place), `staleSettle` one it emitted earlier (a run that
 * lost a race to another writer).
 */
function run(sc: { timing: Timing; projectIds: number[]; steps: { event: WindowEvent | 'settle' | 'staleSettle'; advance: number }[] }) {
  let nowMs = T0;
  let state = created(sc.timing, sc.projectIds);
  /** Each confirmation, with the effects it confirms. */
  const confirms: { event: WindowEvent; effects: readonly WindowEffect[] }[] = [];
  const trace: Step[] = [];
  for (const step of sc.steps) {
    nowMs += step.advance * MINUTE;
    const now = new Date(nowMs);
    const confirming = step.event === 'settle' ? confirms.at(-1) : step.event === 'staleSettle' ? confirms.at(-2) : undefined;
    const e: WindowEvent = typeof step.event === 'string' ? (confirming?.event ?? { type: 'tick' }) : step.event;
    const result = transitionWindow(state, e, now);
    trace.push({ before: state, event: e, now, result, ...(confirming ? { confirming: confirming.effects } : {}) });
    if (!result.ok) continue;
    state = result.state;
    for (const effect of result.effects) if (effect.type === 'confirm') confirms.push({ event: effect.event, effects: result.effects });
  }
  return { trace, final: state, nowMs };
}

/** The window's own recurrence covers instant `t` (epoch ms). */
function covered(t: Timing, at: number): boolean {
  const occurrence = occurrenceAt(timingOf(t), new Date(at));
  return occurrence !== null && occurrence.startAt.getTime() <= at && at < occurrence.endAt.getTime();
}

const holdsOf = (effects: readonly WindowEffect[]) => effects.flatMap((e) => (e.type === 'putHolds' ? [e] : []));

describe('transitionWindow (properties)', () => {
  it('keeps COMPLETED and CANCELLED terminal, with the time they stopped', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { before, result } of run(sc).trace) {
          if (!isTerminalState(before.state)) continue;
          if (!result.ok) continue;
          expect(result.state).toMatchObject({ state: before.state, completedAt: before.completedAt, cancelledAt: before.cancelledAt });
          expect(holdsOf(result.effects)).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('never holds a project outside an occurrence of the window', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { result, now } of run(sc).trace) {
          if (!result.ok) continue;
          for (const { hold, projectIds: held } of holdsOf(result.effects)) {
            const { timing: t } = result.state;
            const [start, end] = [Date.parse(hold.startsAt), Date.parse(hold.endsAt)];
            expect(end - start).toBe(Date.parse(t.endAt) - Date.parse(t.startAt));
            expect(start).toBeGreaterThanOrEqual(Date.parse(t.startAt));
            expect(end).toBeGreaterThan(now.getTime());
            for (const at of [start, (start + end) / 2, end - 1]) expect(covered(t, at)).toBe(true);
            for (const id of held) expect(result.state.projectIds).toContain(id);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('holds nothing once terminal: every hold is deleted by the transition into it, or before its confirmation', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { before, result, confirming } of run(sc).trace) {
          if (!result.ok) continue;
          const confirms = result.effects.flatMap((e) => (e.type === 'confirm' ? [e.event] : []));
          for (const c of confirms) expect(c).toMatchObject({ type: 'holdsSettled', revision: result.state.revision });
          if (isTerminalState(result.state.state) && !isTerminalState(before.state)) {
            const deleted = [...result.effects, ...(confirming ?? [])].flatMap((e) => (e.type === 'deleteHolds' ? e.projectIds : []));
            for (const id of before.projectIds) expect(deleted).toContain(id);
            expect(holdsOf(result.effects)).toEqual([]);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('finishing twice equals finishing once', () => {
    fc.assert(
      fc.property(scenario, fc.constantFrom('COMPLETED' as const, 'CANCELLED' as const), fc.constantFrom('COMPLETED' as const, 'CANCELLED' as const), (sc, first, second) => {
        const { final, nowMs } = run(sc);
        const once = transitionWindow(final, { type: 'finish', to: first }, new Date(nowMs));
        if (!once.ok) throw new Error('finish is never refused');
        const twice = transitionWindow(once.state, { type: 'finish', to: second }, new Date(nowMs + MINUTE));
        // The confirmation names when it was planned; everything else is the same.
        const when = (effects: readonly WindowEffect[]) =>
          effects.map((x) => (x.type === 'confirm' && x.event.type === 'holdsSettled' ? { ...x, event: { ...x.event, plannedAt: '' } } : x));
        expect(twice.ok && { ...twice, effects: when(twice.effects) }).toEqual({ ok: true, changed: false, state: once.state, effects: when(once.effects) });
      }),
      { numRuns: 60 },
    );
  });

  it('leaves a valid state after any sequence of events; only reschedule is refused, and only when not SCHEDULED', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { before, event: e, now, result } of run(sc).trace) {
          if (!result.ok) {
            expect([e.type, before.state === 'SCHEDULED']).toEqual(['reschedule', false]);
            continue;
          }
          const s = result.state;
          expect(s.revision).toBe(before.revision + (result.changed ? 1 : 0));
          if (s.state === 'COMPLETED') expect([s.completedAt !== null, s.cancelledAt]).toEqual([true, null]);
          if (s.state === 'CANCELLED') expect([s.cancelledAt !== null, s.completedAt]).toEqual([true, null]);
          if (!isTerminalState(s.state)) {
            expect([s.completedAt, s.cancelledAt]).toEqual([null, null]);
            expect(s.dueAt).not.toBeNull();
          }
          // A change whose holds are in flight keeps the window due by now, so a crash is finished later.
          if (result.changed && result.effects.some((x) => x.type !== 'confirm')) expect(s.dueAt === null || Date.parse(s.dueAt) <= now.getTime()).toBe(true);
          // A confirmed live window sits where its recurrence says, due at its next change.
          if (e.type === 'holdsSettled' && e.revision === before.revision && !isTerminalState(s.state)) {
            const plannedAt = Date.parse(e.plannedAt);
            const plan = planWindow(timingOf(s.timing), new Date(plannedAt));
            expect(plan.state).toBe(s.state);
            expect([s.occurrenceStartAt, s.occurrenceEndAt]).toEqual([plan.occurrence?.startAt.toISOString(), plan.occurrence?.endAt.toISOString()]);
            expect(Date.parse(s.dueAt ?? '')).toBeGreaterThan(plannedAt);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
