import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyRound, evaluateRound, roundLengthMs, roundStartOf, type CheckStatus, type StreakState, type RoundOutcome, type RoundResults } from './rules.js';

const ALL_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-1'] as const;
type Report = 'ok' | 'fail' | 'missing';

const regionsArb = fc.subarray([...ALL_REGIONS], { minLength: 1 });
/** One round: each configured region reports ok, fails, or never reports. */
const roundArb = (regions: readonly string[]) =>
  fc.array(fc.constantFrom<Report>('ok', 'fail', 'missing'), { minLength: regions.length, maxLength: regions.length }).map(
    (reports): RoundResults => ({
      regions,
      ok: regions.filter((_, i) => reports[i] === 'ok'),
      failed: regions.filter((_, i) => reports[i] === 'fail'),
    }),
  );

const thresholdsArb = fc.record({ failAfterConsecutive: fc.integer({ min: 1, max: 10 }), resolveAfterConsecutiveSuccess: fc.integer({ min: 1, max: 10 }) });
const startArb = fc.constantFrom<CheckStatus>('NEW', 'OK', 'DOWN', 'RESUMED', 'LATE');

const scenarioArb = regionsArb.chain((regions) =>
  fc.record({
    regions: fc.constant(regions),
    thresholds: thresholdsArb,
    start: startArb,
    rounds: fc.array(roundArb(regions), { maxLength: 40 }),
  }),
);

const initial = (status: CheckStatus): StreakState => ({ status, failStreak: 0, okStreak: 0, streakStatus: undefined });

function replay(start: CheckStatus, rounds: RoundResults[], thresholds: Parameters<typeof evaluateRound>[2], holdDown = false): RoundOutcome[] {
  let state = initial(start);
  return rounds.map((round) => {
    const outcome = evaluateRound(state, round, thresholds, { holdDown });
    state = outcome.state;
    return outcome;
  });
}

const isMajorityFailing = (round: RoundResults): boolean => round.failed.length * 2 > round.regions.length;
const allSucceeded = (round: RoundResults): boolean => round.failed.length === 0 && round.ok.length === round.regions.length;

