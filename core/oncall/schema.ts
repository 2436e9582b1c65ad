import { z } from '@hono/zod-openapi';
import { Temporal } from 'temporal-polyfill';

/**
 * On-call schedules, rotations (layers) and overrides: the spec's "On-call schedule" section
 * (docs/guide/oncall-and-escalation.md). Bounds the spec leaves open are ours and named here, so the
 * router, the pure computation and the documentation agree on one number each.
 */
export const ROTATION_TYPES = ['daily', 'weekly', 'custom'] as const;
export type RotationType = (typeof ROTATION_TYPES)[number];

/** Longest `[from, to)` the shifts, overrides, gaps and report endpoints accept. */
export const MAX_RANGE_DAYS = 93;
export const MAX_ROTATIONS = 20;
export const MAX_PARTICIPANTS = 100;
/** A custom shift lasts at most a (leap) year of wall-clock hours. */
export const MAX_CUSTOM_SHIFT_HOURS = 8784;
/** Handoff notices go out at most a week before the shift starts. */
export const MAX_HANDOFF_NOTIFICATION_MINUTES = 10_080;

const bodyId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const name = z.string().trim().min(1).max(255);
const description = z.string().max(2000);

/** ISO 8601 with `Z` or an explicit offset: a rotation's or override's instants are never ambiguous. */
export const Instant = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time with Z or an offset');

/**
 * A named IANA zone that the time-zone database behind Temporal knows. Offset strings (`+05:30`)
 * are refused: a fixed offset is exactly what a schedule must not have, since it cannot follow DST.
 */
export function isIanaTimeZone(timezone: string): boolean {
  if (timezone === '' || /^[+\-\d]/.test(timezone)) return false;
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(timezone);
    return true;
  } catch {
    return false;
  }
}

/** `america/new_york` -> `America/New_York` (Temporal's case-normalised id; aliases are kept as given). */
export function canonicalTimeZone(timezone: string): string {
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(timezone).timeZoneId;
  } catch {
    return timezone;
  }
}

export const TimeZone = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine(isIanaTimeZone, { message: 'must be an IANA time zone such as Europe/Berlin' })
  .overwrite(canonicalTimeZone)
  .describe('IANA time zone, e.g. Europe/Berlin');

/** Wall-clock time of day in the schedule's zone, 24-hour `HH:MM` (seconds allowed). */
export const HandoffTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'must be a time of day HH:MM (00:00 to 23:59)')
  .describe('Time of day HH:MM in the schedule time zone (daily and weekly; custom shifts count from effectiveFrom)');

export const ParticipantInput = z
  .strictObject({
    userId: bodyId,
    position: z
      .number()
      .int()
      .min(0)
      .max(MAX_PARTICIPANTS - 1)
      .describe('0-indexed turn order'),
  })
  .openapi('OnCallParticipantInput');

type RotationShape = {
  type: RotationType;
  effectiveFrom: string;
  effectiveUntil: string | null;
  customShiftHours?: number | null | undefined;
  participants: { position: number }[];
};

/** The rules that need more than one field; each issue names its field, so the 400 says what to fix. */
function rotationRules(rotation: RotationShape, ctx: z.RefinementCtx): void {
  if (rotation.effectiveUntil !== null && Date.parse(rotation.effectiveUntil) <= Date.parse(rotation.effectiveFrom)) {
    ctx.addIssue({ code: 'custom', path: ['effectiveUntil'], message: 'must be after effectiveFrom' });
  }
  const hasCustomHours = rotation.customShiftHours !== undefined && rotation.customShiftHours !== null;
  if (rotation.type === 'custom' && !hasCustomHours) {
    ctx.addIssue({ code: 'custom', path: ['customShiftHours'], message: 'is required for a custom rotation' });
  }
  if (rotation.type !== 'custom' && hasCustomHours) {
    ctx.addIssue({ code: 'custom', path: ['customShiftHours'], message: 'applies to custom rotations only' });
  }
  // Turns go in position order; 0..n-1 without holes or repeats leaves no doubt about that order.
  const positions = rotation.participants.map((p) => p.position).sort((a, b) => a - b);
  if (positions.some((position, i) => position !== i)) {
    ctx.addIssue({ code: 'custom', path: ['participants'], message: 'positions must be 0..n-1, each once' });
  }
}

export const RotationInput = z
  .strictObject({
    name: name.nullable().optional(),
    type: z.enum(ROTATION_TYPES),
    layerPosition: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATIONS - 1)
      .describe('0 is the highest layer'),
    effectiveFrom: Instant,
    effectiveUntil: Instant.nullable().default(null).describe('null means indefinite'),
    handoffTime: HandoffTime,
    handoffDay: z.number().int().min(1).max(7).default(1).describe('1 = Monday to 7 = Sunday (weekly rotations)'),
    customShiftHours: z.number().int().min(1).max(MAX_CUSTOM_SHIFT_HOURS).nullable().optional().describe('Wall-clock hours per shift (custom rotations)'),
    participants: z.array(ParticipantInput).max(MAX_PARTICIPANTS).default([]),
  })
  .superRefine(rotationRules)
  .openapi('OnCallRotationInput');
export type RotationInput = z.infer<typeof RotationInput>;

const handoffNotificationMinutes = z
  .number()
  .int()
  .min(0)
  .max(MAX_HANDOFF_NOTIFICATION_MINUTES)
  .nullable()
  .describe('Minutes before a shift starts that the incoming user is told; null disables');

