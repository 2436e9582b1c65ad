import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  addInterval,
  dayUptime,
  mergeRollups,
  readUptime,
  rollupDeltas,
  uptimeDates,
  utcDate,
  worstRollups,
  type DayRollup,
  type MaintenanceSpan,
  type ObservedState,
  type StatusInterval,
} from './uptime.js';

const BASE = Date.parse('2026-05-01T00:00:00.000Z');
const iso = (ms: number): string => new Date(BASE + ms).toISOString();
const NOW = new Date(BASE + 10 * DAY_MS + 5 * 3_600_000);
const EPS = 1e-9;

const state = fc.constantFrom<ObservedState>('UP', 'DOWN', 'UNOBSERVED');
/** Contiguous intervals over about ten days, starting somewhere in the first two. */
const timeline: fc.Arbitrary<StatusInterval[]> = fc
  .tuple(fc.integer({ min: 0, max: 2 * DAY_MS }), fc.array(fc.tuple(state, fc.integer({ min: 1, max: 2 * DAY_MS })), { maxLength: 12 }))
  .map(([start, pieces]) => {
    let at = start;
    return pieces.map(([s, length]) => {
      const interval = { start: iso(at), end: iso(at + length), state: s };
      at += length;
      return interval;
    });
  });
const span: fc.Arbitrary<MaintenanceSpan> = fc
  .tuple(fc.integer({ min: 0, max: 10 * DAY_MS }), fc.option(fc.integer({ min: 1, max: 3 * DAY_MS }), { nil: null }))
  .map(([start, length]) => ({ start: iso(start), end: length === null ? null : iso(start + length) }));
const spans = fc.array(span, { maxLength: 3 });

/** The store's way: each interval added to the buckets as it closes. */
const rollupsOf = (intervals: readonly StatusInterval[], maintenance: readonly MaintenanceSpan[]): DayRollup[] =>
  intervals.reduce<DayRollup[]>((buckets, interval) => addInterval(buckets, interval, maintenance), []);
const query = { now: NOW, days: 12, offset: 0, notBefore: iso(0) };

describe('rollupDeltas (properties)', () => {
  it('puts every observed second of an interval in exactly one UTC day, and nothing for unobserved time', () => {
    fc.assert(
      fc.property(timeline, spans, (intervals, maintenance) => {
        for (const interval of intervals) {
          const deltas = rollupDeltas(interval, maintenance);
          const seconds = deltas.reduce((sum, d) => sum + d.observedSeconds, 0);
          const expected = interval.state === 'UNOBSERVED' ? 0 : (Date.parse(interval.end) - Date.parse(interval.start)) / 1000;
          expect(seconds).toBeCloseTo(expected, 6);
          expect(new Set(deltas.map((d) => d.date)).size).toBe(deltas.length);
          for (const d of deltas) {
            expect(d.date >= utcDate(Date.parse(interval.start)) && d.date <= utcDate(Date.parse(interval.end) - 1)).toBe(true);
            expect(d.observedSeconds).toBeLessThanOrEqual(DAY_MS / 1000 + EPS);
            expect(d.downSeconds + d.maintenanceDownSeconds).toBeLessThanOrEqual(d.observedSeconds + EPS);
            expect(d.maintenanceDownSeconds).toBeLessThanOrEqual(d.maintenanceSeconds + EPS);
            if (interval.state === 'UP') expect(d.downSeconds + d.maintenanceDownSeconds).toBe(0);
          }
        }
      }),
    );
  });

  it('adds up the same however the timeline is cut into intervals', () => {
    fc.assert(
      fc.property(timeline, spans, fc.double({ min: 0, max: 1, noNaN: true }), (intervals, maintenance, where) => {
        const cut = intervals.flatMap((interval) => {
          const start = Date.parse(interval.start);
          const middle = start + Math.floor((Date.parse(interval.end) - start) * where);
          return [
            { ...interval, end: new Date(middle).toISOString() },
            { ...interval, start: new Date(middle).toISOString() },
          ];
        });
        const whole = rollupsOf(intervals, maintenance);
        const pieces = rollupsOf(cut, maintenance).filter((d) => d.observedSeconds > 0);
        expect(pieces.map((d) => d.date)).toEqual(whole.map((d) => d.date));
        pieces.forEach((d, i) => {
          expect(d.observedSeconds).toBeCloseTo(whole[i]!.observedSeconds, 6);
          expect(d.downSeconds).toBeCloseTo(whole[i]!.downSeconds, 6);
          expect(d.maintenanceDownSeconds).toBeCloseTo(whole[i]!.maintenanceDownSeconds, 6);
        });
      }),
    );
  });
});

