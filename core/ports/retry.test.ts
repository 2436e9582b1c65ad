import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_SECONDS, RETRY_BACKOFF, retryDelaySeconds } from './retry.js';

describe('retryDelaySeconds', () => {
  it('doubles per receive, with jitter in the upper half of each step, up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((receiveCount) => retryDelaySeconds({ receiveCount, random: () => 0 }))).toEqual([15, 30, 60, 120, 240]);
    expect([1, 2, 3, 4, 5].map((receiveCount) => retryDelaySeconds({ receiveCount, random: () => 0.999999 }))).toEqual([30, 60, 120, 240, 480]);
  });

  it('never retries sooner than a Retry-After, which it honours up to an hour', () => {
    expect(retryDelaySeconds({ receiveCount: 1, retryAfterSeconds: 120, random: () => 0 })).toBe(120);
    expect(retryDelaySeconds({ receiveCount: 4, retryAfterSeconds: 5, random: () => 0 })).toBe(120);
    expect(retryDelaySeconds({ receiveCount: 1, retryAfterSeconds: 10 * 24 * 3600 })).toBe(MAX_RETRY_AFTER_SECONDS);
  });

  it('is a whole number of seconds within [backoff / 2, max(backoff, Retry-After)] for any input', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -3, max: 50 }),
        fc.option(fc.double({ min: -10, max: 1e6, noNaN: true }), { nil: undefined }),
        fc.double({ min: 0, max: 0.9999999, noNaN: true }),
        (receiveCount, retryAfterSeconds, r) => {
          const delay = retryDelaySeconds({ receiveCount, retryAfterSeconds, random: () => r });
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(RETRY_BACKOFF.baseSeconds / 2);
          expect(delay).toBeLessThanOrEqual(Math.max(RETRY_BACKOFF.capSeconds, MAX_RETRY_AFTER_SECONDS));
        },
      ),
    );
  });
});
