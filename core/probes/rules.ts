import type { CheckStatus } from '../checks/status.js';

/**
 * The outbound status rule as a pure function (docs/guide/probes.md "How rounds are judged").
 *
 * A round is one probe period of a check; every region of the check reports into it once. A
 * round is FAILING when a strict majority of the check's regions failed, SUCCEEDING when every
 * region reported a success, and MIXED otherwise (a minority failing, or a region that never
 * reported). DOWN comes after `failAfterConsecutive` FAILING rounds in a row, OK after
 * `resolveAfterConsecutiveSuccess` SUCCEEDING rounds in a row; a MIXED round breaks both runs.
 * A region that did not report is no evidence either way: it cannot make a round fail (our own
 * outage is not the target's), and it keeps the round from counting as "all regions succeeded".
 * The fold only counts: the check's status takes its verdict through `nextCheckStatus`
 * (core/checks/status.ts), as every other status move does.
 */

export type { CheckStatus };
export type RoundVerdict = 'FAILING' | 'SUCCEEDING' | 'MIXED';

export type StreakState = {
  status: CheckStatus;
  failStreak: number;
  okStreak: number;
  /** The status the streaks were counted under; a different current status starts them afresh. */
  streakStatus: CheckStatus | undefined;
};

export type RoundResults = {
  /** The regions the check is probed from now. Reports from other regions are ignored. */
  regions: readonly string[];
  ok: readonly string[];
  failed: readonly string[];
};

export type StatusThresholds = { failAfterConsecutive: number; resolveAfterConsecutiveSuccess: number };
export type StatusFlip = { from: CheckStatus; to: 'OK' | 'DOWN' };
export type RoundOutcome = { state: StreakState; verdict: RoundVerdict; flip: StatusFlip | null };

/** A region that reported both a success and a failure in one round counts as failed. */
export function classifyRound(round: RoundResults): RoundVerdict {
  const expected = new Set(round.regions);
  if (expected.size === 0) return 'MIXED';
  const failed = new Set(round.failed.filter((region) => expected.has(region)));
  const ok = new Set(round.ok.filter((region) => expected.has(region) && !failed.has(region)));
  if (failed.size * 2 > expected.size) return 'FAILING';
  if (failed.size === 0 && ok.size === expected.size) return 'SUCCEEDING';
  return 'MIXED';
}

/**
 * Folds one round into the state. `holdDown` (an active deployment window, or a maintenance
 * window suppressing incidents: docs/guide/windows.md) keeps the check where it is instead of going DOWN; the
 * streak still counts, so the check goes DOWN on the first failing round after the window.
 * A PAUSED check is not judged at all.
 */
export function evaluateRound(state: StreakState, round: RoundResults, thresholds: StatusThresholds, options: { holdDown?: boolean } = {}): RoundOutcome {
  const verdict = classifyRound(round);
  if (state.status === 'PAUSED') return { state, verdict, flip: null };
  const fresh = state.streakStatus !== state.status;
  const failStreak = verdict === 'FAILING' ? (fresh ? 0 : state.failStreak) + 1 : 0;
  const okStreak = verdict === 'SUCCEEDING' ? (fresh ? 0 : state.okStreak) + 1 : 0;
  let to: StatusFlip['to'] | null = null;
  if (state.status !== 'DOWN' && failStreak >= thresholds.failAfterConsecutive && !options.holdDown) to = 'DOWN';
  if (state.status !== 'OK' && okStreak >= thresholds.resolveAfterConsecutiveSuccess) to = 'OK';
  const status = to ?? state.status;
  return {
    state: { status, failStreak, okStreak, streakStatus: status },
    verdict,
    flip: to === null ? null : { from: state.status, to },
  };
}

const MINUTE_MS = 60_000;

/**
 * The length of a round. On AWS a schedule fires at most once a minute and its rate is the
 * interval rounded up to whole minutes (core/adapters/aws/scheduler.ts `rateExpression`); rounds
 * follow that period so that each round holds exactly one run per region. Locally shorter
 * intervals still run that often, and the extra runs of a round join it (their runs and rollups
 * are recorded; the round is judged once).
 */
export function roundLengthMs(intervalSeconds: number): number {
  return Math.max(1, Math.ceil(intervalSeconds / 60)) * MINUTE_MS;
}

/** The round a run started at `now` belongs to, as the ISO instant the round starts. */
export function roundStartOf(now: Date, intervalSeconds: number): string {
  const length = roundLengthMs(intervalSeconds);
  return new Date(Math.floor(now.getTime() / length) * length).toISOString();
}
