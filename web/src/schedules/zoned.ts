import { Temporal } from 'temporal-polyfill';

/**
 * Wall-clock conversions in a schedule's IANA zone, with Temporal (the server's own time-zone
 * library, core/oncall/turns.ts), so a 09:00 handoff on either side of a DST change reads 09:00
 * here as it does there. Display-only formatting uses Intl with `timeZone` (ui/time.tsx), so a
 * screen that only shows times never loads this module's Temporal.
 */
const zoned = (ms: number, timeZone: string) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(timeZone);

/** Today's date in the zone, by the page's clock (`2026-03-23`). */
export const todayIn = (timeZone: string): string => zoned(Date.now(), timeZone).toPlainDate().toString();

/** The instant a local date starts in the zone (a DST day is 23 or 25 hours long). */
export const startOfDay = (date: string, timeZone: string): number => Temporal.PlainDate.from(date).toZonedDateTime({ timeZone }).epochMilliseconds;

export const addDays = (date: string, days: number): string => Temporal.PlainDate.from(date).add({ days }).toString();

/** Whether a string is a calendar date the zone can start (`2026-02-30` is not). */
export function isDate(value: string | null): value is string {
  if (value === null || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  try {
    Temporal.PlainDate.from(value, { overflow: 'reject' });
    return true;
  } catch {
    return false;
  }
}

/** The value of an `<input type=datetime-local>` for an instant, in the zone (`2026-03-23T09:00`). */
export const localInput = (ms: number, timeZone: string): string => zoned(ms, timeZone).toPlainDateTime().toString({ smallestUnit: 'minute' });

/** An `<input type=datetime-local>` value read in the zone as an instant (ISO, UTC); null when incomplete. */
export function instantOfLocal(value: string, timeZone: string): string | null {
  if (value.trim() === '') return null;
  try {
    return Temporal.PlainDateTime.from(value).toZonedDateTime(timeZone, { disambiguation: 'compatible' }).toInstant().toString();
  } catch {
    return null;
  }
}

/** The nearest half hour in the zone's wall clock: a selection on the timeline snaps to it. */
export const snapHalfHour = (ms: number, timeZone: string): number => zoned(ms, timeZone).round({ smallestUnit: 'minute', roundingIncrement: 30 }).epochMilliseconds;

export function isTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === '' || /^[+\-\d]/.test(timeZone)) return false;
  try {
    zoned(0, timeZone);
    return true;
  } catch {
    return false;
  }
}
