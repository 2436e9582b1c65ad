import { describe, expect, it } from 'vitest';
import { scheduleCalendar } from './ical.js';
import { finalShifts } from './rotation.js';
import { override, rotation, schedule } from '../../test/support/oncall.js';

/**
 * No iCalendar parser is installed, so the test reads the text back by RFC 5545's own rules:
 * unfold continuation lines (CRLF + space), split into components, and turn each UTC
 * `DTSTART`/`DTEND` (`YYYYMMDDTHHMMSSZ`) back into an instant.
 */
type Event = Record<string, string>;

function parse(text: string): { calendar: Event; events: Event[] } {
  expect(text.split('\r\n').every((line) => line.length <= 75 || line.startsWith(' '))).toBe(true);
  const lines = text.replace(/\r\n /g, '').split('\r\n').filter(Boolean);
  const calendar: Event = {};
  const events: Event[] = [];
  let current: Event | null = null;
  for (const line of lines) {
    if (line === 'BEGIN:VEVENT') current = {};
    else if (line === 'END:VEVENT' && current) events.push(current), (current = null);
    else {
      const colon = line.indexOf(':');
      (current ?? calendar)[line.slice(0, colon)] = line.slice(colon + 1);
    }
  }
  expect(lines[0]).toBe('BEGIN:VCALENDAR');
  expect(lines.at(-1)).toBe('END:VCALENDAR');
  return { calendar, events };
}

const instant = (value: string | undefined): string => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!m) throw new Error(`not a UTC date-time: ${value}`);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z`;
};

const ny = schedule(
  'America/New_York',
  [rotation({ id: 4, effectiveFrom: '2026-03-01T14:00:00.000Z' })],
  [override({ id: 9, overrideUserId: 3, startAt: '2026-03-08T20:00:00.000Z', endAt: '2026-03-09T02:00:00.000Z' })],
);
const from = new Date('2026-03-06T14:00:00.000Z');
const to = new Date('2026-03-10T13:00:00.000Z');
const users = new Map([
  [1, { name: 'Ann', email: 'ann@example.com' }],
  [2, { name: null, email: 'bo@example.com' }],
  [3, { name: 'Cy; "night", owl', email: 'cy@example.com' }],
]);
const text = scheduleCalendar(ny, from, to, { scheduleId: 12, name: 'Primary on-call', generatedAt: new Date('2026-03-01T00:00:00.000Z'), users });

describe('scheduleCalendar', () => {
  it('has one VEVENT per final shift, overrides included, with the same UTC instants', () => {
    const { events } = parse(text);
    const shifts = finalShifts(ny, from, to);
    expect(shifts.some((s) => s.overrideId === 9)).toBe(true);
    expect(events.map((e) => [instant(e.DTSTART), instant(e.DTEND)])).toEqual(shifts.map((s) => [s.startAt, s.endAt]));
    expect(events.map((e) => e.SUMMARY)).toEqual([
      'On call: bo@example.com',
      'On call: Ann',
      'On call: bo@example.com',
      'On call: Cy\\; "night"\\, owl (override)',
      'On call: bo@example.com',
      'On call: Ann',
    ]);
    expect(events.map((e) => e['X-VIGIL-USER-ID'])).toEqual(['2', '1', '2', '3', '2', '1']);
  });

  it('keeps 09:00 New York on both sides of the spring change: 14:00Z before, 13:00Z after, local time in the description', () => {
    const { events } = parse(text);
    expect(events.map((e) => e.DTSTART)).toEqual(['20260306T140000Z', '20260307T140000Z', '20260308T130000Z', '20260308T200000Z', '20260309T020000Z', '20260309T130000Z']);
    expect(events[1]?.DESCRIPTION).toBe('2026-03-07 09:00 to 2026-03-08 09:00 America/New_York\\; rotation 4 (layer 0)');
    expect(events[3]?.DESCRIPTION).toBe('2026-03-08 16:00 to 2026-03-08 22:00 America/New_York\\; override 9');
  });

  it('writes no floating times or TZIDs, names the zone for display, and stamps with the given instant', () => {
    const { calendar, events } = parse(text);
    expect(text).not.toContain('TZID');
    expect(calendar['X-WR-TIMEZONE']).toBe('America/New_York');
    expect(calendar['X-WR-CALNAME']).toBe('Primary on-call');
    expect(calendar.PRODID).toBe('-//vigil//on-call//EN');
    expect(new Set(events.map((e) => e.DTSTAMP))).toEqual(new Set(['20260301T000000Z']));
  });

  it('gives each shift a UID that is stable across downloads and unique within the feed', () => {
    const again = scheduleCalendar(ny, from, to, { scheduleId: 12, name: 'Primary on-call', generatedAt: new Date('2026-03-02T00:00:00.000Z'), users });
    const uids = parse(text).events.map((e) => e.UID);
    expect(parse(again).events.map((e) => e.UID)).toEqual(uids);
    expect(new Set(uids).size).toBe(uids.length);
    expect(uids[0]).toBe(`oncall-12-${Date.parse('2026-03-06T14:00:00.000Z')}-2@vigil`);
  });

  it('is an empty calendar when nobody is on call in the range', () => {
    const empty = scheduleCalendar(schedule('Europe/Berlin', []), from, to, { scheduleId: 1, name: 'Empty', generatedAt: from });
    expect(parse(empty).events).toEqual([]);
  });
});
