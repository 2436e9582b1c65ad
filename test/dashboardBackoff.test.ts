import { describe, expect, it } from 'vitest';
import { BACKOFF, backoffDelay } from '../web/src/live/backoff.js';

/** The dashboard's stream reconnects with exponential backoff and full jitter (web/src/live/backoff.ts). */
describe('the live stream reconnect delay', () => {
  it('grows from 0.5 s doubling per attempt up to 30 s, with the whole range drawn at random', () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 7, 20].map((attempt) => backoffDelay(attempt, () => 0.999999));
    expect(ceilings).toEqual([499, 999, 1999, 3999, 7999, 15999, 29999, 29999, 29999]);
    expect(backoffDelay(3, () => 0)).toBe(0);
    expect(backoffDelay(3, () => 0.5)).toBe(2000);
  });

  it('spreads clients that lost the server at the same moment', () => {
    const delays = Array.from({ length: 200 }, () => backoffDelay(4));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(BACKOFF.baseMs * 2 ** 4);
    // Full jitter: not one instant for everyone.
    expect(new Set(delays).size).toBeGreaterThan(100);
  });
});