describe('classifyRound', () => {
  it('is FAILING exactly when a strict majority of the regions failed, SUCCEEDING exactly when all succeeded', () => {
    fc.assert(
      fc.property(
        regionsArb.chain((regions) => roundArb(regions)),
        (round) => {
          const verdict = classifyRound(round);
          expect(verdict === 'FAILING').toBe(isMajorityFailing(round));
          expect(verdict === 'SUCCEEDING').toBe(allSucceeded(round));
        },
      ),
    );
  });

  it('ignores reports from regions the check does not use, and counts a region that both failed and succeeded as failed', () => {
    expect(classifyRound({ regions: ['us-east-1'], ok: ['us-east-1'], failed: ['eu-west-1', 'ap-southeast-1'] })).toBe('SUCCEEDING');
    expect(classifyRound({ regions: ['us-east-1'], ok: ['us-east-1'], failed: ['us-east-1'] })).toBe('FAILING');
    expect(classifyRound({ regions: ['us-east-1', 'eu-west-1'], ok: ['us-east-1'], failed: ['eu-west-1'] })).toBe('MIXED');
    expect(classifyRound({ regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'], ok: ['us-east-1', 'eu-west-1'], failed: [] })).toBe('MIXED');
  });
});

describe('evaluateRound (properties)', () => {
  it('never goes DOWN without failAfterConsecutive majority-failing rounds in a row', () => {
    fc.assert(
      fc.property(scenarioArb, ({ rounds, thresholds, start }) => {
        replay(start, rounds, thresholds).forEach((outcome, i) => {
          if (outcome.flip?.to !== 'DOWN') return;
          const k = thresholds.failAfterConsecutive;
          expect(i + 1).toBeGreaterThanOrEqual(k);
          for (const round of rounds.slice(i + 1 - k, i + 1)) expect(isMajorityFailing(round)).toBe(true);
        });
      }),
    );
  });

  it('never goes OK unless every region succeeded resolveAfterConsecutiveSuccess rounds in a row', () => {
    fc.assert(
      fc.property(scenarioArb, ({ rounds, thresholds, start }) => {
        replay(start, rounds, thresholds).forEach((outcome, i) => {
          if (outcome.flip?.to !== 'OK') return;
          const k = thresholds.resolveAfterConsecutiveSuccess;
          expect(i + 1).toBeGreaterThanOrEqual(k);
          for (const round of rounds.slice(i + 1 - k, i + 1)) expect(allSucceeded(round)).toBe(true);
        });
      }),
    );
  });

  it('minority failures never count: without a majority-failing round the check never goes DOWN', () => {
    fc.assert(
      fc.property(scenarioArb, ({ rounds, thresholds, start }) => {
        const minorityOnly = rounds.filter((round) => !isMajorityFailing(round));
        expect(replay(start, minorityOnly, thresholds).some((o) => o.flip?.to === 'DOWN')).toBe(false);
      }),
    );
  });

  it('goes DOWN on exactly the failAfterConsecutive-th failing round from OK, and once only', () => {
    fc.assert(
      fc.property(regionsArb, thresholdsArb, fc.integer({ min: 0, max: 15 }), (regions, thresholds, extra) => {
        const failing: RoundResults = { regions, ok: [], failed: regions };
        const outcomes = replay(
          'OK',
          Array.from({ length: thresholds.failAfterConsecutive + extra }, () => failing),
          thresholds,
        );
        const flips = outcomes.flatMap((o, i) => (o.flip ? [{ i, ...o.flip }] : []));
        expect(flips).toEqual([{ i: thresholds.failAfterConsecutive - 1, from: 'OK', to: 'DOWN' }]);
      }),
    );
  });

  it('recovers on exactly the resolveAfterConsecutiveSuccess-th all-succeeding round after DOWN', () => {
    fc.assert(
      fc.property(regionsArb, thresholdsArb, (regions, thresholds) => {
        const failing: RoundResults = { regions, ok: [], failed: regions };
        const passing: RoundResults = { regions, ok: regions, failed: [] };
        const rounds = [
          ...Array.from({ length: thresholds.failAfterConsecutive }, () => failing),
          ...Array.from({ length: thresholds.resolveAfterConsecutiveSuccess }, () => passing),
        ];
        const flips = replay('OK', rounds, thresholds).flatMap((o, i) => (o.flip ? [{ i, to: o.flip.to }] : []));
        expect(flips).toEqual([
          { i: thresholds.failAfterConsecutive - 1, to: 'DOWN' },
          { i: rounds.length - 1, to: 'OK' },
        ]);
      }),
    );
  });

  it('every flip changes the status, and flips alternate', () => {
    fc.assert(
      fc.property(scenarioArb, ({ rounds, thresholds, start }) => {
        let status = start;
        for (const outcome of replay(start, rounds, thresholds)) {
          if (outcome.flip) {
            expect(outcome.flip.from).toBe(status);
            expect(outcome.flip.to).not.toBe(status);
          }
          status = outcome.state.status;
        }
      }),
    );
  });

  it('a paused check is never judged, and a held check never goes DOWN', () => {
    fc.assert(
      fc.property(scenarioArb, ({ rounds, thresholds, start }) => {
        expect(replay('PAUSED', rounds, thresholds).every((o) => o.flip === null && o.state.status === 'PAUSED')).toBe(true);
        expect(replay(start, rounds, thresholds, true).some((o) => o.flip?.to === 'DOWN')).toBe(false);
      }),
    );
  });

  it('streaks counted under another status start afresh (a resumed check does not inherit old failures)', () => {
    const round: RoundResults = { regions: ['us-east-1'], ok: [], failed: ['us-east-1'] };
    const resumed: StreakState = { status: 'RESUMED', failStreak: 2, okStreak: 0, streakStatus: 'OK' };
    const outcome = evaluateRound(resumed, round, { failAfterConsecutive: 3, resolveAfterConsecutiveSuccess: 2 });
    expect(outcome.flip).toBeNull();
    expect(outcome.state).toEqual({ status: 'RESUMED', failStreak: 1, okStreak: 0, streakStatus: 'RESUMED' });
  });
});

describe('rounds', () => {
  it('a run belongs to the round that contains its start, one round per whole-minute period', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.integer({ min: 10, max: 3600 }), (at, interval) => {
        const start = Date.parse(roundStartOf(new Date(at), interval));
        expect(start).toBeLessThanOrEqual(at);
        expect(at).toBeLessThan(start + roundLengthMs(interval));
        expect(roundLengthMs(interval) % 60_000).toBe(0);
        expect(roundLengthMs(interval)).toBeGreaterThanOrEqual(interval * 1000);
      }),
    );
  });
});
