import { MAX_RECEIVE_COUNT } from './index.js';

/**
 * When a failed queue message comes back. Both queue adapters use it (SQS through
 * ChangeMessageVisibility, the local queue through the message's `visibleAt`), so a retry waits
 * the same on AWS and under `npm start`.
 *
 * Exponential backoff with "equal jitter": attempt n waits between half and all of
 * base * 2^(n-1), capped. Half is fixed so the waits still grow (full jitter may retry at once);
 * the random half spreads the retries of many messages failed by one outage. With a 30 s base and
 * five receives a message gets about 7 minutes (4 to 7.5) of retries before its dead letter, enough
 * to ride out a receiver's deploy.
 */
export const RETRY_BACKOFF = { baseSeconds: 30, capSeconds: 15 * 60 } as const;

/**
 * A receiver's Retry-After is honoured up to this long. SQS allows 12 hours, but an alert held
 * back longer than an hour has lost its point, and a hostile receiver should not park it.
 */
export const MAX_RETRY_AFTER_SECONDS = 60 * 60;

export type RetryInput = {
  /** Receives so far, this one included (1 on the first failure). */
  receiveCount: number;
  /** The other side's Retry-After, when it sent one. */
  retryAfterSeconds?: number | undefined;
  /** In [0, 1); injected so tests pin the jitter. */
  random?: () => number;
};

/** Seconds until the message is delivered again (whole seconds: SQS takes integers). */
export function retryDelaySeconds({ receiveCount, retryAfterSeconds, random = Math.random }: RetryInput): number {
  const attempt = Math.max(1, Math.min(receiveCount, MAX_RECEIVE_COUNT + 1));
  const ceiling = Math.min(RETRY_BACKOFF.capSeconds, RETRY_BACKOFF.baseSeconds * 2 ** (attempt - 1));
  const backoff = Math.ceil(ceiling / 2 + random() * (ceiling / 2));
  const asked = retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) ? Math.ceil(Math.max(0, retryAfterSeconds)) : 0;
  return Math.max(backoff, Math.min(asked, MAX_RETRY_AFTER_SECONDS));
}
