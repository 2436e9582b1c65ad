import { timingSafeEqual } from 'node:crypto';
import { Temporal } from 'temporal-polyfill';
import type { Ctx } from '../context.js';
import { randomToken, sha256Hex } from '../auth/secrets.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import type { OnCallScheduleItem } from '../store/entities/onCallSchedule.js';
import { scheduleCalendar } from './ical.js';
import { overridesTouching, toOverride, toOverrideSpec } from './overrides.js';
import { peopleById, type Person } from './people.js';
import { finalShifts, gaps, onCallAt, report, type ScheduleSpec } from './rotation.js';
import { turnSource } from './turns.js';
import { MAX_RANGE_DAYS, type Gap, type HoursReportEntry, type Override, type Shift } from './schema.js';
import { loadSchedule, readSchedule, rotationsOf, toSchedule } from './schedules.js';

/** Who covers a schedule when: who is on call, the final shifts, gaps, hours, the overrides of a range, and the calendar feed with its secret URL. */

const DAY_MS = 86_400_000;

/** The pure computation's input for `[from, to)`: rotations plus the overrides touching the range. */
export async function scheduleSpec(deps: Deps, schedule: OnCallScheduleItem, from: Date, to: Date): Promise<ScheduleSpec> {
  const overrides = await overridesTouching(deps, schedule.scheduleId, from.toISOString(), to.toISOString());
  return { timezone: schedule.timezone, rotations: rotationsOf(schedule), overrides: overrides.map(toOverrideSpec) };
}

export type OnCallNow = {
  scheduleId: number;
  at: string;
  user: Person | null;
  layerPosition: number | null;
  rotationId: number | null;
  overrideId: number | null;
  shiftStart: string | null;
  shiftEnd: string | null;
};

/** Who is on call at `at` on a schedule already loaded (also what the escalation simulation asks). */
export async function onCallOf(deps: Deps, schedule: OnCallScheduleItem, at: Date): Promise<OnCallNow> {
  // onCallAt clips the shift to MAX_RANGE_DAYS either side, so overrides beyond that cannot matter.
  const reach = MAX_RANGE_DAYS * DAY_MS;
  const spec = await scheduleSpec(deps, schedule, new Date(at.getTime() - reach), new Date(at.getTime() + reach));
  const found = onCallAt(spec, at);
  const user = found ? ((await peopleById(deps, [found.userId])).get(found.userId) ?? { id: found.userId, email: '', name: null }) : null;
  return {
    scheduleId: schedule.scheduleId,
    at: at.toISOString(),
    user,
    layerPosition: found?.layerPosition ?? null,
    rotationId: found?.rotationId ?? null,
    overrideId: found?.overrideId ?? null,
    shiftStart: found?.shiftStart ?? null,
    shiftEnd: found?.shiftEnd ?? null,
  };
}

export async function whoIsOnCall(ctx: Ctx, scheduleId: number, at: string | undefined): Promise<OnCallNow> {
  const { schedule } = await loadSchedule(ctx, scheduleId, 'VIEWER');
  return onCallOf(ctx.deps, schedule, at ? new Date(at) : ctx.deps.clock.now());
}

type Range = { from: string; to: string };

async function rangeSpec(ctx: Ctx, scheduleId: number, range: Range) {
  const { schedule } = await loadSchedule(ctx, scheduleId, 'VIEWER');
  const from = new Date(range.from);
  const to = new Date(range.to);
  return { schedule, from, to, spec: await scheduleSpec(ctx.deps, schedule, from, to) };
}

export async function listShifts(ctx: Ctx, scheduleId: number, range: Range): Promise<{ items: Shift[] }> {
  const { spec, from, to } = await rangeSpec(ctx, scheduleId, range);
  return { items: finalShifts(spec, from, to) };
}

export async function listGaps(ctx: Ctx, scheduleId: number, range: Range): Promise<{ items: Gap[] }> {
  const { spec, from, to } = await rangeSpec(ctx, scheduleId, range);
  return { items: gaps(spec, from, to) };
}

export async function hoursReport(ctx: Ctx, scheduleId: number, range: Range) {
  const { schedule, spec, from, to } = await rangeSpec(ctx, scheduleId, range);
  const items: HoursReportEntry[] = report(spec, from, to);
  return { scheduleId, timezone: schedule.timezone, from: from.toISOString(), to: to.toISOString(), items };
}

export async function listOverrides(ctx: Ctx, scheduleId: number, range: Range): Promise<{ items: Override[] }> {
  await loadSchedule(ctx, scheduleId, 'VIEWER');
  const found = await overridesTouching(ctx.deps, scheduleId, new Date(range.from).toISOString(), new Date(range.to).toISOString());
  return { items: found.sort(byStart).map(toOverride) };
}

const byStart = (a: { startAt: string; overrideId: number }, b: { startAt: string; overrideId: number }) => a.startAt.localeCompare(b.startAt) || a.overrideId - b.overrideId;

/**
 * The schedule view in one read: the schedule, who is on call now, and the final shifts, overrides
 * and gaps of `days` local days from `from`. The dashboard used to ask for the schedule first (the
 * range's edges are local midnights, so it needed the zone) and then for each list: a round trip
 * and four authorisations more on the page people open when paged.
 */
