import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyChanges, nextCheckStatus, onPing, onSweep, type CheckTiming, type PingKind } from './status.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');

const newCheck = (overrides: Partial<CheckTiming> = {}): CheckTiming => ({
  checkId: 7,
  status: 'NEW',
  checkMode: 'INBOUND',
  intervalSeconds: 10,
  graceSeconds: 5,
  ...overrides,
});

type Op = { kind: 'advance'; ms: number } | { kind: 'ping'; ping: PingKind } | { kind: 'sweep'; held: boolean } | { kind: 'pause' } | { kind: 'resume' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 200_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  { weight: 3, arbitrary: fc.constantFrom<PingKind>('success', 'fail', 'start').map((ping) => ({ kind: 'ping' as const, ping })) },
  { weight: 4, arbitrary: fc.boolean().map((held) => ({ kind: 'sweep' as const, held })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pause' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'resume' as const }) },
);

const checkArb = fc.record({
  intervalSeconds: fc.integer({ min: 10, max: 3600 }),
  graceSeconds: fc.integer({ min: 5, max: 600 }),
  checkMode: fc.constantFrom<CheckTiming['checkMode']>('INBOUND', 'INBOUND', 'INBOUND', 'OUTBOUND'),
});

/** What a check should be waiting on, by the rules: the index must hold exactly those. */
// Waiting on a timing transition: running inbound checks, except one that never pinged (never alerted).
const pending = (c: CheckTiming): boolean => c.checkMode === 'INBOUND' && (['OK', 'LATE'].includes(c.status) || (c.status === 'RESUMED' && c.lastPingAt !== undefined));

function step(check: CheckTiming, op: Op, now: Date): CheckTiming {
  switch (op.kind) {
    case 'advance':
      return check;
    case 'ping':
      return applyChanges(check, onPing(check, now, op.ping).changes);
    case 'sweep':
      return applyChanges(check, onSweep(check, now, op.held).changes);
    case 'pause':
      return applyChanges(check, nextCheckStatus(check, { type: 'pause', cause: 'USER' }, now).changes);
    case 'resume':
      return applyChanges(check, nextCheckStatus(check, { type: 'resume', cause: 'USER' }, now).changes);
  }
}

describe('check status transitions (properties)', () => {
  it('keep every invariant over any history of pings, sweeps, pauses and resumes', () => {
    fc.assert(
      fc.property(checkArb, fc.array(opArb, { maxLength: 60 }), (config, ops) => {
        let check = newCheck(config);
        let at = T0;
        for (const op of ops) {
          if (op.kind === 'advance') at += op.ms;
          const now = new Date(at);
          if (op.kind === 'sweep') {
            const outcome = onSweep(check, now, op.held);
            const dueMs = check.nextDueAt ? Date.parse(check.nextDueAt) : Infinity;
            // Never DOWN before nextDueAt + 2 x grace, never LATE before nextDueAt + grace.
            if (outcome.status === 'DOWN' && check.status !== 'DOWN') expect(at).toBeGreaterThan(dueMs + 2 * check.graceSeconds * 1000);
            if (outcome.status === 'LATE' && check.status !== 'LATE') expect(at).toBeGreaterThan(dueMs + check.graceSeconds * 1000);
            // A held check, a NEW check, a paused check, a check that never pinged never move.
            if (op.held || check.status === 'NEW' || check.status === 'PAUSED' || check.lastPingAt === undefined) expect(outcome.status).toBe(check.status);
            expect(outcome.statusChange !== null).toBe(outcome.status !== check.status);
            // Idempotent: sweeping the result again at the same instant changes nothing.
            const once = applyChanges(check, outcome.changes);
            expect(onSweep(once, now, op.held).changes).toBeNull();
          }
          if (op.kind === 'ping') {
            const outcome = onPing(check, now, op.ping);
            const timed = check.checkMode === 'INBOUND' && check.status !== 'PAUSED';
            if (op.ping === 'start' || !timed) expect(outcome.status).toBe(check.status);
            else expect(outcome.status).toBe(op.ping === 'success' ? 'OK' : 'DOWN');
            expect(outcome.statusChange !== null).toBe(outcome.status !== check.status);
          }
          check = step(check, op, now);
          // The sparse index holds exactly the checks waiting on a timing transition ...
          expect(check.dueAt !== undefined).toBe(pending(check));
          if (check.dueAt !== undefined && check.nextDueAt) {
            // ... at the instant that transition becomes possible.
            const dueMs = Date.parse(check.nextDueAt);
            expect(Date.parse(check.dueAt)).toBe(dueMs + (check.status === 'LATE' ? 2 : 1) * check.graceSeconds * 1000);
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a success ping always yields OK with nextDueAt = now + interval, unless paused', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<CheckTiming['status']>('NEW', 'OK', 'LATE', 'DOWN', 'PAUSED', 'RESUMED'),
        fc.integer({ min: 10, max: 604_800 }),
        fc.integer({ min: 0, max: 10 ** 10 }),
        (status, intervalSeconds, offset) => {
          const now = new Date(T0 + offset);
          const outcome = onPing(newCheck({ status, intervalSeconds }), now, 'success');
          if (status === 'PAUSED') {
            expect(outcome.status).toBe('PAUSED');
            expect(outcome.changes.set.status).toBeUndefined();
            expect(outcome.changes.set.lastPingAt).toBe(now.toISOString());
          } else {
            expect(outcome.status).toBe('OK');
            expect(outcome.changes.set.nextDueAt).toBe(new Date(now.getTime() + intervalSeconds * 1000).toISOString());
            // The due entry waits for the LATE instant: the default grace is 5 s.
            expect(outcome.changes.set.dueAt).toBe(new Date(now.getTime() + (intervalSeconds + 5) * 1000).toISOString());
          }
          expect(outcome.signal.type).toBe('SUCCESS');
        },
      ),
    );
  });

  it('LATE only after nextDueAt + grace and DOWN only after nextDueAt + 2 x grace, for any sweep instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 3600 }), fc.integer({ min: 5, max: 600 }), fc.integer({ min: 0, max: 8_000_000 }), (interval, grace, after) => {
        const pinged = applyChanges(
          newCheck({ intervalSeconds: interval, graceSeconds: grace }),
          onPing(newCheck({ intervalSeconds: interval, graceSeconds: grace }), new Date(T0), 'success').changes,
        );
        const outcome = onSweep(pinged, new Date(T0 + after), false);
        const expected = after > (interval + 2 * grace) * 1000 ? 'DOWN' : after > (interval + grace) * 1000 ? 'LATE' : 'OK';
        expect(outcome.status).toBe(expected);
        expect(outcome.signal).toBe(expected === 'DOWN' ? 'FAIL' : expected === 'LATE' ? 'SUSPECT' : null);
      }),
    );
  });
});

describe('check status transitions (examples)', () => {
  it('a NEW check is never alerted and has no due entry until its first ping', () => {
    const check = newCheck();
    expect(onSweep(check, new Date(T0 + 10 ** 9), false)).toMatchObject({ changes: null, status: 'NEW', signal: null });
    const first = onPing(check, new Date(T0), 'success');
    expect(first.statusChange).toEqual({ from: 'NEW', to: 'OK' });
    // Due at 12:00:10, LATE (the index entry) after the 5 s of grace.
    expect(first.changes.set.nextDueAt).toBe('2026-03-01T12:00:10.000Z');
    expect(first.changes.set.dueAt).toBe('2026-03-01T12:00:15.000Z');
  });

  it('/fail moves a check to DOWN at once and leaves the due index', () => {
    const ok = applyChanges(newCheck(), onPing(newCheck(), new Date(T0), 'success').changes);
    const failed = onPing(ok, new Date(T0 + 2000), 'fail');
    expect(failed.status).toBe('DOWN');
    expect(failed.signal.type).toBe('FAIL');
    expect(failed.changes.remove).toEqual(expect.arrayContaining(['dueAt', 'dueShard']));
  });

  it('a START makes the next SUCCESS carry the run duration, and does not change the status', () => {
    const ok = applyChanges(newCheck(), onPing(newCheck(), new Date(T0), 'success').changes);
    const started = onPing(ok, new Date(T0 + 5000), 'start');
    expect(started.status).toBe('OK');
    expect(started.signal).toEqual({ type: 'START' });
    const done = onPing(applyChanges(ok, started.changes), new Date(T0 + 7250), 'success');
    expect(done.signal).toEqual({ type: 'SUCCESS', durationMs: 2250 });
    expect(done.changes.remove).toContain('startedAt');
  });

  it('RESUMED counts from the resume time', () => {
    const resumeAt = new Date(T0 + 3_600_000);
    // A check that pinged before its pause (one that never pinged is never alerted).
    const pinged = { lastPingAt: new Date(T0).toISOString() };
    const paused = newCheck({ status: 'PAUSED', ...pinged });
    const resumed = applyChanges(paused, nextCheckStatus(paused, { type: 'resume', cause: 'USER' }, resumeAt).changes);
    expect(onSweep(resumed, new Date(resumeAt.getTime() + 15_000), false).status).toBe('RESUMED');
    expect(onSweep(resumed, new Date(resumeAt.getTime() + 15_001), false).statusChange).toEqual({ from: 'RESUMED', to: 'LATE' });
  });

  it('a held check stays put and stays due', () => {
    const ok = applyChanges(newCheck(), onPing(newCheck(), new Date(T0), 'success').changes);
    expect(onSweep(ok, new Date(T0 + 60_000), true)).toMatchObject({ changes: null, status: 'OK' });
    expect(onSweep(ok, new Date(T0 + 60_000), false).status).toBe('DOWN');
  });
});
