import { downAtOf, lateAtOf } from '../checks/timing.js';
import type { CheckItem } from '../store/entities/check.js';

/**
 * What the ping path last saw of a check: enough to write the next ping in one conditional
 * update without reading first (DynamoDB cannot compute `now + interval` or "reset the counter if
 * the window changed" inside an update). Every guess is part of the update's condition, so a
 * stale hint costs one read and a retry, never a wrong write.
 */
export type PingHint = {
  checkId: number;
  workspaceId: number;
  /** The project a status change names (a move's update is conditioned on it). */
  projectId: number | undefined;
  checkMode: CheckItem['checkMode'];
  /** The status the check had after the last write seen: a move's update is conditioned on it. */
  status: CheckItem['status'];
  intervalSeconds: number;
  /** Where the due entry goes (nextDueAt + grace): a timed ping's update is conditioned on it. */
  graceSeconds: number;
  /** The job's rules (schedule, duration bounds, min interval) as stored; a timed ping's update is conditioned on them. */
  jobRules: string | undefined;
  /** The rate-limit window the item's counter belongs to. */
  windowStart: number | undefined;
  /** When the last ping seen made the job due next: the sweep moves it LATE and DOWN from here. */
  nextDueAt?: string | undefined;
};

/** The hint of a whole check item (read, or returned whole by an update). */
export const hintOf = (check: Pick<CheckItem, 'checkId' | 'workspaceId' | 'checkMode' | 'status' | 'intervalSeconds' | 'graceSeconds'> & Partial<CheckItem>): PingHint => ({
  checkId: check.checkId,
  workspaceId: check.workspaceId,
  projectId: check.projectId,
  checkMode: check.checkMode,
  status: check.status,
  intervalSeconds: check.intervalSeconds,
  graceSeconds: check.graceSeconds,
  jobRules: check.jobRules,
  windowStart: check.pingWindowStart,
  nextDueAt: check.nextDueAt,
});

/**
 * How long after a job's LATE or DOWN instant the sweep has surely moved it: it runs every
 * `VIGIL_SWEEP_SECONDS` (10 s by default) locally and once a minute on AWS (stacks/SweepStack.ts).
 */
export const SWEPT_AFTER_MS = 60_000;

/**
 * The status a remembered hint most likely has in the table now. A job that went silent was moved
 * LATE and DOWN by the sweep, which no ping saw, so its first ping back (a recovery) would meet a
 * failed condition, a read and a retry: three requests instead of one, for every job of a mass
 * recovery at once. Past its DOWN instant by a sweep's period it is guessed DOWN (LATE likewise).
 * A wrong guess (a sweep held by a window, or late) costs what the stale hint cost before: the
 * guess is only the update's condition, never what is written without it.
 */
export function sweptStatus(hint: PingHint, now: Date): CheckItem['status'] {
  if (hint.checkMode !== 'INBOUND' || hint.nextDueAt === undefined || (hint.status !== 'OK' && hint.status !== 'LATE')) return hint.status;
  const due = new Date(hint.nextDueAt);
  const at = now.getTime() - SWEPT_AFTER_MS;
  if (at > downAtOf(due, hint.graceSeconds).getTime()) return 'DOWN';
  if (at > lateAtOf(due, hint.graceSeconds).getTime()) return 'LATE';
  return hint.status;
}

/** A bounded map, oldest entries dropped first; one per app instance (a Lambda container). */
export class PingHints {
  private readonly entries = new Map<string, PingHint>();
  constructor(private readonly capacity = 50_000) {}

  get(token: string): PingHint | undefined {
    return this.entries.get(token);
  }

  set(token: string, hint: PingHint): void {
    this.entries.delete(token);
    this.entries.set(token, hint);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  delete(token: string): void {
    this.entries.delete(token);
  }
}
