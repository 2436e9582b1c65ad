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
});

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
