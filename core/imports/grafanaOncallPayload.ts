import { z } from 'zod';
import { Temporal } from 'temporal-polyfill';

/**
 * The Grafana OnCall import file: one JSON object holding the `results` arrays of OnCall's public
 * API list pages (https://grafana.com/docs/oncall/latest/oncall-api-reference/): `GET /api/v1/users/`,
 * `/schedules/`, `/on_call_shifts/`, `/escalation_chains/` and `/escalation_policies/`. A whole page
 * (`{count, next, results, ...}`) is accepted in place of its `results` array. Fields this importer
 * does not read are allowed and ignored (OnCall adds fields over time); the ones it reads are checked,
 * so a malformed file is refused whole with the path of the first bad field.
 *
 * One field is ours: a shift may carry `schedule_id`. OnCall lists a `calendar` schedule's shifts in
 * the schedule's `shifts`, but a rotation drawn in the web UI is linked to its schedule only through
 * `GET /on_call_shifts/?schedule_id=<id>`; an export that lists shifts per schedule that way names
 * the schedule on each shift (docs/guide/importing.md shows the commands).
 */

export const MAX_ITEMS = 5_000;
/** Ten years: far past any rotation turn, wait or override, and well inside the calendar arithmetic's range. */
const MAX_SECONDS = 315_360_000;
const seconds = z.number().int().min(0).max(MAX_SECONDS);
const id = z.string().trim().min(1).max(64);
const name = z.string().max(1000);
/** OnCall writes date-times as `yyyy-MM-ddTHH:mm:ss`, a wall-clock time in the shift's (else the schedule's) zone. */
const localDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/, 'must be a date-time yyyy-MM-ddTHH:mm:ss')
  .refine((text) => {
    try {
      Temporal.PlainDateTime.from(text);
      return true;
    } catch {
      return false;
    }
  }, 'is not a valid date-time');
const timeZone = z.string().max(64).nullable().optional();
const ids = z.array(id).max(MAX_ITEMS);

/** A list page in place of its `results` array. */
const resultsOf = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && 'results' in value ? (value as { results: unknown }).results : value;

/** A list of items, each with an `id` unique in the list (a repeated id would make the file ambiguous). */
function listOf<T extends z.ZodObject<{ id: typeof id }>>(item: T) {
  return z.preprocess(
    resultsOf,
    z
      .array(item)
      .max(MAX_ITEMS)
      .superRefine((items, ctx) => {
        const seen = new Set<string>();
        items.forEach((entry, index) => {
          if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `repeats id ${entry.id}` });
          seen.add(entry.id);
        });
      })
      .default([]),
  );
}

const User = z.object({ id, email: z.string().max(320), username: name.nullable().optional() });

const Schedule = z.object({
  id,
  name,
  type: z.string().max(32),
  time_zone: timeZone,
  shifts: ids.nullable().optional(),
  ical_url_primary: z.string().max(2000).nullable().optional(),
  ical_url_overrides: z.string().max(2000).nullable().optional(),
});

const Shift = z.object({
  id,
  name,
  type: z.string().max(32),
  time_zone: timeZone,
  level: z.number().int().nullable().optional(),
  start: localDateTime,
  rotation_start: localDateTime.nullable().optional(),
  duration: seconds,
  frequency: z.string().max(32).nullable().optional(),
  interval: z.number().int().min(1).max(MAX_SECONDS).nullable().optional(),
  until: localDateTime.nullable().optional(),
  week_start: z.string().max(2).nullable().optional(),
  by_day: z.array(z.string().max(2)).max(7).nullable().optional(),
  by_month: z.array(z.number().int()).max(12).nullable().optional(),
  by_monthday: z.array(z.number().int()).max(62).nullable().optional(),
  users: ids.nullable().optional(),
  rolling_users: z.array(ids).max(MAX_ITEMS).nullable().optional(),
  start_rotation_from_user_index: z.number().int().min(0).nullable().optional(),
  schedule_id: id.nullable().optional(),
});

const Chain = z.object({ id, name });

const Step = z.object({
  id,
  escalation_chain_id: id,
  position: z.number().int().min(0),
  type: z.string().max(64).nullable(),
  duration: seconds.nullable().optional(),
  persons_to_notify: ids.nullable().optional(),
  notify_on_call_from_schedule: id.nullable().optional(),
});

export const OncallExport = z.object({
  users: listOf(User),
  schedules: listOf(Schedule),
  on_call_shifts: listOf(Shift),
  escalation_chains: listOf(Chain),
  escalation_policies: listOf(Step),
});

export type OncallExport = z.infer<typeof OncallExport>;
export type OncallSchedule = z.infer<typeof Schedule>;
export type OncallShift = z.infer<typeof Shift>;
export type OncallChain = z.infer<typeof Chain>;
export type OncallStep = z.infer<typeof Step>;
