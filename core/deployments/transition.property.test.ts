import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { statusRank, transitionDeployment, type DeploymentEffect, type DeploymentEvent, type DeploymentState } from './transition.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (offsetSeconds: number): string => new Date(T0 + offsetSeconds * 1000).toISOString();
const ids = fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 6 });

const opening = fc.record({
  start: fc.integer({ min: -3600, max: 3600 }),
  length: fc.option(fc.integer({ min: 1, max: 7200 }), { nil: null }),
  endIsPlan: fc.boolean(),
  autoPause: fc.boolean(),
});

const event: fc.Arbitrary<DeploymentEvent> = fc.oneof(
  fc.constant({ type: 'tick' as const }),
  fc.record({ type: fc.constant('end' as const), at: fc.integer({ min: -3600, max: 9000 }).map(iso) }),
  fc.constant({ type: 'scheduled' as const }),
  fc.record({ type: fc.constant('pausing' as const), checkIds: ids }),
  fc.record({ type: fc.constant('started' as const), paused: ids }),
  fc.constant({ type: 'endApplied' as const }),
);

/** Events with the clock moving forward (never back) between them. */
const scenario = fc.record({ opening, steps: fc.array(fc.record({ event, advance: fc.integer({ min: 0, max: 900 }) }), { maxLength: 30 }) });

type Opening = { start: number; length: number | null; endIsPlan: boolean; autoPause: boolean };
type Step = { before: DeploymentState; event: DeploymentEvent; now: Date; result: ReturnType<typeof transitionDeployment> };

function openState(o: Opening, now: Date): DeploymentState | null {
  const startedAt = iso(o.start);
  const endAt = o.length === null ? null : iso(o.start + o.length);
  const opened = transitionDeployment(null, { type: 'open', startedAt, endAt, endIsPlan: o.endIsPlan, autoPause: o.autoPause }, now);
  return opened.ok ? opened.state : null;
}

function run({ opening: o, steps }: { opening: Opening; steps: { event: DeploymentEvent; advance: number }[] }) {
  let nowMs = T0;
  let state = openState(o, new Date(nowMs));
  const trace: Step[] = [];
  if (state === null) return { trace, final: null, nowMs };
  for (const step of steps) {
    nowMs += step.advance * 1000;
    const now = new Date(nowMs);
    const result = transitionDeployment(state, step.event, now);
    trace.push({ before: state, event: step.event, now, result });
    if (result.ok) state = result.state;
  }
  return { trace, final: state, nowMs };
}

/** The invariants every stored deployment keeps at `now`. */
function assertValid(s: DeploymentState, now: Date): void {
  const due = s.dueAt === null ? null : Date.parse(s.dueAt);
  if (s.scheduledEndAt !== null) expect(Date.parse(s.scheduledEndAt)).toBeGreaterThan(Date.parse(s.startedAt));
  if (!s.autoPause) expect(s.autoPausedCheckIds).toEqual([]);
  expect(new Set(s.autoPausedCheckIds).size).toBe(s.autoPausedCheckIds.length);
  if (s.status !== 'ENDED') {
    expect(s.endedAt).toBeNull();
    expect(s.endEffectsAt).toBeNull();
  } else {
    expect(s.endedAt).not.toBeNull();
  }
  if (s.status === 'SCHEDULED') {
    expect([s.startEffectsAt, s.autoPausedCheckIds.length]).toEqual([null, 0]);
    expect(due).not.toBeNull();
  }
  // Pending effects keep the deployment due by now, so the sweep finds work a crash left undone.
  const pendingStart = s.status === 'ACTIVE' && s.startEffectsAt === null;
  const pendingEnd = s.status === 'ENDED' && s.endEffectsAt === null;
  if (pendingStart || pendingEnd) expect(due !== null && due <= now.getTime()).toBe(true);
  if (s.status === 'ACTIVE' && due === null) expect([s.startEffectsAt !== null, s.scheduledEndAt]).toEqual([true, null]);
  if (s.status === 'ENDED' && due === null) expect(s.endEffectsAt).not.toBeNull();
}

