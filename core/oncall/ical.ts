import ical from 'ical-generator';
import { Temporal } from 'temporal-polyfill';
import { finalShifts, type ScheduleSpec } from './rotation.js';
import type { Shift } from './schema.js';

/**
 * The final schedule (after layers and overrides, which Grafana OnCall's calendar export left
 * out) as an iCalendar feed for a calendar app.
 *
 * Times are written in UTC (`DTSTART:20260308T130000Z`): an instant needs no VTIMEZONE, every
 * client reads it, and it cannot be shifted by a client's idea of DST. ical-generator would write a
 * floating local time if given a calendar time zone with plain Dates, so none is set; the zone is
 * only named in `X-WR-TIMEZONE` (display hint) and in each event's description, which also gives
 * the shift in the schedule's local time.
 */
export type CalendarUser = { name: string | null; email: string };

export type CalendarOptions = {
  scheduleId: number;
  name: string;
  /** DTSTAMP of every event: the caller's clock instant (this module never reads a clock). */
  generatedAt: Date;
  users?: ReadonlyMap<number, CalendarUser>;
  /** Right-hand side of each UID; UIDs are stable for the same shift across downloads. */
  uidDomain?: string;
};

const localText = (at: string, timeZone: string): string =>
  Temporal.Instant.from(at).toZonedDateTimeISO(timeZone).toPlainDateTime().toString({ smallestUnit: 'minute' }).replace('T', ' ');

function summaryOf(shift: Shift, users: ReadonlyMap<number, CalendarUser> | undefined): string {
  const user = users?.get(shift.userId);
  const who = user ? (user.name ?? user.email) : `user ${shift.userId}`;
  return shift.overrideId === null ? `On call: ${who}` : `On call: ${who} (override)`;
}

function descriptionOf(shift: Shift, timeZone: string): string {
  const source = shift.overrideId === null ? `rotation ${shift.rotationId} (layer ${shift.layerPosition})` : `override ${shift.overrideId}`;
  return `${localText(shift.startAt, timeZone)} to ${localText(shift.endAt, timeZone)} ${timeZone}; ${source}`;
}

/** The final shifts in `[from, to)` (clipped to it) as an iCalendar string, one VEVENT per shift. */
export function scheduleCalendar(schedule: ScheduleSpec, from: Date, to: Date, options: CalendarOptions): string {
  const domain = options.uidDomain ?? 'vigil';
  const calendar = ical({
    name: options.name,
    prodId: { company: 'vigil', product: 'on-call', language: 'EN' },
    x: [['X-WR-TIMEZONE', schedule.timezone]],
  });
  for (const shift of finalShifts(schedule, from, to)) {
    calendar.createEvent({
      id: `oncall-${options.scheduleId}-${Date.parse(shift.startAt)}-${shift.userId}@${domain}`,
      start: new Date(shift.startAt),
      end: new Date(shift.endAt),
      stamp: options.generatedAt,
      summary: summaryOf(shift, options.users),
      description: descriptionOf(shift, schedule.timezone),
      x: [['X-VIGIL-USER-ID', String(shift.userId)]],
    });
  }
  return calendar.toString();
}
