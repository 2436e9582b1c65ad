import { CronExpressionParser, type CronExpression } from 'cron-parser';

/**
 * Cron schedules of heartbeat checks (docs/guide/cron.md): a 5-field crontab expression or an `@daily`-style
 * macro, read as wall-clock time in an IANA zone. Pure: no clock, no I/O. A scheduled check is
 * due at the first occurrence strictly after its last ping (or resume), so across a DST change the
 * job is still expected at its local time (02:30 that does not exist that night the
 * parser moves to right after the gap, 01:30 that happens twice fires once).
 */

export const MAX_SCHEDULE_LENGTH = 100;
const FIELD_COUNT = 5;
const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly', '@weekdays', '@weekends']);
/** Field ranges of a 5-field expression: minute, hour, day of month, month, day of week (7 is Sunday too). */
const FIELD_BOUNDS: readonly (readonly [string, number, number])[] = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 7],
];

/** True when the runtime knows the IANA zone (Intl throws a RangeError on an unknown one); offsets are refused. */
export function isValidTimezone(timezone: string): boolean {
  if (timezone.trim() === '' || timezone.length > 64 || /^[+-]/.test(timezone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Numbers in one field that fall outside its bounds (cron-parser accepts some, e.g. a step past the end). */
function outOfBounds(field: string, index: number): string | undefined {
  const [name, min, max] = FIELD_BOUNDS[index] ?? ['field', 0, 0];
  for (const part of field.split(',')) {
    const [range = '', step] = part.split('/');
    if (step !== undefined && !/^\d+$/.test(step)) return `${name}: the step must be a number`;
    if (step !== undefined && (Number(step) < 1 || Number(step) > max)) return `${name}: step ${step} is out of range`;
    for (const value of range.split('-')) {
      if (/^\d+$/.test(value) && (Number(value) < min || Number(value) > max)) return `${name}: ${value} is outside ${min}-${max}`;
    }
  }
  return undefined;
}

/** Why an expression is refused (for the 400's details), or undefined when it is usable. */
export function scheduleProblem(expression: string, timezone: string): string | undefined {
  const trimmed = expression.trim();
  if (trimmed === '') return 'must not be empty';
  if (trimmed.length > MAX_SCHEDULE_LENGTH) return `must be at most ${MAX_SCHEDULE_LENGTH} characters`;
  if (trimmed.startsWith('@')) {
    if (!MACROS.has(trimmed.toLowerCase())) return `unknown macro ${trimmed}`;
  } else {
    const fields = trimmed.split(/\s+/);
    if (fields.length !== FIELD_COUNT) return 'must have five fields: minute hour day-of-month month day-of-week';
    // Month and weekday names (THU) may hold an H; a bare H is cron-parser's random one.
    if (/h/i.test(trimmed.replace(/[a-z]{3}/gi, ''))) return 'the H (hash) character is not supported';
    for (const [index, field] of fields.entries()) {
      const problem = outOfBounds(field, index);
      if (problem) return problem;
    }
  }
  if (!isValidTimezone(timezone)) return 'unknown time zone';
  try {
    parse(trimmed, timezone, new Date(0));
  } catch (err) {
    return err instanceof Error ? err.message : 'invalid cron expression';
  }
  return nextOccurrence(trimmed, timezone, new Date(0)) ? undefined : 'the expression never fires';
}

function parse(expression: string, timezone: string, currentDate: Date): CronExpression {
  return CronExpressionParser.parse(expression.trim(), { currentDate, tz: timezone });
}

/**
 * cron-parser can give up ("loop limit exceeded") on an occurrence that falls on an odd DST
 * transition (Lord Howe's 30-minute one). Starting further on, in doubling steps, passes it in a
 * bounded number of tries; that one occurrence is skipped.
 */
const GLITCH_FIRST_STEP_MS = 3_600_000;
const GLITCH_RETRIES = 13;

/** The first occurrence strictly after `after`, or null when the expression never fires again. */
export function nextOccurrence(expression: string, timezone: string, after: Date): Date | null {
  for (let retry = 0, skip = 0; retry <= GLITCH_RETRIES; retry++, skip = GLITCH_FIRST_STEP_MS * 2 ** (retry - 1)) {
    try {
      const next = parse(expression, timezone, new Date(after.getTime() + skip))
        .next()
        .toDate();
      // cron-parser works in whole seconds: never answer the instant itself (or before it).
      if (next.getTime() > after.getTime()) return next;
      return nextOccurrence(expression, timezone, new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000));
    } catch {
      // a glitch: start later
    }
  }
  return null;
}

/**
 * The shortest gap between the next few occurrences after `from`, in seconds: what the plan's
 * interval floor and the dashboard's inbound minimum judge a schedule by.
 */
export function shortestGapSeconds(expression: string, timezone: string, from: Date, samples = 8): number {
  let shortest = Number.POSITIVE_INFINITY;
  let previous = nextOccurrence(expression, timezone, from);
  for (let i = 0; i < samples && previous; i++) {
    const next = nextOccurrence(expression, timezone, previous);
    if (!next) break;
    shortest = Math.min(shortest, (next.getTime() - previous.getTime()) / 1000);
    previous = next;
  }
  return Number.isFinite(shortest) ? Math.round(shortest) : 0;
}
