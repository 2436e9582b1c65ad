import type { ResponseHeaders } from './types.js';

/**
 * A response's `Retry-After` in seconds from `now`, or null when it asks for nothing usable.
 * RFC 9110 section 10.2.3 allows delay-seconds or an HTTP-date; an HTTP-date already past asks
 * for no wait (0: the caller's normal backoff applies). Anything else (a negative or fractional
 * number, a date in no HTTP-date form) is ignored, never guessed at: `Date.parse` would take
 * "1" as the year 2001.
 */
export function retryAfterSeconds(headers: ResponseHeaders, now: Date): number | null {
  const raw = headers['retry-after'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (value === undefined || value === '') return null;
  if (/^\d+$/.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  const at = parseHttpDate(value, now);
  if (at === null) return null;
  return Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 1000));
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = DAYS.join('|');
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// The three forms a recipient must accept (RFC 9110 section 5.6.7), always in GMT.
const IMF_FIXDATE = new RegExp(`^(${DAY}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^(${LONG_DAYS.join('|')}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^(${DAY}) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

type Parts = { weekday: number; day: number; month: number; year: number; hour: number; minute: number; second: number };

function partsOf(value: string, now: Date): Parts | null {
  let m = IMF_FIXDATE.exec(value);
  if (m)
    return { weekday: DAYS.indexOf(m[1]!), day: Number(m[2]), month: MONTHS.indexOf(m[3]!), year: Number(m[4]), hour: Number(m[5]), minute: Number(m[6]), second: Number(m[7]) };
  m = RFC_850.exec(value);
  if (m) {
    // A two-digit year more than 50 years ahead is the previous century's (RFC 9110 section 5.6.7).
    const thisYear = now.getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[4]);
    if (year > thisYear + 50) year -= 100;
    return { weekday: LONG_DAYS.indexOf(m[1]!), day: Number(m[2]), month: MONTHS.indexOf(m[3]!), year, hour: Number(m[5]), minute: Number(m[6]), second: Number(m[7]) };
  }
  m = ASCTIME.exec(value);
  if (m)
    return {
      weekday: DAYS.indexOf(m[1]!),
      month: MONTHS.indexOf(m[2]!),
      day: Number(m[3]!.trim()),
      hour: Number(m[4]),
      minute: Number(m[5]),
      second: Number(m[6]),
      year: Number(m[7]),
    };
  return null;
}

/**
 * An HTTP-date as an instant, or null; a date that does not exist (31 Feb, a wrong weekday) is
 * null too. `now` places an RFC 850 two-digit year.
 */
export function parseHttpDate(value: string, now: Date): Date | null {
  const p = partsOf(value, now);
  if (!p) return null;
  const at = new Date(Date.UTC(p.year, p.month, p.day, p.hour, p.minute, p.second));
  const exact =
    at.getUTCFullYear() === p.year &&
    at.getUTCMonth() === p.month &&
    at.getUTCDate() === p.day &&
    at.getUTCHours() === p.hour &&
    at.getUTCMinutes() === p.minute &&
    at.getUTCSeconds() === p.second &&
    at.getUTCDay() === p.weekday;
  return exact ? at : null;
}
