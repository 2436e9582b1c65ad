import { describe, expect, it } from 'vitest';
import { finalShifts, onCallAt } from './rotation.js';
import { hoursOf, localOf, rotation, schedule } from '../../test/support/oncall.js';

/**
 * Golden vectors: a handoff at 09:00 local stays at 09:00 local on both sides of each DST change
 * of 2026, so the shift that spans it lasts 23 or 25 hours. The UTC instants were worked out by
 * hand from the zones' offsets (tzdb 2026), not from the code under test.
 */
type Vector = { zone: string; from: string; to: string; startsUtc: string[]; hours: number[] };

const vectors: Record<string, Vector> = {
  'America/New_York spring forward (Sun 8 Mar, EST -5 -> EDT -4)': {
    zone: 'America/New_York',
    from: '2026-03-06T14:00:00.000Z',
    to: '2026-03-10T13:00:00.000Z',
    startsUtc: ['2026-03-06T14:00:00.000Z', '2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z'],
    hours: [24, 23, 24, 24],
  },
  'America/New_York fall back (Sun 1 Nov, EDT -4 -> EST -5)': {
    zone: 'America/New_York',
    from: '2026-10-30T13:00:00.000Z',
    to: '2026-11-03T14:00:00.000Z',
    startsUtc: ['2026-10-30T13:00:00.000Z', '2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z', '2026-11-02T14:00:00.000Z'],
    hours: [24, 25, 24, 24],
  },
  'Europe/Berlin spring forward (Sun 29 Mar, CET +1 -> CEST +2)': {
    zone: 'Europe/Berlin',
    from: '2026-03-27T08:00:00.000Z',
    to: '2026-03-31T07:00:00.000Z',
    startsUtc: ['2026-03-27T08:00:00.000Z', '2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z'],
    hours: [24, 23, 24, 24],
  },
  'Europe/Berlin fall back (Sun 25 Oct, CEST +2 -> CET +1)': {
    zone: 'Europe/Berlin',
    from: '2026-10-23T07:00:00.000Z',
    to: '2026-10-27T08:00:00.000Z',
    startsUtc: ['2026-10-23T07:00:00.000Z', '2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z'],
    hours: [24, 25, 24, 24],
  },
  'Australia/Sydney DST ends (Sun 5 Apr, AEDT +11 -> AEST +10)': {
    zone: 'Australia/Sydney',
    from: '2026-04-02T22:00:00.000Z',
    to: '2026-04-06T23:00:00.000Z',
    startsUtc: ['2026-04-02T22:00:00.000Z', '2026-04-03T22:00:00.000Z', '2026-04-04T23:00:00.000Z', '2026-04-05T23:00:00.000Z'],
    hours: [24, 25, 24, 24],
  },
  'Australia/Sydney DST starts (Sun 4 Oct, AEST +10 -> AEDT +11)': {
    zone: 'Australia/Sydney',
    from: '2026-10-01T23:00:00.000Z',
    to: '2026-10-05T22:00:00.000Z',
    startsUtc: ['2026-10-01T23:00:00.000Z', '2026-10-02T23:00:00.000Z', '2026-10-03T22:00:00.000Z', '2026-10-04T22:00:00.000Z'],
    hours: [24, 23, 24, 24],
  },
  'Asia/Kolkata (+05:30, no DST) while New York springs forward': {
    zone: 'Asia/Kolkata',
    from: '2026-03-06T03:30:00.000Z',
    to: '2026-03-10T03:30:00.000Z',
    startsUtc: ['2026-03-06T03:30:00.000Z', '2026-03-07T03:30:00.000Z', '2026-03-08T03:30:00.000Z', '2026-03-09T03:30:00.000Z'],
    hours: [24, 24, 24, 24],
  },
  'Asia/Kolkata (+05:30, no DST) while Berlin falls back': {
    zone: 'Asia/Kolkata',
    from: '2026-10-23T03:30:00.000Z',
    to: '2026-10-27T03:30:00.000Z',
    startsUtc: ['2026-10-23T03:30:00.000Z', '2026-10-24T03:30:00.000Z', '2026-10-25T03:30:00.000Z', '2026-10-26T03:30:00.000Z'],
    hours: [24, 24, 24, 24],
  },
};

describe('daily 09:00 handoff across DST (golden vectors)', () => {
  for (const [name, v] of Object.entries(vectors)) {
    it(name, () => {
      // The rotation starts two weeks earlier, so the turn count through the change is exercised too.
      const effectiveFrom = new Date(Date.parse(v.from) - 14 * 86_400_000).toISOString();
      const s = schedule(v.zone, [rotation({ effectiveFrom })]);
      const shifts = finalShifts(s, new Date(v.from), new Date(v.to));
      expect(shifts.map((x) => x.startAt)).toEqual(v.startsUtc);
      expect(shifts.map(hoursOf)).toEqual(v.hours);
      expect(shifts.map((x) => localOf(x.startAt, v.zone).slice(11))).toEqual(['09:00', '09:00', '09:00', '09:00']);
      expect(shifts.map((x) => localOf(x.endAt, v.zone).slice(11))).toEqual(['09:00', '09:00', '09:00', '09:00']);
      // Two participants alternate whatever the shift's length.
      expect(shifts.map((x) => x.userId)).toEqual([1, 2, 1, 2]);
      // The on-call answer in the hour the change makes ambiguous agrees with the shift list.
      const long = shifts.find((x) => hoursOf(x) !== 24) ?? shifts[1]!;
      const mid = new Date((Date.parse(long.startAt) + Date.parse(long.endAt)) / 2);
      expect(onCallAt(s, mid)).toMatchObject({ userId: long.userId, shiftStart: long.startAt, shiftEnd: long.endAt });
    });
  }
});

