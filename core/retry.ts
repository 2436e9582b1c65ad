import { setTimeout as wait } from 'node:timers/promises';

/**
 * How a retry waits between attempts. Injected, so a test records the waits instead of sleeping;
 * the default really waits.
 */
export type Pause = (ms: number) => Promise<void>;

export const realPause: Pause = async (ms) => {
  await wait(ms);
};

/** Returned by an attempt that should run again (while attempts remain). */
export const AGAIN = Symbol('again');

export type RetryPolicy = {
  /** How many times the work may run in all. */
  attempts: number;
  /** The wait before attempt n (n >= 2); none when absent or 0. */
  delayMs?: ((attempt: number) => number) | undefined;
  pause?: Pause | undefined;
};

/** Doubling waits: `firstMs` before the second attempt, twice that before the third, and so on. */
export const doubling =
  (firstMs: number) =>
  (attempt: number): number =>
    firstMs * 2 ** (attempt - 2);

/**
 * The one bounded retry loop of core (conflicts, unprocessed batch items, refused queue entries,
 * an unanswered ping): runs `work` until it answers something other than AGAIN, at most
 * `policy.attempts` times. When the last attempt still says AGAIN, the answer is `exhausted()`:
 * the caller's own error, or for a best-effort report its fallback. Never a silent short result.
 */
export async function retry<T>(work: (attempt: number) => Promise<T | typeof AGAIN>, policy: RetryPolicy, exhausted: () => T): Promise<T> {
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    const ms = attempt > 1 ? (policy.delayMs?.(attempt) ?? 0) : 0;
    if (ms > 0) await (policy.pause ?? realPause)(ms);
    const answer = await work(attempt);
    if (answer !== AGAIN) return answer;
  }
  return exhausted();
}