const ScheduleFields = z.strictObject({
  workspaceId: bodyId,
  name,
  description: description.nullable().optional(),
  timezone: TimeZone.default('UTC'),
  handoffNotificationMinutes: handoffNotificationMinutes.default(15),
  enabled: z.boolean().default(true),
  rotations: z.array(RotationInput).max(MAX_ROTATIONS).default([]),
});
export const ScheduleCreate = ScheduleFields.openapi('OnCallScheduleCreate');
export type ScheduleCreate = z.infer<typeof ScheduleCreate>;
/** The Integration API's: `workspaceId` defaults to the key's own. */
export const ScheduleCreateV1 = ScheduleFields.extend({ workspaceId: bodyId.optional() }).openapi('OnCallScheduleCreateV1');

/** Changed fields only; a supplied `rotations` array replaces every rotation. */
export const ScheduleUpdate = z
  .strictObject({
    name: name.optional(),
    description: description.nullable().optional(),
    timezone: TimeZone.optional(),
    handoffNotificationMinutes: handoffNotificationMinutes.optional(),
    enabled: z.boolean().optional(),
    rotations: z.array(RotationInput).max(MAX_ROTATIONS).optional(),
  })
  .openapi('OnCallScheduleUpdate');
export type ScheduleUpdate = z.infer<typeof ScheduleUpdate>;

export const OverrideCreate = z
  .strictObject({
    scheduleId: bodyId,
    overrideUserId: bodyId,
    startAt: Instant,
    endAt: Instant,
    replacedUserId: bodyId.nullable().default(null).describe('null means unconditional'),
    reason: z.string().trim().max(500).nullable().optional(),
  })
  .superRefine((override, ctx) => {
    if (Date.parse(override.endAt) <= Date.parse(override.startAt)) {
      ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'must be after startAt' });
    }
    if (override.replacedUserId === override.overrideUserId) {
      ctx.addIssue({ code: 'custom', path: ['replacedUserId'], message: 'must differ from overrideUserId' });
    }
  })
  .openapi('OnCallOverrideCreate');
export type OverrideCreate = z.infer<typeof OverrideCreate>;

/** `at` defaults to the caller's clock instant (the router reads it once). */
export const OnCallQuery = z.object({ at: Instant.optional() });

/** The dashboard's schedule view asks by local date: only the server knows the zone before the schedule is read. */
export const TimelineQuery = z.object({
  from: z.iso.date().optional().describe("First local day (YYYY-MM-DD) in the schedule's time zone; default today there"),
  days: z.coerce.number().int().min(1).max(MAX_RANGE_DAYS).default(14).describe('How many local days'),
});

export const RangeQuery = z.object({ from: Instant, to: Instant }).superRefine((range, ctx) => {
  const length = Date.parse(range.to) - Date.parse(range.from);
  if (length <= 0) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  else if (length > MAX_RANGE_DAYS * 86_400_000) ctx.addIssue({ code: 'custom', path: ['to'], message: `at most ${MAX_RANGE_DAYS} days after from` });
});

// Responses. Instants are ISO strings in UTC (`...Z`), as everywhere else in the API.

export const Participant = z.object({ userId: z.number().int(), position: z.number().int() }).openapi('OnCallParticipant');

export const Rotation = z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    type: z.enum(ROTATION_TYPES),
    layerPosition: z.number().int(),
    effectiveFrom: z.string(),
    effectiveUntil: z.string().nullable(),
    handoffTime: z.string(),
    handoffDay: z.number().int(),
    customShiftHours: z.number().int().nullable(),
    participants: z.array(Participant),
  })
  .openapi('OnCallRotation');
export type Rotation = z.infer<typeof Rotation>;

export const Override = z
  .object({
    id: z.number().int(),
    scheduleId: z.number().int(),
    overrideUserId: z.number().int(),
    startAt: z.string(),
    endAt: z.string(),
    replacedUserId: z.number().int().nullable(),
    reason: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('OnCallOverride');
export type Override = z.infer<typeof Override>;

export const Schedule = z
  .object({
    id: z.number().int(),
    workspaceId: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    timezone: z.string(),
    handoffNotificationMinutes: z.number().int().nullable(),
    enabled: z.boolean(),
    rotations: z.array(Rotation),
    overrides: z.array(Override).describe('Current and upcoming overrides'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('OnCallSchedule');
export type Schedule = z.infer<typeof Schedule>;

/** One piece of the final schedule; `overrideId` set means `rotationId` and `layerPosition` are null. */
export const Shift = z
  .object({
    userId: z.number().int(),
    startAt: z.string(),
    endAt: z.string(),
    layerPosition: z.number().int().nullable(),
    rotationId: z.number().int().nullable(),
    overrideId: z.number().int().nullable(),
  })
  .openapi('OnCallShift');
export type Shift = z.infer<typeof Shift>;

export const Gap = z.object({ startAt: z.string(), endAt: z.string() }).openapi('OnCallGap');
export type Gap = z.infer<typeof Gap>;

export const HoursReportEntry = z
  .object({
    userId: z.number().int(),
    shiftCount: z.number().int(),
    totalHours: z.number(),
    weekdayHours: z.number().describe('Monday to Friday, schedule time zone'),
    weekendHours: z.number().describe('Saturday and Sunday, schedule time zone'),
    nightHours: z.number().describe('22:00 to 07:00 local, on any day (also counted in weekday or weekend)'),
  })
  .openapi('OnCallHoursReportEntry');
export type HoursReportEntry = z.infer<typeof HoursReportEntry>;
