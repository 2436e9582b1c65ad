import type { CheckItem } from '../store/entities/check.js';

/** The sweep reads one shard of the sparse `byDue` index. */
export const DUE_SHARD = '0';

export type TimingChanges = {
  set: Pick<Partial<CheckItem>, 'nextDueAt' | 'dueAt' | 'dueShard'>;
  remove: ('nextDueAt' | 'dueAt' | 'dueShard')[];
};

type Timed = Pick<CheckItem, 'checkMode' | 'status' | 'lastPingAt' | 'nextDueAt' | 'intervalSeconds' | 'graceSeconds'>;

const plusSeconds = (at: Date, seconds: number): Date => new Date(at.getTime() + seconds * 1000);

/**
 * Where a check's timing stands after its interval, grace or mode changed: `nextDueAt` and the
 * due index, following DESIGN 6 (nextDueAt = lastPingAt + interval; RESUMED counts from the
 * resume time; LATE becomes DOWN at nextDueAt + grace). Only inbound checks in OK, RESUMED or
 * LATE wait on a timing transition; everything else leaves the index.
 */
export function retime(check: Timed, previousIntervalSeconds: number, now: Date): TimingChanges {
  const leaveIndex: TimingChanges = { set: {}, remove: ['dueAt', 'dueShard'] };
  if (check.checkMode !== 'INBOUND') return leaveIndex;
  let base: Date;
  switch (check.status) {
    case 'OK':
    case 'LATE':
      base = check.lastPingAt ? new Date(check.lastPingAt) : now;
      break;
    case 'RESUMED':
      if (check.lastPingAt === undefined) return leaveIndex;
      base = check.nextDueAt ? plusSeconds(new Date(check.nextDueAt), -previousIntervalSeconds) : now;
      break;
    default:
      return leaveIndex;
  }
  const nextDueAt = plusSeconds(base, check.intervalSeconds);
  const dueAt = check.status === 'LATE' ? plusSeconds(nextDueAt, check.graceSeconds) : nextDueAt;
  return { set: { nextDueAt: nextDueAt.toISOString(), dueShard: DUE_SHARD, dueAt: dueAt.toISOString() }, remove: [] };
}

/** A resumed check is next due one interval from the resume (spec: "from the next expected interval"). */
export function resumedTiming(check: Pick<CheckItem, 'checkMode' | 'intervalSeconds' | 'lastPingAt'>, now: Date): TimingChanges {
  const nextDueAt = plusSeconds(now, check.intervalSeconds).toISOString();
  // Outbound checks are judged by probe rounds, not by pings arriving; a check that never pinged
  // is never alerted (DESIGN 6): neither waits on a timing transition.
  if (check.checkMode !== 'INBOUND' || check.lastPingAt === undefined) return { set: { nextDueAt }, remove: ['dueAt', 'dueShard'] };
  return { set: { nextDueAt, dueShard: DUE_SHARD, dueAt: nextDueAt }, remove: [] };
}
