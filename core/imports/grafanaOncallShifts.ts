import { Temporal } from 'temporal-polyfill';
import { MAX_CUSTOM_SHIFT_HOURS, MAX_PARTICIPANTS, canonicalTimeZone, isIanaTimeZone, type RotationType } from '../oncall/schema.js';
import type { OncallShift } from './grafanaOncallPayload.js';

/**
 * One Grafana OnCall shift as a Vigil rotation or override, purely (docs/guide/importing.md).
 * OnCall writes `start`, `rotation_start` and `until` as wall-clock times of the shift's zone (else
 * the schedule's) and repeats a rolling-users shift by an iCalendar rule in that zone: one event of
 * `duration` seconds every `interval` hours/days/weeks, the next group of `rolling_users` each time
 * (counted from `start`, from group `start_rotation_from_user_index`). A Vigil rotation is the
 * special case with no gaps: one person per turn, each turn ending where the next begins. Anything
 * else is refused with a reason the report shows, never approximated.
 */

/** Who an OnCall user id is in this workspace, and how to name one who is not. */
export type People = { userIdOf(oncallUserId: string): number | undefined; label(oncallUserId: string): string };

export type RotationDraft = {
  name: string;
  level: number;
  type: RotationType;
  effectiveFrom: string;
  effectiveUntil: string | null;
  handoffTime: string;
  handoffDay: number;
  customShiftHours: number | null;
  participants: { userId: number; position: number }[];
};

export type OverrideDraft = { overrideUserId: number; startAt: string; endAt: string };

export type Refusal = { reason: string };

const HOURS_PER: Record<string, number> = { hourly: 1, daily: 24, weekly: 168 };
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

/** An instant (UTC ISO) of a wall-clock time in `zone`; a time in a DST gap or overlap resolves as iCalendar does. */
const instantIn = (at: Temporal.PlainDateTime, zone: string): string => new Date(at.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds).toISOString();

/** The zone a shift's times are in, or a refusal when OnCall names one the time-zone database lacks. */
export function shiftZone(shift: OncallShift, scheduleZone: string): string | Refusal {
  if (shift.time_zone === null || shift.time_zone === undefined || shift.time_zone === '') return scheduleZone;
  if (!isIanaTimeZone(shift.time_zone)) return { reason: `time zone ${shift.time_zone} is not an IANA time zone` };
  return canonicalTimeZone(shift.time_zone);
}

/** Users of a shift who are not members of the workspace, as a refusal naming them. */
function missingPeople(userIds: readonly string[], people: People): Refusal | null {
  const missing = [...new Set(userIds)].filter((u) => people.userIdOf(u) === undefined);
  return missing.length === 0 ? null : { reason: `needs ${missing.map((u) => people.label(u)).join(', ')}, not a member of this workspace` };
}

const hours = (seconds: number): string => `${Math.round((seconds / 3600) * 100) / 100} h`;

/** Why a shift's recurrence is not a gap-free rotation, or null when it is one. */
function recurrenceRefusal(shift: OncallShift, start: Temporal.PlainDateTime): string | null {
  const perUnit = HOURS_PER[shift.frequency ?? ''];
  if (perUnit === undefined) return `frequency ${shift.frequency ?? '(none)'} has no Vigil rotation (hourly, daily and weekly have)`;
  if ((shift.by_month ?? []).length > 0 || (shift.by_monthday ?? []).length > 0) return 'limited to some months or days of the month: a Vigil rotation runs all year';
  const days = [...new Set(shift.by_day ?? [])];
  const onlyStartDay = shift.frequency === 'weekly' && days.length === 1 && days[0] === WEEKDAYS[start.dayOfWeek - 1];
  if (days.length > 0 && days.length < 7 && !onlyStartDay) return `on call only on ${days.join(', ')}: a Vigil rotation runs every day`;
  const periodHours = (shift.interval ?? 1) * perUnit;
  if (shift.duration !== periodHours * 3600) {
    return `on call ${hours(shift.duration)} of every ${periodHours} h: a Vigil rotation hands over at once, with no gap or overlap`;
  }
  if (periodHours > MAX_CUSTOM_SHIFT_HOURS) return `turns of ${periodHours} h: a Vigil rotation's turn lasts at most ${MAX_CUSTOM_SHIFT_HOURS} h`;
  return null;
}

