import { Temporal } from 'temporal-polyfill';
import type { HoursReportEntry } from './schema.js';

/** Night, for the on-call hours report: 22:00 to 07:00 local time (ours; pay rules vary, this is the common one). */
export const NIGHT_ENDS = Temporal.PlainTime.from('07:00');
export const NIGHT_STARTS = Temporal.PlainTime.from('22:00');

const HOUR_MS = 3_600_000;
const SATURDAY = 6;

type Piece = { userId: number; start: number; end: number };
type Tally = { shiftCount: number; total: number; weekday: number; weekend: number; night: number };

/**
 * Walks each piece one local calendar day at a time, cutting each day at 07:00 and 22:00 in the
 * zone. Day edges come from Temporal (`startOfDay` copes with zones whose midnight is skipped), and
 * lengths are differences of instants, so DST days count 23 or 25 real hours.
 */
function tallyPiece(tally: Tally, piece: Piece, timeZone: string): void {
  tally.shiftCount++;
  let cursor = piece.start;
  while (cursor < piece.end) {
    const day = Temporal.Instant.fromEpochMilliseconds(cursor).toZonedDateTimeISO(timeZone).toPlainDate();
    const at = (plainTime: Temporal.PlainTime) => day.toZonedDateTime({ timeZone, plainTime }).epochMilliseconds;
    const dayStart = day.toZonedDateTime({ timeZone }).epochMilliseconds;
    const nextDay = day.add({ days: 1 }).toZonedDateTime({ timeZone }).epochMilliseconds;
    const morning = at(NIGHT_ENDS);
    const evening = at(NIGHT_STARTS);
    const weekend = day.dayOfWeek >= SATURDAY;
    const overlap = (a: number, b: number) => Math.max(0, Math.min(b, piece.end) - Math.max(a, cursor));
    const all = overlap(dayStart, nextDay);
    tally.total += all;
    if (weekend) tally.weekend += all;
    else tally.weekday += all;
    tally.night += overlap(dayStart, morning) + overlap(evening, nextDay);
    cursor = nextDay;
  }
}

const hours = (ms: number): number => Math.round((ms / HOUR_MS) * 1e6) / 1e6;

/** Hours per user (ordered by user id) for the given final-schedule pieces. */
export function hoursByUser(pieces: readonly Piece[], timeZone: string): HoursReportEntry[] {
  const tallies = new Map<number, Tally>();
  for (const piece of pieces) {
    let tally = tallies.get(piece.userId);
    if (!tally) {
      tally = { shiftCount: 0, total: 0, weekday: 0, weekend: 0, night: 0 };
      tallies.set(piece.userId, tally);
    }
    tallyPiece(tally, piece, timeZone);
  }
  return [...tallies.entries()]
    .sort(([a], [b]) => a - b)
    .map(([userId, t]) => ({
      userId,
      shiftCount: t.shiftCount,
      totalHours: hours(t.total),
      weekdayHours: hours(t.weekday),
      weekendHours: hours(t.weekend),
      nightHours: hours(t.night),
    }));
}
