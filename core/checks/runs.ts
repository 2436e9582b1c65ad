import type { CheckItem } from '../store/entities/check.js';
import type { PingKind, StatusChange, StatusChanges } from './status.js';
import { MAX_RUN_MS, nextCheckStatus, PING_OBSERVATIONS } from './status.js';
import { readJobRules } from './jobRulesStored.js';

/**
 * Runs of a heartbeat job (docs/guide/cron.md "Runs, exit codes and logs"): a `/start` with `?rid=<uuid>` keeps its instant on the check
 * as `run_<rid>` until the end with the same rid arrives, so concurrent runs each get their
 * duration. A run still open past its allowance (the grace, or maxDurationSeconds when longer) is
 * a missed run: the sweep finds it by its START signal's entry in a sparse index and fails the
 * job (core/sweep/missedRuns.ts). Duration bounds turn a run outside them into a FAIL with the reason; a success
 * sooner than minIntervalSeconds after the previous one is TOO_FREQUENT (one episode until a
 * success on time). Pure: the ping path reads the item, judges here, then writes conditionally.
 */

export const RUN_PREFIX = 'run_';
export const runAttribute = (rid: string): string => `${RUN_PREFIX}${rid.toLowerCase()}`;
const RID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isRunId = (rid: string): boolean => RID.test(rid);

/** What the judgement reads of the check. */
export type RunState = {
  graceSeconds?: number | undefined;
  jobRules?: string | undefined;
  startedAt?: string | undefined;
  lastSuccessAt?: string | undefined;
  tooFrequentSince?: string | undefined;
  /** Open runs: rid -> start instant (ISO). */
  runs: Record<string, string>;
};

export type RunVerdict = {
  /** The kind the status follows: a success outside the duration bounds counts as a fail. */
  kind: PingKind;
  durationMs?: number;
  /** Why a run failed (bounds), for the FAIL signal. */
  reason?: string;
  /** The success came sooner than minIntervalSeconds after the previous one. */
  tooFrequent: boolean;
  /** ...and begins an episode (the one that alerts). */
  episodeStarts: boolean;
  /** A success on time ends an episode. */
  episodeEnds: boolean;
};

/**
 * Open runs a job may hold at once. A start past it is refused (409) rather than dropping an open
 * run: the runs already open are the ones a real job is waiting on, and a flood of starts with
 * fresh ids must not evict them. Each open run is an attribute of the check item, which every
 * ping of the job rewrites, so the cap also bounds what every ping costs (about 70 bytes a run).
 */
export const MAX_OPEN_RUNS = 100;

/**
 * The missed-run index's shards (the START signals' `runDueShard`). One serves far more runs than a
 * sweep meets in a minute; growing it means writers spread by check id and the sweep reads each.
 */
export const RUN_DUE_SHARD = '0';
export const RUN_DUE_SHARDS: readonly string[] = [RUN_DUE_SHARD];

/** How long a run may stay open before it is a missed run: the grace, or maxDurationSeconds when longer. */
export function runAllowanceMs(check: { graceSeconds?: number | undefined; jobRules?: string | undefined }): number {
  return Math.max(check.graceSeconds ?? 0, readJobRules(check.jobRules)?.maxDurationSeconds ?? 0) * 1000;
}

/** Whether a start of `rid` finds the job's open runs (`raw`, before it) already at the cap; a restart of an open run is never refused. */
export function exceedsOpenRuns(raw: Record<string, unknown>, rid: string): boolean {
  if (typeof raw[runAttribute(rid)] === 'string') return false;
  let open = 0;
  for (const [name, value] of Object.entries(raw)) if (name.startsWith(RUN_PREFIX) && typeof value === 'string') open++;
  return open >= MAX_OPEN_RUNS;
}

/**
 * What a missed run does to its job: the transition a `/fail` makes (DOWN, no pending LATE or
 * DOWN; a paused or outbound check keeps its status), without what only a ping writes (its
 * `lastPingAt`, the next due time counted from it, the check-wide start).
 */
export function missedRunTransition(
  check: Pick<CheckItem, 'checkId' | 'status' | 'checkMode' | 'intervalSeconds' | 'graceSeconds'> & Partial<CheckItem>,
  now: Date,
): { changes: StatusChanges; statusChange: StatusChange | null } {
  const failed = nextCheckStatus(check, PING_OBSERVATIONS.fail, now);
  if (!failed.statusChange && failed.status !== 'DOWN') return { changes: { set: {}, remove: [] }, statusChange: null };
  return {
    changes: { set: { status: failed.status, lastSignalAt: now.toISOString() }, remove: failed.changes.remove.filter((key) => key === 'dueAt' || key === 'dueShard') },
    statusChange: failed.statusChange,
  };
}

/** The open runs among a raw item's attributes. */
export function openRuns(raw: Record<string, unknown>): Record<string, string> {
  const runs: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) if (name.startsWith(RUN_PREFIX) && typeof value === 'string') runs[name.slice(RUN_PREFIX.length)] = value;
  return runs;
}

function duration(startedAt: string | undefined, now: Date): number | undefined {
  if (!startedAt) return undefined;
  const ms = now.getTime() - Date.parse(startedAt);
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_RUN_MS ? ms : undefined;
}

export function judgeRun(state: RunState, ping: { kind: PingKind; rid?: string | undefined }, now: Date): RunVerdict {
  const rules = readJobRules(state.jobRules) ?? {};
  const rid = ping.rid?.toLowerCase();
  const verdict: RunVerdict = { kind: ping.kind, tooFrequent: false, episodeStarts: false, episodeEnds: false };
  if (ping.kind !== 'success' && ping.kind !== 'fail') return verdict;
  const durationMs = duration(rid !== undefined ? state.runs[rid] : state.startedAt, now);
  if (durationMs !== undefined) {
    verdict.durationMs = durationMs;
    const seconds = durationMs / 1000;
    if (rules.minDurationSeconds !== undefined && seconds < rules.minDurationSeconds) {
      verdict.kind = 'fail';
      verdict.reason = `The run took ${seconds.toFixed(1)} s, under minDurationSeconds (${rules.minDurationSeconds} s)`;
    } else if (rules.maxDurationSeconds !== undefined && seconds > rules.maxDurationSeconds) {
      verdict.kind = 'fail';
      verdict.reason = `The run took ${seconds.toFixed(1)} s, over maxDurationSeconds (${rules.maxDurationSeconds} s)`;
    }
  }
  if (ping.kind === 'success' && rules.minIntervalSeconds !== undefined) {
    const since = state.lastSuccessAt ? now.getTime() - Date.parse(state.lastSuccessAt) : Number.POSITIVE_INFINITY;
    if (since < rules.minIntervalSeconds * 1000) {
      verdict.tooFrequent = true;
      verdict.episodeStarts = state.tooFrequentSince === undefined;
    } else verdict.episodeEnds = state.tooFrequentSince !== undefined;
  }
  return verdict;
}

/** Whether a ping of this check must read it first: its outcome depends on the rules' bounds. */
export const judgedBeforeWrite = (jobRules: string | undefined, kind: PingKind): boolean => {
  if (jobRules === undefined || (kind !== 'success' && kind !== 'fail')) return false;
  const rules = readJobRules(jobRules);
  return rules?.minDurationSeconds !== undefined || rules?.maxDurationSeconds !== undefined || rules?.minIntervalSeconds !== undefined;
};
