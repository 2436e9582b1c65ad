import { Temporal } from 'temporal-polyfill';
import type { OverrideSpec, RotationSpec, ScheduleSpec } from '../../core/oncall/rotation.js';
import type { Shift } from '../../core/oncall/schema.js';

/** Builders for the on-call tests: one rotation with sensible defaults, overridable field by field. */
export function rotation(fields: Partial<RotationSpec> & { effectiveFrom: string }): RotationSpec {
  return {
    id: 1,
    type: 'daily',
    layerPosition: 0,
    effectiveUntil: null,
    handoffTime: '09:00',
    handoffDay: 1,
    customShiftHours: null,
    participants: [
      { userId: 1, position: 0 },
      { userId: 2, position: 1 },
    ],
    ...fields,
  };
}

export function override(fields: Partial<OverrideSpec> & { id: number; startAt: string; endAt: string; overrideUserId: number }): OverrideSpec {
  return { replacedUserId: null, createdAt: '2026-01-01T00:00:00.000Z', ...fields };
}

export function schedule(timezone: string, rotations: RotationSpec[], overrides: OverrideSpec[] = []): ScheduleSpec {
  return { timezone, rotations, overrides };
}

export const hoursOf = (shift: { startAt: string; endAt: string }): number => (Date.parse(shift.endAt) - Date.parse(shift.startAt)) / 3_600_000;

/** `2026-03-08T09:00` style wall-clock time of an instant in a zone. */
export const localOf = (at: string, timeZone: string): string => Temporal.Instant.from(at).toZonedDateTimeISO(timeZone).toPlainDateTime().toString({ smallestUnit: 'minute' });

/** A compact view of shifts for table assertions. */
export const brief = (shifts: Shift[]) => shifts.map((s) => ({ userId: s.userId, startAt: s.startAt, endAt: s.endAt, overrideId: s.overrideId }));