const handoffTimeOf = (at: Temporal.PlainDateTime): string => at.toPlainTime().toString({ smallestUnit: at.second === 0 ? 'minute' : 'second' });

/** A `rolling_users` (or single-user `recurrent_event`) shift as a rotation in `zone`. */
export function rotationOf(shift: OncallShift, zone: string, people: People, now: Date): RotationDraft | Refusal {
  const groups = (shift.type === 'rolling_users' ? (shift.rolling_users ?? []) : [shift.users ?? []]).filter((group) => group.length > 0);
  if (groups.length === 0) return { reason: 'no users to rotate' };
  const crowded = groups.find((group) => new Set(group).size !== 1);
  if (crowded) return { reason: `a turn of ${new Set(crowded).size} people at once: a Vigil rotation puts one person on call per turn` };
  if (groups.length > MAX_PARTICIPANTS) return { reason: `${groups.length} turns: a Vigil rotation takes at most ${MAX_PARTICIPANTS} participants` };
  const start = Temporal.PlainDateTime.from(shift.start);
  const refusal = recurrenceRefusal(shift, start) ?? missingPeople(groups.flat(), people)?.reason;
  if (refusal) return { reason: refusal };

  const interval = shift.interval ?? 1;
  const periodHours = interval * (HOURS_PER[shift.frequency ?? ''] ?? 24);
  // OnCall counts turns from `start`; a later `rotation_start` begins with the turn that contains it.
  const rotationStart = shift.rotation_start ? Temporal.PlainDateTime.from(shift.rotation_start) : start;
  const elapsedHours = Temporal.PlainDateTime.compare(rotationStart, start) > 0 ? start.until(rotationStart, { largestUnit: 'hours' }).total({ unit: 'hours' }) : 0;
  const turnsBefore = Math.floor(elapsedHours / periodHours);
  const first = start.add({ hours: turnsBefore * periodHours });
  const effectiveFrom = instantIn(first, zone);
  let effectiveUntil: string | null = null;
  if (shift.until) {
    effectiveUntil = instantIn(Temporal.PlainDateTime.from(shift.until), zone);
    if (Date.parse(effectiveUntil) <= now.getTime()) return { reason: `ended at ${shift.until} (${zone}), before this import` };
    if (effectiveUntil <= effectiveFrom) return { reason: 'ends before its first turn' };
  }

  const offset = (shift.start_rotation_from_user_index ?? 0) + turnsBefore;
  const participants = groups.map((_, position) => {
    const group = groups[(offset + position) % groups.length] as string[];
    return { userId: people.userIdOf(group[0] as string) as number, position };
  });
  const type: RotationType = interval === 1 && shift.frequency === 'daily' ? 'daily' : interval === 1 && shift.frequency === 'weekly' ? 'weekly' : 'custom';
  return {
    name: shift.name.trim().slice(0, 255) || shift.id,
    level: shift.level ?? 0,
    type,
    effectiveFrom,
    effectiveUntil,
    handoffTime: handoffTimeOf(first),
    handoffDay: first.dayOfWeek,
    customShiftHours: type === 'custom' ? periodHours : null,
    participants,
  };
}

/** An `override` shift as an unconditional Vigil override of one person. */
export function overrideOf(shift: OncallShift, zone: string, people: People, now: Date): OverrideDraft | Refusal {
  const users = [...new Set(shift.users ?? [])];
  if (users.length === 0) return { reason: 'no user to put on call' };
  if (users.length > 1) return { reason: `puts ${users.length} people on call at once: a Vigil override puts one` };
  const missing = missingPeople(users, people);
  if (missing) return missing;
  if (shift.duration <= 0) return { reason: 'lasts no time' };
  const start = Temporal.PlainDateTime.from(shift.start);
  const startAt = instantIn(start, zone);
  const endAt = instantIn(start.add({ seconds: shift.duration }), zone);
  if (Date.parse(endAt) <= now.getTime()) return { reason: `ended at ${endAt}, before this import` };
  if (endAt <= startAt) return { reason: 'lasts no time' };
  return { overrideUserId: people.userIdOf(users[0] as string) as number, startAt, endAt };
}

export const isRefusal = (value: object): value is Refusal => 'reason' in value;
