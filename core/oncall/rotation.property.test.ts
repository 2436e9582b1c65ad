import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { finalShifts, gaps, onCallAt, type OverrideSpec, type RotationSpec, type ScheduleSpec } from './rotation.js';
import type { Shift } from './schema.js';

/**
 * Properties of the final schedule against a deliberately naive oracle: it counts handoffs one
 * calendar day (or one custom step) at a time and applies layers and overrides straight from
 * the definition in docs/guide/oncall-and-escalation.md, sharing no code with rotation.ts / turns.ts.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const YEAR_START = Date.parse('2026-01-01T00:00:00.000Z');

const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kolkata', 'UTC', 'Australia/Lord_Howe', 'America/Santiago', 'Pacific/Chatham'];
const zdt = (ms: number, tz: string) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz);
const iso = (ms: number) => new Date(ms).toISOString();

type Scenario = { schedule: ScheduleSpec; from: number; to: number; samples: number[] };

const rotationArb = (anchor: number, id: number): fc.Arbitrary<RotationSpec> =>
  fc
    .record({
      type: fc.constantFrom('daily' as const, 'weekly' as const, 'custom' as const),
      layerPosition: fc.integer({ min: 0, max: 2 }),
      back: fc.integer({ min: 0, max: 20 * 24 * 4 }), // quarter hours before the range starts
      length: fc.option(fc.integer({ min: 4, max: 60 * 24 * 4 }), { nil: null }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.constantFrom(0, 15, 30, 45),
      handoffDay: fc.integer({ min: 1, max: 7 }),
      customShiftHours: fc.constantFrom(1, 3, 5, 8, 12, 24, 36, 72),
      users: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 4 }),
    })
    .map((r) => {
      const effectiveFrom = anchor - r.back * 15 * MIN;
      return {
        id,
        type: r.type,
        layerPosition: r.layerPosition,
        effectiveFrom: iso(effectiveFrom),
        effectiveUntil: r.length === null ? null : iso(effectiveFrom + r.length * 15 * MIN),
        handoffTime: `${String(r.hour).padStart(2, '0')}:${String(r.minute).padStart(2, '0')}`,
        handoffDay: r.handoffDay,
        customShiftHours: r.type === 'custom' ? r.customShiftHours : null,
        participants: r.users.map((userId, position) => ({ userId, position })),
      };
    });

const overrideArb = (anchor: number, id: number): fc.Arbitrary<OverrideSpec> =>
  fc
    .record({
      start: fc.integer({ min: -2 * 24 * 4, max: 14 * 24 * 4 }),
      length: fc.integer({ min: 1, max: 5 * 24 * 4 }),
      user: fc.integer({ min: 1, max: 5 }),
      replaced: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
      created: fc.integer({ min: 0, max: 1000 }),
    })
    .map((o) => ({
      id,
      overrideUserId: o.user,
      replacedUserId: o.replaced === o.user ? null : o.replaced,
      startAt: iso(anchor + o.start * 15 * MIN),
      endAt: iso(anchor + (o.start + o.length) * 15 * MIN),
      createdAt: iso(YEAR_START + o.created * MIN),
    }));

/** Days of 2026 (0 = 1 January) on which one of ZONES changes its offset; half the ranges start near one. */
const CHANGE_DAYS = [66, 87, 94, 248, 269, 276, 297, 304];
const dayArb = fc.oneof(
  fc.integer({ min: 0, max: 340 }),
  fc.constantFrom(...CHANGE_DAYS).chain((d) => fc.integer({ min: d - 10, max: d + 1 })),
);

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({ zone: fc.constantFrom(...ZONES), day: dayArb, minute: fc.integer({ min: 0, max: 24 * 60 - 1 }) })
  .chain(({ zone, day, minute }) => {
    const from = YEAR_START + day * DAY + minute * MIN;
    return fc
      .record({
        schedule: fc.record({
          timezone: fc.constant(zone),
          rotations: fc.tuple(rotationArb(from, 1), rotationArb(from, 2), rotationArb(from, 3)).chain((all) => fc.subarray(all)),
          overrides: fc.tuple(overrideArb(from, 1), overrideArb(from, 2), overrideArb(from, 3)).chain((all) => fc.subarray(all)),
        }),
        from: fc.constant(from),
        to: fc.integer({ min: 1, max: 14 * 24 }).map((hours) => from + hours * HOUR),
        samples: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { minLength: 1, maxLength: 12 }),
      })
      .map((s) => ({ ...s, samples: s.samples.map((f) => s.from + Math.floor(f * (s.to - s.from))) }));
  });

/** Number of handoffs h with effectiveFrom < h <= t, found by walking days (or custom steps). */
function naiveHandoffs(r: RotationSpec, tz: string, from: number, t: number): number {
  let count = 0;
  if (r.type === 'custom') {
    const start = zdt(from, tz).toPlainDateTime();
    for (let k = 1; ; k++) {
      const h = start.add({ hours: k * (r.customShiftHours ?? 0) }).toZonedDateTime(tz).epochMilliseconds;
      if (h > t) return count;
      if (h > from) count++;
    }
  }
  const plainTime = Temporal.PlainTime.from(r.handoffTime);
  const last = zdt(t, tz).toPlainDate().add({ days: 1 });
  for (let d = zdt(from, tz).toPlainDate().subtract({ days: 1 }); Temporal.PlainDate.compare(d, last) <= 0; d = d.add({ days: 1 })) {
    if (r.type === 'weekly' && d.dayOfWeek !== r.handoffDay) continue;
    const h = d.toZonedDateTime({ timeZone: tz, plainTime }).epochMilliseconds;
    if (h > from && h <= t) count++;
  }
  return count;
}