describe('transitionDeployment (properties)', () => {
  it('leaves a valid state after any sequence of events', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { result, now } of run(sc).trace) if (result.ok) assertValid(result.state, now);
      }),
    );
  });

  it('only moves status forward, and keeps ENDED terminal with its endedAt', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { before, result } of run(sc).trace) {
          if (!result.ok) continue;
          expect(statusRank(result.state.status)).toBeGreaterThanOrEqual(statusRank(before.status));
          if (before.status === 'ENDED') expect([result.state.status, result.state.endedAt]).toEqual(['ENDED', before.endedAt]);
        }
      }),
    );
  });

  it('refuses only an end in the future or before an ACTIVE start, and never on an ENDED deployment', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { before, event: e, now, result } of run(sc).trace) {
          if (result.ok) continue;
          expect(e.type).toBe('end');
          expect(before.status).not.toBe('ENDED');
          const at = e.type === 'end' ? Date.parse(e.at) : NaN;
          expect(at > now.getTime() || (before.status === 'ACTIVE' && at < Date.parse(before.startedAt))).toBe(true);
        }
      }),
    );
  });

  it('ending twice equals ending once', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: -3600, max: 3600 }), fc.integer({ min: -3600, max: 9000 }), fc.integer({ min: 0, max: 600 }), (sc, first, second, later) => {
        const { final, nowMs } = run(sc);
        if (final === null) return;
        const once = transitionDeployment(final, { type: 'end', at: new Date(nowMs + first * 1000).toISOString() }, new Date(nowMs));
        if (!once.ok) return;
        const twice = transitionDeployment(once.state, { type: 'end', at: iso(second) }, new Date(nowMs + later * 1000));
        expect(twice).toEqual({ ok: true, changed: false, state: once.state, effects: once.effects });
      }),
    );
  });

  it('names only effects the resulting state implies', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        for (const { before, result } of run(sc).trace) {
          if (!result.ok) continue;
          const s = result.state;
          for (const effect of result.effects) expectImplied(effect, s, before);
        }
      }),
    );
  });

  it('resumes every check it paused once it ends, even when the end races its start', () => {
    const run = fc.record({
      opening,
      targets: ids,
      advances: fc.array(fc.integer({ min: 0, max: 900 }), { maxLength: 8 }),
      endAfter: fc.integer({ min: 0, max: 2 }),
      racingStep: fc.integer({ min: 0, max: 9 }),
    });
    fc.assert(
      fc.property(run, ({ opening: o, targets, advances, endAfter, racingStep }) => {
        let nowMs = T0;
        const start = openState(o, new Date(nowMs));
        if (start === null) return;
        const world = { pausedByUs: new Set<number>(), hold: false };
        let s = start;
        const end = (): void => drive({ type: 'end', at: new Date(nowMs).toISOString() });
        /**
         * One run of events. `race` lands a whole concurrent end at one point of it: before step
         * n's transition (2n), or between its write and its effects (2n + 1).
         */
        const drive = (first: DeploymentEvent, race?: number): void => {
          let next: DeploymentEvent | null = first;
          for (let step = 0; next !== null; step++) {
            expect(step).toBeLessThan(12);
            if (race === 2 * step) end();
            const r = transitionDeployment(s, next, new Date(nowMs));
            if (!r.ok) return;
            s = r.state;
            if (race === 2 * step + 1) end();
            next = simulate(r.effects, world, targets);
          }
        };
        advances.forEach((advance, i) => {
          nowMs += advance * 1000;
          drive({ type: 'tick' }, i === endAfter ? racingStep : undefined);
        });
        drive({ type: 'end', at: new Date(nowMs).toISOString() });
        expect(s.status).toBe('ENDED');
        expect(s.endEffectsAt).not.toBeNull();
        expect(s.dueAt).toBeNull();
        expect([...world.pausedByUs]).toEqual([]);
        expect(world.hold).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});

function expectImplied(effect: DeploymentEffect, s: DeploymentState, before: DeploymentState): void {
  switch (effect.type) {
    case 'findPauseTargets':
    case 'pauseChecks':
      expect([s.status, s.autoPause, s.startEffectsAt]).toEqual(['ACTIVE', true, null]);
      if (effect.type === 'pauseChecks') for (const id of effect.checkIds) expect(s.autoPausedCheckIds).toContain(id);
      break;
    case 'putHold':
      expect(s.status).not.toBe('ENDED');
      break;
    case 'deleteHold':
      expect(s.status).toBe('ENDED');
      break;
    case 'resumeChecks':
      expect(s.status).toBe('ENDED');
      for (const id of effect.checkIds) expect(s.autoPausedCheckIds).toContain(id);
      break;
    case 'confirm':
      if (effect.event.type === 'endApplied') expect([s.status, s.endEffectsAt]).toEqual(['ENDED', null]);
      if (effect.event.type === 'started') expect([s.status, s.startEffectsAt]).toEqual(['ACTIVE', null]);
      if (effect.event.type === 'scheduled') expect(s.status).toBe('SCHEDULED');
      expect(before).toBeDefined();
      break;
  }
}

/** A pure stand-in for the interpreter: every target check is running until this deployment pauses it. */
function simulate(effects: readonly DeploymentEffect[], world: { pausedByUs: Set<number>; hold: boolean }, targets: readonly number[]): DeploymentEvent | null {
  let report: DeploymentEvent | null = null;
  for (const effect of effects) {
    if (effect.type === 'putHold') world.hold = true;
    else if (effect.type === 'deleteHold') world.hold = false;
    // Running targets, and those already paused by this deployment (recorded as ours).
    else if (effect.type === 'findPauseTargets') report = { type: 'pausing', checkIds: targets };
    else if (effect.type === 'pauseChecks') {
      for (const id of effect.checkIds) world.pausedByUs.add(id);
      report = { type: 'started', paused: effect.checkIds };
    } else if (effect.type === 'resumeChecks') for (const id of effect.checkIds) world.pausedByUs.delete(id);
    else report = effect.event;
  }
  return report;
}
