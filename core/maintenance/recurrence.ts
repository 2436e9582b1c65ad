import { CronExpressionParser, type CronExpression } from 'cron-parser';

/**
 * Recurring maintenance windows. The rule (also in docs/guide/windows.md):
 * - `startAt`..`endAt` is the template: its length D = endAt - startAt is the length of every
 *   occurrence, and no occurrence starts before `startAt`.
 * - Occurrences start at the cron expression's times (read in the window's IANA `timezone`) at or
 *   after `startAt`, and each lasts D. A cron time that is not `startAt` itself means the first
 *   occurrence is the first cron time after it.
 * - The window is ACTIVE during an occurrence and SCHEDULED between occurrences; a recurring
 *   window never completes by itself: the Integration API end (COMPLETED) or cancel (CANCELLED)
 *   stops the series. If occurrences overlap (D longer than the gap between them), the window
 *   stays ACTIVE from one into the next.
 * A one-time window (no cron) has exactly one occurrence: [startAt, endAt).
 */
export type Occurrence = { startAt: Date; endAt: Date };
export type WindowTiming = { startAt: Date; endAt: Date; recurringCron: string | null; timezone: string };
export type Plan = { state: 'SCHEDULED' | 'ACTIVE'; occurrence: Occurrence } | { state: 'COMPLETED'; occurrence: null };

/** True when the runtime knows the IANA zone (Intl throws a RangeError on an unknown one). */
export function isValidTimezone(timezone: string): boolean {
  if (timezone.trim() === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Five crontab fields or a named macro; `H` (random jitter) would move occurrences between runs. */
const FIELD_COUNT = 5;
const MACROS = new Set(['@yearly', '@monthly', '@weekly', '@daily', '@hourly', '@weekdays', '@weekends']);

/** Why a cron expression is refused, or undefined when it is usable. */
export function cronProblem(expression: string, timezone: string): string | undefined {
  const trimmed = expression.trim();
  if (trimmed === '') return 'must not be empty';
  if (trimmed.startsWith('@')) {
    if (!MACROS.has(trimmed.toLowerCase())) return `unknown macro ${trimmed}`;
  } else {
    if (trimmed.split(/\s+/).length !== FIELD_COUNT) return 'must have five fields: minute hour day-of-month month day-of-week';
    // Month and weekday names (THU) may hold an H; a bare H is the random one.
    if (/h/i.test(trimmed.replace(/[a-z]{3}/gi, ''))) return 'the H (hash) character is not supported';
  }
  try {
    parse(trimmed, timezone, new Date(0));
  } catch (err) {
    return err instanceof Error ? err.message : 'invalid cron expression';
  }
  return firstAfter(trimmed, timezone, new Date(0)) ? undefined : 'the expression never fires';
}

function parse(expression: string, timezone: string, currentDate: Date): CronExpression {
  return CronExpressionParser.parse(expression.trim(), { currentDate, tz: timezone });
}

/**
 * cron-parser can give up ("loop limit exceeded", after about half a second) on a fire time that
 * falls on an odd DST transition (Lord Howe's 30-minute one), from any starting point before it.
 * Starting further on, in doubling steps, passes the glitch in a bounded number of tries; that one
 * occurrence is skipped rather than the whole recurring window ending.
 */
const GLITCH_FIRST_STEP_MS = 3_600_000;
const GLITCH_RETRIES = 13; // the last step is about 170 days

/** The first cron time strictly after `after`, or null when the expression never fires again. */
function firstAfter(expression: string, timezone: string, after: Date): Date | null {
  for (let retry = 0, skip = 0; retry <= GLITCH_RETRIES; retry++, skip = GLITCH_FIRST_STEP_MS * 2 ** (retry - 1)) {
    try {
      return parse(expression, timezone, new Date(after.getTime() + skip))
        .next()
        .toDate();
    } catch {
      // a glitch: start later
    }
  }
  return null;
}

/**
 * The occurrence covering `now`, else the next one, else null. For a recurring window that is the
 * first cron time t >= startAt with t + D > now: it covers now when t <= now. Only `next()` is
 * used: cron-parser's `prev()` disagrees with `next()` on times that fall into a DST gap.
 */
export function occurrenceAt(window: WindowTiming, now: Date): Occurrence | null {
  const { startAt, endAt, recurringCron } = window;
  if (recurringCron === null) return endAt.getTime() > now.getTime() ? { startAt, endAt } : null;
  const length = endAt.getTime() - startAt.getTime();
  const after = new Date(Math.max(now.getTime() - length, startAt.getTime() - 1));
  const first = firstAfter(recurringCron, window.timezone, after);
  return first ? { startAt: first, endAt: new Date(first.getTime() + length) } : null;
}

/** Where a live window should be at `now`: the processor and every write go through this. */
export function planWindow(window: WindowTiming, now: Date): Plan {
  const occurrence = occurrenceAt(window, now);
  if (!occurrence) return { state: 'COMPLETED', occurrence: null };
  return { state: occurrence.startAt.getTime() <= now.getTime() ? 'ACTIVE' : 'SCHEDULED', occurrence };
}

/**
 * Whether an occurrence of a recurring window overlaps the closed range [from, to] (epoch ms,
 * either may be infinite) while the series ran: `stop` is when it was completed or cancelled.
 * Occurrences only move forward, so the first one that ends at or after `from` decides.
 */
export function occursWithin(window: WindowTiming, from: number, to: number, stop = Infinity): boolean {
  if (stop < from) return false;
  const probe = Number.isFinite(from) ? from - 1 : window.startAt.getTime();
  const occurrence = occurrenceAt(window, new Date(probe));
  if (!occurrence) return false;
  const start = occurrence.startAt.getTime();
  return start <= to && start < stop;
}