function naiveBaseUser(s: ScheduleSpec, t: number): number | null {
  const live = s.rotations
    .map((r, order) => ({ r, order, from: Date.parse(r.effectiveFrom) }))
    .filter(({ r, from }) => r.participants.length > 0 && from <= t && (r.effectiveUntil === null || t < Date.parse(r.effectiveUntil)))
    .sort((a, b) => a.r.layerPosition - b.r.layerPosition || b.from - a.from || a.order - b.order);
  const top = live[0];
  if (!top) return null;
  const users = [...top.r.participants].sort((a, b) => a.position - b.position);
  return users[naiveHandoffs(top.r, s.timezone, top.from, t) % users.length]!.userId;
}

/** The overrides that apply at t, latest-created first. */
function applicable(s: ScheduleSpec, t: number): OverrideSpec[] {
  const base = naiveBaseUser(s, t);
  return s.overrides
    .filter((o) => Date.parse(o.startAt) <= t && t < Date.parse(o.endAt) && (o.replacedUserId === null || o.replacedUserId === base))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.id - a.id);
}

const containing = (shifts: Shift[], t: number) => shifts.find((s) => Date.parse(s.startAt) <= t && t < Date.parse(s.endAt));

/** The random samples, every override start, and both edges of up to 12 shifts spread over the range. */
function probes(sc: Scenario, shifts: Shift[]): number[] {
  const stride = Math.max(1, Math.ceil(shifts.length / 12));
  const spread = shifts.filter((_, i) => i % stride === 0);
  const edges = [...spread.flatMap((s) => [Date.parse(s.startAt), Date.parse(s.endAt) - 1]), ...sc.schedule.overrides.map((o) => Date.parse(o.startAt))];
  return [...sc.samples, ...edges].filter((t) => t >= sc.from && t < sc.to);
}

const params = { numRuns: 100 };

describe('final schedule (properties)', () => {
  it('shifts and gaps tile [from, to): ordered, non-empty, no overlap, no hole, gaps never adjacent', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const shifts = finalShifts(sc.schedule, new Date(sc.from), new Date(sc.to));
        const holes = gaps(sc.schedule, new Date(sc.from), new Date(sc.to));
        const pieces = [...shifts.map((s) => ({ ...s, gap: false })), ...holes.map((g) => ({ ...g, gap: true }))].sort((a, b) => Date.parse(a.startAt) - Date.parse(b.startAt));
        let cursor = sc.from;
        pieces.forEach((p, i) => {
          expect(Date.parse(p.startAt)).toBe(cursor);
          expect(Date.parse(p.endAt)).toBeGreaterThan(cursor);
          if (p.gap && i > 0) expect(pieces[i - 1]!.gap).toBe(false);
          cursor = Date.parse(p.endAt);
        });
        expect(cursor).toBe(sc.to);
      }),
      params,
    );
  });

  it('who is on call at any instant matches the naive oracle (layers, turns, overrides)', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const shifts = finalShifts(sc.schedule, new Date(sc.from), new Date(sc.to));
        for (const t of probes(sc, shifts)) {
          const winner = applicable(sc.schedule, t)[0];
          const expected = winner ? winner.overrideUserId : naiveBaseUser(sc.schedule, t);
          expect(containing(shifts, t)?.userId ?? null).toBe(expected);
        }
      }),
      params,
    );
  });

  it('an override always wins where it applies: the latest-created applicable one owns the instant', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const shifts = finalShifts(sc.schedule, new Date(sc.from), new Date(sc.to));
        for (const t of probes(sc, shifts)) {
          const winner = applicable(sc.schedule, t)[0];
          if (!winner) continue;
          expect(containing(shifts, t)).toMatchObject({ userId: winner.overrideUserId, overrideId: winner.id, rotationId: null, layerPosition: null });
        }
      }),
      params,
    );
  });

  it('onCallAt(T) agrees with the shift containing T; its bounds equal the shift where the range does not clip it', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const shifts = finalShifts(sc.schedule, new Date(sc.from), new Date(sc.to));
        for (const t of probes(sc, shifts)) {
          const shift = containing(shifts, t);
          const now = onCallAt(sc.schedule, new Date(t));
          if (!shift) {
            expect(now).toBeNull();
            continue;
          }
          expect(now).toMatchObject({ userId: shift.userId, overrideId: shift.overrideId, rotationId: shift.rotationId, layerPosition: shift.layerPosition });
          expect(iso(Math.max(Date.parse(now!.shiftStart), sc.from))).toBe(shift.startAt);
          expect(iso(Math.min(Date.parse(now!.shiftEnd), sc.to))).toBe(shift.endAt);
        }
      }),
      params,
    );
  });

  it('a daily or weekly handoff happens at its wall-clock time whenever that time exists that day', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        for (const r of sc.schedule.rotations.filter((x) => x.type !== 'custom' && x.participants.length > 0)) {
          const only: ScheduleSpec = { timezone: sc.schedule.timezone, rotations: [r], overrides: [] };
          for (const s of finalShifts(only, new Date(sc.from), new Date(sc.to))) {
            const start = Date.parse(s.startAt);
            if (start === sc.from || start === Date.parse(r.effectiveFrom)) continue;
            const local = zdt(start, sc.schedule.timezone);
            const wanted = local.toPlainDate().toPlainDateTime(Temporal.PlainTime.from(r.handoffTime));
            const exists = wanted.toZonedDateTime(sc.schedule.timezone).toPlainDateTime().equals(wanted);
            if (exists) expect(local.toPlainTime().toString({ smallestUnit: 'minute' })).toBe(r.handoffTime);
            if (r.type === 'weekly') expect(local.dayOfWeek).toBe(r.handoffDay);
          }
        }
      }),
      params,
    );
  });
});
