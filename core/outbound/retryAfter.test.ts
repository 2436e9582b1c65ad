import { describe, expect, it } from 'vitest';
import { parseHttpDate, retryAfterSeconds } from './retryAfter.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const header = (value: string | string[] | undefined) => retryAfterSeconds({ 'retry-after': value }, NOW);

describe('Retry-After (RFC 9110 section 10.2.3)', () => {
  it.each([
    ['120', 120],
    [' 5 ', 5],
    ['0', 0],
    [['30', '90'], 30],
    // HTTP-date in its three forms, counted from the injected now.
    ['Sun, 01 Mar 2026 12:02:00 GMT', 120],
    ['Sunday, 01-Mar-26 12:00:30 GMT', 30],
    ['Sun Mar  1 12:10:00 2026', 600],
    // A date already past asks for no wait: the caller's backoff applies.
    ['Sun, 01 Mar 2026 11:00:00 GMT', 0],
    ['Sun, 06 Nov 1994 08:49:37 GMT', 0],
  ] as const)('%j -> %d seconds', (value, seconds) => {
    expect(header(value as string | string[])).toBe(seconds);
  });

  it.each([
    undefined,
    '',
    '1e3',
    '0x10',
    '12.5',
    '-60',
    '99999999999999999999',
    'soon',
    'Sun, 01 Mar 2026 12:02:00 UTC',
    'Mon, 01 Mar 2026 12:02:00 GMT',
    'Sun, 31 Feb 2026 12:02:00 GMT',
    'Sun, 01 Mar 2026 25:02:00 GMT',
    '2026-03-01T12:02:00Z',
  ])('%j is ignored', (value) => {
    expect(header(value)).toBeNull();
  });

  it('places a two-digit RFC 850 year in the century that keeps it at most 50 years ahead', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)?.toISOString()).toBe('1994-11-06T08:49:37.000Z');
    expect(parseHttpDate('Monday, 01-Mar-27 00:00:00 GMT', NOW)?.toISOString()).toBe('2027-03-01T00:00:00.000Z');
  });
});