describe('readUptime (properties)', () => {
  it('keeps every day within [0, 1] or null, newest last, and null exactly where nothing was observed', () => {
    fc.assert(
      fc.property(timeline, spans, fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 5 }), (intervals, maintenance, days, offset) => {
        const rollups = rollupsOf(intervals, maintenance);
        const read = readUptime(rollups, { ...query, days, offset });
        expect(read.days.map((d) => d.date)).toEqual(uptimeDates(NOW, days, offset));
        expect(read.days.at(-1)!.date).toBe(utcDate(NOW.getTime() - offset * DAY_MS));
        for (const day of read.days) {
          const item = rollups.find((r) => r.date === day.date);
          expect(day.uptime === null).toBe(!item || item.observedSeconds <= 0);
          if (day.uptime !== null) expect(day.uptime >= 0 && day.uptime <= 1).toBe(true);
        }
        if (read.uptime !== null) expect(read.uptime >= 0 && read.uptime <= 1).toBe(true);
        expect(read.uptime === null).toBe(read.days.every((d) => d.uptime === null));
      }),
    );
  });

  it('never lowers a day, or the range, when maintenance is added', () => {
    fc.assert(
      fc.property(timeline, spans, span, (intervals, maintenance, extra) => {
        const without = readUptime(rollupsOf(intervals, maintenance), query);
        const withExtra = readUptime(rollupsOf(intervals, [...maintenance, extra]), query);
        withExtra.days.forEach((day, i) => {
          const before = without.days[i]!;
          expect(day.uptime === null).toBe(before.uptime === null);
          if (day.uptime !== null) expect(day.uptime).toBeGreaterThanOrEqual(before.uptime! - EPS);
        });
        if (withExtra.uptime !== null) expect(withExtra.uptime).toBeGreaterThanOrEqual(without.uptime! - EPS);
      }),
    );
  });

  it('shows a component created mid-range as null before its creation day', () => {
    fc.assert(
      fc.property(timeline, spans, fc.integer({ min: 0, max: 10 * DAY_MS }), (intervals, maintenance, createdOffset) => {
        const createdAt = iso(createdOffset);
        const read = readUptime(rollupsOf(intervals, maintenance), { ...query, notBefore: createdAt });
        for (const day of read.days) if (day.date < utcDate(Date.parse(createdAt))) expect(day.uptime).toBeNull();
      }),
    );
  });

  it('takes a project day as the worst of its checks', () => {
    fc.assert(
      fc.property(fc.array(timeline, { minLength: 1, maxLength: 3 }), spans, (timelines, maintenance) => {
        const perCheck = timelines.map((intervals) => rollupsOf(intervals, maintenance));
        const project = readUptime(worstRollups(perCheck), query);
        const checks = perCheck.map((rollups) => readUptime(rollups, query));
        project.days.forEach((day, i) => {
          const observed = checks.map((c) => c.days[i]!.uptime).filter((u): u is number => u !== null);
          expect(day.uptime).toBe(observed.length === 0 ? null : Math.min(...observed));
        });
      }),
    );
  });
});

describe('uptime (examples)', () => {
  const day = (hours: number) => iso(hours * 3_600_000);

  it('reads one hour down in a watched day as 23/24, and excuses down time inside maintenance', () => {
    const intervals: StatusInterval[] = [
      { start: day(24), end: day(30), state: 'UP' },
      { start: day(30), end: day(31), state: 'DOWN' },
      { start: day(31), end: day(48), state: 'UP' },
    ];
    const plain = readUptime(rollupsOf(intervals, []), query).days.find((d) => d.date === '2026-05-02')!;
    expect(plain).toEqual({ date: '2026-05-02', uptime: 23 / 24, downSeconds: 3600, maintenanceSeconds: 0 });
    const excused = readUptime(rollupsOf(intervals, [{ start: day(29), end: day(32) }]), query).days.find((d) => d.date === '2026-05-02')!;
    expect(excused).toEqual({ date: '2026-05-02', uptime: 1, downSeconds: 0, maintenanceSeconds: 3 * 3600 });
  });

  it('splits an interval across midnight and keeps paused time out of the day', () => {
    const deltas = rollupDeltas({ start: day(23), end: day(26), state: 'DOWN' }, []);
    expect(deltas.map((d) => [d.date, d.downSeconds])).toEqual([
      ['2026-05-01', 3600],
      ['2026-05-02', 7200],
    ]);
    expect(rollupDeltas({ start: day(0), end: day(5), state: 'UNOBSERVED' }, [])).toEqual([]);
    expect(dayUptime(undefined)).toBeNull();
  });

  it('merges the open interval at read time with the stored items', () => {
    const stored = rollupDeltas({ start: day(240), end: day(244), state: 'UP' }, []);
    const open = rollupDeltas({ start: day(244), end: NOW.toISOString(), state: 'DOWN' }, []);
    const today = readUptime(mergeRollups(stored, open), query).days.at(-1)!;
    expect(today).toMatchObject({ date: '2026-05-11', downSeconds: 3600, uptime: 4 / 5 });
  });
});