describe('weekly and custom rotations across DST', () => {
  it('weekly Monday 09:00 in New York: 167 hours in March, 169 in November, always Monday 09:00', () => {
    const s = schedule('America/New_York', [rotation({ type: 'weekly', handoffDay: 1, effectiveFrom: '2026-01-05T14:00:00.000Z' })]);
    const spring = finalShifts(s, new Date('2026-03-02T14:00:00.000Z'), new Date('2026-03-16T13:00:00.000Z'));
    expect(spring.map((x) => [x.startAt, hoursOf(x)])).toEqual([
      ['2026-03-02T14:00:00.000Z', 167],
      ['2026-03-09T13:00:00.000Z', 168],
    ]);
    const fall = finalShifts(s, new Date('2026-10-26T13:00:00.000Z'), new Date('2026-11-09T14:00:00.000Z'));
    expect(fall.map((x) => [x.startAt, hoursOf(x)])).toEqual([
      ['2026-10-26T13:00:00.000Z', 169],
      ['2026-11-02T14:00:00.000Z', 168],
    ]);
    expect([...spring, ...fall].map((x) => localOf(x.startAt, 'America/New_York'))).toEqual(['2026-03-02T09:00', '2026-03-09T09:00', '2026-10-26T09:00', '2026-11-02T09:00']);
  });

  it('weekly: the first turn runs from effectiveFrom (a Wednesday) to the first handoff day (Friday 17:00 Berlin)', () => {
    const s = schedule('Europe/Berlin', [rotation({ type: 'weekly', handoffDay: 5, handoffTime: '17:00', effectiveFrom: '2026-03-25T10:00:00.000Z' })]);
    const shifts = finalShifts(s, new Date('2026-03-25T10:00:00.000Z'), new Date('2026-04-10T15:00:00.000Z'));
    expect(shifts.map((x) => [x.userId, localOf(x.startAt, 'Europe/Berlin'), hoursOf(x)])).toEqual([
      [1, '2026-03-25T11:00', 54],
      [2, '2026-03-27T17:00', 167],
      [1, '2026-04-03T17:00', 168],
    ]);
  });

  it('custom 12-hour shifts keep 09:00 and 21:00 local in Sydney (11 hours across the spring change)', () => {
    const s = schedule('Australia/Sydney', [rotation({ type: 'custom', customShiftHours: 12, effectiveFrom: '2026-10-02T23:00:00.000Z' })]);
    const shifts = finalShifts(s, new Date('2026-10-02T23:00:00.000Z'), new Date('2026-10-04T10:00:00.000Z'));
    expect(shifts.map((x) => [localOf(x.startAt, 'Australia/Sydney'), hoursOf(x)])).toEqual([
      ['2026-10-03T09:00', 12],
      ['2026-10-03T21:00', 11],
      ['2026-10-04T09:00', 12],
    ]);
  });

  it('a handoff inside the spring-forward gap happens at the offset before the change (02:30 -> 03:30 EDT), as RFC 5545 says', () => {
    const s = schedule('America/New_York', [rotation({ handoffTime: '02:30', effectiveFrom: '2026-03-01T07:30:00.000Z' })]);
    const shifts = finalShifts(s, new Date('2026-03-07T07:30:00.000Z'), new Date('2026-03-10T06:30:00.000Z'));
    expect(shifts.map((x) => [x.startAt, hoursOf(x)])).toEqual([
      ['2026-03-07T07:30:00.000Z', 24],
      ['2026-03-08T07:30:00.000Z', 23],
      ['2026-03-09T06:30:00.000Z', 24],
    ]);
  });

  it('a handoff in the fall-back overlap happens at its first occurrence (01:30 EDT), and the next day at 01:30 EST', () => {
    const s = schedule('America/New_York', [rotation({ handoffTime: '01:30', effectiveFrom: '2026-10-20T05:30:00.000Z' })]);
    const shifts = finalShifts(s, new Date('2026-10-31T05:30:00.000Z'), new Date('2026-11-02T06:30:00.000Z'));
    expect(shifts.map((x) => [x.startAt, hoursOf(x)])).toEqual([
      ['2026-10-31T05:30:00.000Z', 24],
      ['2026-11-01T05:30:00.000Z', 25],
    ]);
  });
});
