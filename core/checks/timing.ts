import type { CheckItem } from '../store/entities/check.js';
import { nextOccurrence } from './cron.js';
import { readJobRules } from './jobRulesStored.js';

/**
 * When a heartbeat check is due (docs/adr/0002-grace-before-late.md): nextDueAt = lastPingAt + interval; `graceSeconds` is
 * the lateness tolerated before LATE, so LATE once nextDueAt + grace passes and DOWN once
 * nextDueAt + 2 x grace passes (a ping that arrives with ordinary jitter never flips the check). The transitions in `status.ts` and the edit path
 * (`retime`) both read their arithmetic and their due-index placement from here.
 */

/**
 * The sweep reads every shard of the `byDue` index. One shard serves well past 10,000 checks;
 * growing it means raising the count here (writers spread by check id, the sweep reads each).
 */
export const DUE_SHARD_COUNT = 1;
export const DUE_SHARDS: readonly string[] = Array.from({ length: DUE_SHARD_COUNT }, (_, i) => String(i));
const ONLY_SHARD = '0';
export const dueShardFor = (checkId: number): string => (DUE_SHARD_COUNT === 1 ? ONLY_SHARD : String(checkId % DUE_SHARD_COUNT));

export const plusSeconds = (at: Date, seconds: number): Date => new Date(at.getTime() + seconds * 1000);

/** When a check due at `nextDueAt` turns LATE, and when DOWN. */
export const lateAtOf = (nextDueAt: Date, graceSeconds: number): Date => plusSeconds(nextDueAt, graceSeconds);
export const downAtOf = (nextDueAt: Date, graceSeconds: number): Date => plusSeconds(nextDueAt, 2 * graceSeconds);

/**
 * When a check that was pinged (or resumed) at `from` is next due: the schedule's first
 * occurrence after it (wall-clock in its zone, so right across DST), else `from` + interval.
 */
export function nextDueAfter(check: Pick<CheckItem, 'intervalSeconds'> & { jobRules?: string | undefined }, from: Date): Date {
  if (check.jobRules !== undefined) {
    const rules = readJobRules(check.jobRules);
    if (rules?.schedule) {
      const next = nextOccurrence(rules.schedule, rules.timezone ?? 'UTC', from);
      if (next) return next;
    }
  }
  return plusSeconds(from, check.intervalSeconds);
}

type Waiting = Pick<CheckItem, 'checkMode' | 'status'> & Partial<Pick<CheckItem, 'lastPingAt'>>;

/**
 * Whether a check waits on a timing transition (and so belongs in the due index): a running
 * inbound check, except one that never pinged, which waits for nothing (never
 * alerted), also once resumed. Outbound checks are judged by probe rounds, not by pings arriving.
 */
export const awaitsTiming = (check: Waiting): boolean =>
  check.checkMode === 'INBOUND' && (check.status === 'OK' || check.status === 'LATE' || (check.status === 'RESUMED' && check.lastPingAt !== undefined));

export type TimingChanges = {
  set: Pick<Partial<CheckItem>, 'nextDueAt' | 'dueAt' | 'dueShard'>;
  remove: ('nextDueAt' | 'dueAt' | 'dueShard')[];
};

type Timed = Pick<CheckItem, 'checkId' | 'checkMode' | 'status' | 'lastPingAt' | 'nextDueAt' | 'intervalSeconds' | 'graceSeconds'> & { jobRules?: string | undefined };

/**
 * Where a check's timing stands after its interval, grace or mode changed: `nextDueAt` and the
 * due index (RESUMED counts from the resume time, which is nextDueAt minus the old interval).
 * Only checks that `awaitsTiming` stay in the index.
 */
export function retime(check: Timed, previousIntervalSeconds: number, now: Date): TimingChanges {
  if (!awaitsTiming(check)) return { set: {}, remove: ['dueAt', 'dueShard'] };
  let base: Date;
  // A scheduled check resumed counts from now: its resume time is not kept.
  if (check.status === 'RESUMED') base = check.nextDueAt && !readJobRules(check.jobRules)?.schedule ? plusSeconds(new Date(check.nextDueAt), -previousIntervalSeconds) : now;
  else base = check.lastPingAt ? new Date(check.lastPingAt) : now;
  const nextDueAt = nextDueAfter(check, base);
  const dueAt = check.status === 'LATE' ? downAtOf(nextDueAt, check.graceSeconds) : lateAtOf(nextDueAt, check.graceSeconds);
  return { set: { nextDueAt: nextDueAt.toISOString(), dueShard: dueShardFor(check.checkId), dueAt: dueAt.toISOString() }, remove: [] };
}
