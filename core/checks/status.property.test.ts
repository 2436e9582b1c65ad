import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyChanges, causeOf, nextCheckStatus, type CheckObservation, type CheckStatus, type CheckTiming, type PauseCause } from './status.js';
import { awaitsTiming } from './timing.js';

/**
 * The check status function against any history of pings, sweeps, pauses, resumes (by a user or a
 * deployment) and probe verdicts, applied the way the callers apply it: the changes are written
 * (`applyChanges`), the status change is published.
 */

const T0 = Date.parse('2026-03-01T12:00:00.000Z');

type Step = { advanceMs: number; observation: CheckObservation };

const observationArb: fc.Arbitrary<CheckObservation> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('success', 'fail', 'start').map((kind) => ({ type: 'ping' as const, kind })) },
  { weight: 4, arbitrary: fc.boolean().map((held) => ({ type: 'sweep' as const, held })) },
  { weight: 1, arbitrary: fc.constantFrom('USER', 'DEPLOYMENT').map((cause) => ({ type: 'pause' as const, cause })) },
  { weight: 1, arbitrary: fc.constantFrom('USER', 'DEPLOYMENT').map((cause) => ({ type: 'resume' as const, cause })) },
  { weight: 2, arbitrary: fc.constantFrom('OK', 'DOWN').map((verdict) => ({ type: 'probe' as const, verdict })) },
);
const stepArb: fc.Arbitrary<Step> = fc.record({
  advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 200_000 })),
  observation: observationArb,
});

const configArb = fc.record({
  checkId: fc.integer({ min: 1, max: 10_000 }),
  intervalSeconds: fc.integer({ min: 10, max: 3600 }),
  graceSeconds: fc.integer({ min: 5, max: 600 }),
  checkMode: fc.constantFrom<CheckTiming['checkMode']>('INBOUND', 'INBOUND', 'OUTBOUND'),
});
const fresh = (config: Pick<CheckTiming, 'checkId' | 'intervalSeconds' | 'graceSeconds' | 'checkMode'>): CheckTiming => ({ ...config, status: 'NEW' });

/** Any reachable check: a new one after a history, with the instant the history ended at. */
const reachedArb = fc.tuple(configArb, fc.array(stepArb, { maxLength: 40 })).map(([config, steps]) => {
  let check = fresh(config);
  let at = T0;
  for (const step of steps) {
    at += step.advanceMs;
    check = applyChanges(check, nextCheckStatus(check, step.observation, new Date(at)).changes);
  }
  return { check, at };
});