export async function scheduleTimeline(ctx: Ctx, scheduleId: number, query: { from?: string | undefined; days: number }) {
  const { schedule } = await loadSchedule(ctx, scheduleId, 'VIEWER');
  const timeZone = schedule.timezone;
  const now = ctx.deps.clock.now();
  const firstDay = query.from ? Temporal.PlainDate.from(query.from) : Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timeZone).toPlainDate();
  // startOfDay, not midnight: some zones skip midnight on their DST day.
  const from = new Date(firstDay.toZonedDateTime({ timeZone }).startOfDay().epochMilliseconds);
  const to = new Date(firstDay.add({ days: query.days }).toZonedDateTime({ timeZone }).startOfDay().epochMilliseconds);
  const [view, found, onCall] = await Promise.all([
    toSchedule(ctx.deps, schedule),
    overridesTouching(ctx.deps, scheduleId, from.toISOString(), to.toISOString()),
    onCallOf(ctx.deps, schedule, now),
  ]);
  const spec: ScheduleSpec = { timezone: timeZone, rotations: rotationsOf(schedule), overrides: found.map(toOverrideSpec) };
  // The local days' starts and each layer's own turns come with the view, so the dashboard draws
  // the fortnight without time-zone arithmetic of its own (and without loading Temporal first).
  const dayStarts = Array.from({ length: query.days }, (_, i) => new Date(firstDay.add({ days: i }).toZonedDateTime({ timeZone }).startOfDay().epochMilliseconds).toISOString());
  const layers = [...spec.rotations]
    .sort((a, b) => a.layerPosition - b.layerPosition)
    .map((rotation) => ({
      rotationId: rotation.id,
      layerPosition: rotation.layerPosition,
      turns: (turnSource(rotation, timeZone)?.turnsIn(from.getTime(), to.getTime()) ?? []).map((turn) => ({
        userId: turn.userId,
        startAt: new Date(turn.start).toISOString(),
        endAt: new Date(turn.end).toISOString(),
      })),
    }));
  return {
    schedule: view,
    fromDate: firstDay.toString(),
    days: query.days,
    from: from.toISOString(),
    to: to.toISOString(),
    dayStarts,
    layers,
    onCall,
    shifts: finalShifts(spec, from, to),
    overrides: found.sort(byStart).map(toOverride),
    gaps: gaps(spec, from, to),
  };
}

/** The calendar covers a week back and the rest of the longest range ahead. */
const CALENDAR_BACK_DAYS = 7;

async function calendarOf(deps: Deps, schedule: OnCallScheduleItem): Promise<string> {
  const now = deps.clock.now();
  const from = new Date(now.getTime() - CALENDAR_BACK_DAYS * DAY_MS);
  const to = new Date(from.getTime() + MAX_RANGE_DAYS * DAY_MS);
  const spec = await scheduleSpec(deps, schedule, from, to);
  const users = await peopleById(
    deps,
    finalShifts(spec, from, to).map((s) => s.userId),
  );
  return scheduleCalendar(spec, from, to, { scheduleId: schedule.scheduleId, name: schedule.name, generatedAt: now, users });
}

export async function scheduleCalendarForViewer(ctx: Ctx, scheduleId: number): Promise<string> {
  return calendarOf(ctx.deps, (await loadSchedule(ctx, scheduleId, 'VIEWER')).schedule);
}

/**
 * The secret calendar URL's token: `<scheduleId>_<256 random bits>`. Only its SHA-256 is kept
 * (like API keys), so the URL is shown once; rotating replaces the hash and the old URL 404s.
 * The id in front finds the schedule with one get, no index of tokens.
 */
export async function rotateCalendarSecret(ctx: Ctx, scheduleId: number): Promise<{ token: string; url: string }> {
  await loadSchedule(ctx, scheduleId, 'ADMIN');
  const token = `${scheduleId}_${randomToken(32)}`;
  await ctx.deps.store.entities.onCallSchedule
    .patch({ scheduleId })
    .set({ calendarTokenHash: sha256Hex(token) })
    .go();
  return { token, url: `${ctx.deps.config.publicUrl}/api/on-call-calendars/${token}/calendar.ics` };
}

/** Turns the secret calendar URL off (ADMIN); a later POST makes a new one. */
export async function revokeCalendarSecret(ctx: Ctx, scheduleId: number): Promise<void> {
  await loadSchedule(ctx, scheduleId, 'ADMIN');
  await ctx.deps.store.entities.onCallSchedule.patch({ scheduleId }).remove(['calendarTokenHash']).go();
}

/** No credential but the token: a wrong, old or malformed token answers like an unknown schedule. */
export async function calendarBySecret(deps: Deps, token: string): Promise<string> {
  const match = /^(\d{1,16})_[A-Za-z0-9_-]{43}$/.exec(token);
  const schedule = match ? await readSchedule(deps, Number(match[1]), true) : null;
  const stored = schedule?.calendarTokenHash;
  const presented = sha256Hex(token);
  if (!schedule || !stored || stored.length !== presented.length || !timingSafeEqual(Buffer.from(stored), Buffer.from(presented))) {
    throw notFound('Calendar');
  }
  return calendarOf(deps, schedule);
}
