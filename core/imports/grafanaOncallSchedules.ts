import { MAX_ROTATIONS, canonicalTimeZone, isIanaTimeZone } from '../oncall/schema.js';
import type { OncallSchedule, OncallShift } from './grafanaOncallPayload.js';
import { isRefusal, overrideOf, rotationOf, shiftZone, type OverrideDraft, type People, type RotationDraft } from './grafanaOncallShifts.js';
import type { ImportReport } from './report.js';

/**
 * One OnCall schedule with its shifts as a Vigil schedule draft, purely: its rotations in layer
 * order, its overrides, and what was left out, each with its reason (docs/guide/importing.md).
 */

type Skipped = ImportReport['skipped'][number];

export type ScheduleDraft = {
  name: string;
  timezone: string;
  rotations: (Omit<RotationDraft, 'level'> & { layerPosition: number })[];
  overrides: (OverrideDraft & { shiftId: string; name: string })[];
  skipped: Skipped[];
};

const ROTATING = new Set(['rolling_users', 'recurrent_event']);

const OTHER_SHIFTS: Record<string, string> = {
  single_event: 'a one-off event for a fixed set of people: Vigil has rotations and overrides (add it as an override)',
};

/**
 * `shifts` are the schedule's own, in export order. OnCall's `level` orders layers (higher wins);
 * Vigil's `layerPosition` 0 is the top layer, so distinct levels become positions from the highest.
 */
export function scheduleDraftOf(schedule: OncallSchedule, shifts: readonly OncallShift[], people: People, now: Date): ScheduleDraft | { reason: string } {
  if (schedule.type === 'ical') return { reason: 'an iCal schedule reads its shifts from an external calendar URL; Vigil has no such schedule (recreate its rotations)' };
  if (schedule.type !== 'calendar' && schedule.type !== 'web') return { reason: `schedule type ${schedule.type} has no Vigil counterpart` };
  const scheduleZone = schedule.time_zone ?? 'UTC';
  if (!isIanaTimeZone(scheduleZone)) return { reason: `time zone ${scheduleZone} is not an IANA time zone` };
  const name = schedule.name.trim().slice(0, 255) || schedule.id;
  const skipped: Skipped[] = [];
  const skip = (shift: OncallShift, reason: string) => skipped.push({ kind: 'shift', name: `${name} / ${shift.name || shift.id}`, reason });
  if (schedule.ical_url_overrides) {
    skipped.push({ kind: 'overrides calendar', name, reason: 'overrides read from an external calendar URL are not imported' });
  }

  // Vigil computes every rotation of a schedule in one zone: the one all rotating shifts share, else the schedule's.
  const zoneOf = new Map<OncallShift, string>();
  for (const shift of shifts) {
    const zone = shiftZone(shift, canonicalTimeZone(scheduleZone));
    if (typeof zone === 'string') zoneOf.set(shift, zone);
    else skip(shift, zone.reason);
  }
  const rotatingZones = new Set(shifts.filter((s) => ROTATING.has(s.type) && zoneOf.has(s)).map((s) => zoneOf.get(s)));
  const timezone = rotatingZones.size === 1 ? ([...rotatingZones][0] as string) : canonicalTimeZone(scheduleZone);

  const rotations: RotationDraft[] = [];
  const overrides: ScheduleDraft['overrides'] = [];
  for (const shift of shifts) {
    const zone = zoneOf.get(shift);
    if (zone === undefined) continue;
    if (shift.type === 'override') {
      const override = overrideOf(shift, zone, people, now);
      if (isRefusal(override)) skipped.push({ kind: 'override', name: `${name} / ${shift.name || shift.id}`, reason: override.reason });
      else overrides.push({ ...override, shiftId: shift.id, name: `${name} / ${shift.name || shift.id}` });
    } else if (ROTATING.has(shift.type)) {
      if (zone !== timezone) {
        skip(shift, `its time zone ${zone} differs from the schedule's ${timezone}: Vigil computes a schedule's rotations in one zone`);
        continue;
      }
      const rotation = rotationOf(shift, zone, people, now);
      if (isRefusal(rotation)) skip(shift, rotation.reason);
      else rotations.push(rotation);
    } else {
      skip(shift, OTHER_SHIFTS[shift.type] ?? `shift type ${shift.type} has no Vigil counterpart`);
    }
  }

  // A stable sort keeps export order within a level; layer positions follow the distinct levels.
  const ordered = [...rotations].sort((a, b) => b.level - a.level);
  const kept = ordered.slice(0, MAX_ROTATIONS);
  for (const rotation of ordered.slice(MAX_ROTATIONS)) {
    skipped.push({ kind: 'shift', name: `${name} / ${rotation.name}`, reason: `a Vigil schedule holds at most ${MAX_ROTATIONS} rotations` });
  }
  const levels = [...new Set(kept.map((r) => r.level))];
  return {
    name,
    timezone,
    rotations: kept.map(({ level, ...rotation }) => ({ ...rotation, layerPosition: levels.indexOf(level) })),
    overrides,
    skipped,
  };
}