describe('nextCheckStatus (properties)', () => {
  it('keeps every invariant over any history', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb, { maxLength: 60 }), (config, steps) => {
        let check = fresh(config);
        let at = T0;
        for (const { advanceMs, observation } of steps) {
          at += advanceMs;
          const now = new Date(at);
          const outcome = nextCheckStatus(check, observation, now);
          // A status-change effect is emitted iff the status changed, and names the move exactly.
          expect(outcome.statusChange !== null).toBe(outcome.status !== check.status);
          if (outcome.statusChange) {
            expect(outcome.statusChange).toEqual({ from: check.status, to: outcome.status });
            expect(outcome.changes?.set.status).toBe(outcome.status);
          } else if (outcome.changes?.set.status !== undefined) {
            expect(outcome.changes.set.status).toBe(check.status);
          }
          const next = applyChanges(check, outcome.changes);
          expect(next.status).toBe(outcome.status);

          // A paused check never changes on pings, sweeps or probe verdicts, and is never due.
          if (check.status === 'PAUSED' && observation.type !== 'resume') expect(outcome.status).toBe('PAUSED');
          // NEW never goes LATE or DOWN by a sweep.
          if (check.status === 'NEW' && observation.type === 'sweep') expect(outcome.status).toBe('NEW');
          // Outbound checks move only by probe verdicts (and pause/resume); inbound ones never by probes.
          if (check.checkMode === 'OUTBOUND' && (observation.type === 'ping' || observation.type === 'sweep')) expect(outcome.status).toBe(check.status);
          if (check.checkMode === 'INBOUND' && observation.type === 'probe') expect(outcome.changes).toBeNull();

          // The sparse index holds exactly the checks waiting on a timing transition, at its instant:
          // LATE at nextDueAt + grace, DOWN at nextDueAt + 2 x grace.
          expect(next.dueAt !== undefined).toBe(awaitsTiming(next));
          if (next.dueAt !== undefined && next.nextDueAt) {
            const dueMs = Date.parse(next.nextDueAt);
            expect(Date.parse(next.dueAt)).toBe(dueMs + (next.status === 'LATE' ? 2 : 1) * next.graceSeconds * 1000);
          }
          // A sweep moves a check only once the instant it waits for has passed.
          if (observation.type === 'sweep' && outcome.statusChange && check.nextDueAt) {
            const graces = outcome.status === 'LATE' ? 1 : 2;
            expect(at).toBeGreaterThan(Date.parse(check.nextDueAt) + graces * check.graceSeconds * 1000);
          }
          // A running heartbeat that has pinged is next due after its last ping.
          if (next.checkMode === 'INBOUND' && next.status !== 'PAUSED' && next.lastPingAt !== undefined) {
            expect(next.nextDueAt).toBeDefined();
            expect(Date.parse(next.nextDueAt ?? '')).toBeGreaterThan(Date.parse(next.lastPingAt));
          }
          // A deployment's pause mark exists only on a paused check.
          if (next.deploymentPaused === true) expect(next.status).toBe('PAUSED');
          check = next;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a success ping on a running heartbeat always gives OK (from DOWN too), due one interval later', () => {
    fc.assert(
      fc.property(reachedArb, fc.integer({ min: 0, max: 10 ** 9 }), ({ check, at }, later) => {
        fc.pre(check.checkMode === 'INBOUND' && check.status !== 'PAUSED');
        const now = new Date(at + later);
        const outcome = nextCheckStatus(check, { type: 'ping', kind: 'success' }, now);
        expect(outcome.status).toBe('OK');
        expect(outcome.changes.set.nextDueAt).toBe(new Date(now.getTime() + check.intervalSeconds * 1000).toISOString());
        expect(outcome.statusChange).toEqual(check.status === 'OK' ? null : { from: check.status, to: 'OK' });
      }),
    );
  });

  it('grace is lateness tolerated: a pinged job stays OK until nextDueAt + grace, LATE until + 2 x grace, then DOWN', () => {
    fc.assert(
      fc.property(reachedArb, fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 1, max: 10 ** 6 }), ({ check, at }, later, past) => {
        fc.pre(check.checkMode === 'INBOUND' && check.status !== 'PAUSED');
        const pingedAt = at + later;
        const pinged = applyChanges(check, nextCheckStatus(check, { type: 'ping', kind: 'success' }, new Date(pingedAt)).changes);
        const dueMs = pingedAt + check.intervalSeconds * 1000;
        const graceMs = check.graceSeconds * 1000;
        const sweep = (c: CheckTiming, ms: number) => applyChanges(c, nextCheckStatus(c, { type: 'sweep', held: false }, new Date(ms)).changes);
        // Up to and at the end of the grace (a ping that arrives with jitter): still OK.
        expect(sweep(pinged, dueMs + Math.min(past - 1, graceMs)).status).toBe('OK');
        const late = sweep(pinged, dueMs + graceMs + Math.min(past, graceMs));
        expect(late.status).toBe('LATE');
        expect(sweep(late, dueMs + 2 * graceMs).status).toBe('LATE');
        expect(sweep(late, dueMs + 2 * graceMs + past).status).toBe('DOWN');
        // A sweep that missed the whole LATE stretch goes straight to DOWN.
        expect(sweep(pinged, dueMs + 2 * graceMs + past).status).toBe('DOWN');
      }),
    );
  });

  it('a paused check keeps its status and stays out of the due index whatever is observed, until resumed', () => {
    fc.assert(
      fc.property(reachedArb, fc.array(stepArb, { maxLength: 30 }), ({ check, at }, steps) => {
        let paused = applyChanges(check, nextCheckStatus(check, { type: 'pause', cause: 'USER' }, new Date(at)).changes);
        for (const { advanceMs, observation } of steps) {
          if (observation.type === 'resume' && observation.cause === 'USER') continue;
          at += advanceMs;
          const outcome = nextCheckStatus(paused, observation, new Date(at));
          expect(outcome.status).toBe('PAUSED');
          expect(outcome.statusChange).toBeNull();
          paused = applyChanges(paused, outcome.changes);
          expect(paused.dueAt).toBeUndefined();
        }
      }),
    );
  });

  it('pausing twice is pausing once; resuming twice is resuming once', () => {
    fc.assert(
      fc.property(reachedArb, fc.constantFrom<PauseCause>('USER', 'DEPLOYMENT'), ({ check, at }, cause) => {
        const now = new Date(at);
        const once = applyChanges(check, nextCheckStatus(check, { type: 'pause', cause }, now).changes);
        const again = nextCheckStatus(once, { type: 'pause', cause }, now);
        expect(again.statusChange).toBeNull();
        expect(applyChanges(once, again.changes)).toEqual(once);
        const resumed = applyChanges(once, nextCheckStatus(once, { type: 'resume', cause }, now).changes);
        const resumedAgain = nextCheckStatus(resumed, { type: 'resume', cause }, now);
        expect(resumedAgain.changes).toBeNull();
      }),
    );
  });

  it('a deployment resumes only what it paused; a user pause over a deployment pause takes it over', () => {
    fc.assert(
      fc.property(reachedArb, ({ check, at }) => {
        fc.pre(check.status !== 'PAUSED');
        const now = new Date(at);
        const byUser = applyChanges(check, nextCheckStatus(check, { type: 'pause', cause: 'USER' }, now).changes);
        expect(nextCheckStatus(byUser, { type: 'resume', cause: 'DEPLOYMENT' }, now).changes).toBeNull();

        const byDeployment = applyChanges(check, nextCheckStatus(check, { type: 'pause', cause: 'DEPLOYMENT' }, now).changes);
        expect(byDeployment.deploymentPaused).toBe(true);
        const taken = applyChanges(byDeployment, nextCheckStatus(byDeployment, { type: 'pause', cause: 'USER' }, now).changes);
        expect(taken.deploymentPaused).toBeUndefined();
        expect(nextCheckStatus(taken, { type: 'resume', cause: 'DEPLOYMENT' }, now).changes).toBeNull();
        expect(nextCheckStatus(byDeployment, { type: 'resume', cause: 'DEPLOYMENT' }, now).statusChange).toEqual({ from: 'PAUSED', to: 'RESUMED' });
      }),
    );
  });

  it('names the cause the incident worker expects for every observation', () => {
    fc.assert(
      fc.property(observationArb, (observation) => {
        const cause = causeOf(observation);
        if (observation.type === 'ping') expect(cause).toBe(observation.kind === 'fail' ? 'FAIL_PING' : 'PING');
        else if (observation.type === 'sweep') expect(cause).toBe('SWEEP');
        else if (observation.type === 'probe') expect(cause).toBe('PROBE');
        else if (observation.cause === 'DEPLOYMENT') expect(cause).toBe('DEPLOYMENT');
        else expect(cause).toBe(observation.type === 'pause' ? 'PAUSE' : 'RESUME');
      }),
    );
  });

  it('every status can be reached only through the moves the spec draws', () => {
    const allowed: Record<CheckObservation['type'], readonly CheckStatus[]> = {
      ping: ['OK', 'DOWN'],
      sweep: ['LATE', 'DOWN'],
      pause: ['PAUSED'],
      resume: ['RESUMED'],
      probe: ['OK', 'DOWN'],
    };
    fc.assert(
      fc.property(reachedArb, observationArb, ({ check, at }, observation) => {
        const outcome = nextCheckStatus(check, observation, new Date(at));
        if (outcome.statusChange) expect(allowed[observation.type]).toContain(outcome.statusChange.to);
      }),
    );
  });
});
