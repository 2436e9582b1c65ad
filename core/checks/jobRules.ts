import { z } from '@hono/zod-openapi';
import { badRequest } from '../http/errors.js';
import { scheduleProblem, shortestGapSeconds } from './cron.js';
import { readJobRules, writeJobRules, type JobRules } from './jobRulesStored.js';

export { readJobRules, writeJobRules };

const MAX_SECONDS = 7 * 86_400;
const Seconds = z.number().int().min(1).max(MAX_SECONDS);

/** The request fields (both surfaces): all optional, `null` clears. */
export const jobRuleFields = {
  schedule: z
    .string()
    .max(100)
    .nullable()
    .optional()
    .openapi({ description: '5-field cron expression or macro (@hourly, @daily, ...), instead of intervalSeconds', example: '30 2 * * *' }),
  timezone: z.string().max(64).nullable().optional().openapi({ description: 'IANA time zone the schedule is read in (default UTC)', example: 'Europe/Berlin' }),
  minDurationSeconds: Seconds.nullable().optional().openapi({ description: 'A run shorter than this records a FAIL' }),
  maxDurationSeconds: Seconds.nullable().optional().openapi({ description: 'A run longer than this records a FAIL' }),
  minIntervalSeconds: Seconds.nullable().optional().openapi({ description: 'A success sooner than this after the previous one records TOO_FREQUENT' }),
};
export type JobRuleInput = { [K in keyof typeof jobRuleFields]?: string | number | null | undefined };

/** The response fields (null when unset). */
export const jobRuleView = {
  schedule: z.string().nullable(),
  timezone: z.string().nullable(),
  minDurationSeconds: z.number().int().nullable(),
  maxDurationSeconds: z.number().int().nullable(),
  minIntervalSeconds: z.number().int().nullable(),
};

export const jobRulesView = (stored: string | undefined) => {
  const rules = readJobRules(stored);
  return {
    schedule: rules?.schedule ?? null,
    timezone: rules?.schedule ? (rules.timezone ?? 'UTC') : null,
    minDurationSeconds: rules?.minDurationSeconds ?? null,
    maxDurationSeconds: rules?.maxDurationSeconds ?? null,
    minIntervalSeconds: rules?.minIntervalSeconds ?? null,
  };
};

/**
 * A check's timing as every surface shows it: `intervalSeconds` null for a job timed by a cron
 * schedule (the stored interval is then only the schedule's shortest gap, which would read as
 * "pings every N seconds"), and the job's rules beside it.
 */
export const timingView = (check: { intervalSeconds: number; jobRules?: string | undefined }) => {
  const rules = jobRulesView(check.jobRules);
  return { intervalSeconds: rules.schedule === null ? check.intervalSeconds : null, ...rules };
};

/** A timing view in words, for assistants: `every 300s` or `on the schedule "30 2 * * *" (Europe/Berlin)`. */
export function timingText(timing: ReturnType<typeof timingView>): string {
  return timing.schedule === null ? `every ${timing.intervalSeconds}s` : `on the schedule "${timing.schedule}" (${timing.timezone})`;
}

/** What a create or update resolves to: the stored rules and the interval (a schedule's shortest gap). */
export type ResolvedTiming = { jobRules: string | undefined; intervalSeconds: number };

/**
 * Merges a body's timing fields over the current ones: exactly one of `intervalSeconds` and
 * `schedule` (giving one replaces the other), a valid IANA `timezone` only with a schedule, and
 * min <= max duration. A scheduled check stores the shortest gap between its occurrences as its
 * interval (what plan floors judge); the surfaces show `intervalSeconds: null` for it.
 */
export function resolveTiming(
  current: { jobRules: string | undefined; intervalSeconds: number | undefined },
  body: JobRuleInput & { intervalSeconds?: number | null | undefined },
  now: Date,
  defaultIntervalSeconds?: number,
): ResolvedTiming {
  const before = readJobRules(current.jobRules) ?? {};
  const next: JobRules = { ...before };
  const details: { path: string; message: string }[] = [];
  const hasInterval = typeof body.intervalSeconds === 'number';
  const hasSchedule = typeof body.schedule === 'string';
  if (hasInterval && hasSchedule) details.push({ path: 'schedule', message: 'give either intervalSeconds or schedule, not both' });
  let intervalSeconds = current.intervalSeconds;
  if (hasSchedule) {
    next.schedule = (body.schedule as string).trim();
    if (body.timezone === undefined && before.schedule === undefined) delete next.timezone;
  } else if (hasInterval) {
    delete next.schedule;
    delete next.timezone;
    intervalSeconds = body.intervalSeconds as number;
  } else if (body.schedule === null || body.intervalSeconds === null) {
    details.push({ path: body.schedule === null ? 'schedule' : 'intervalSeconds', message: 'a job needs either intervalSeconds or schedule' });
  }
  if (body.timezone === null) delete next.timezone;
  else if (typeof body.timezone === 'string') next.timezone = body.timezone.trim();
  for (const key of ['minDurationSeconds', 'maxDurationSeconds', 'minIntervalSeconds'] as const) {
    const value = body[key];
    if (value === null) delete next[key];
    else if (typeof value === 'number') next[key] = value;
  }
  if (next.timezone !== undefined && next.schedule === undefined) details.push({ path: 'timezone', message: 'applies only with a schedule' });
  if (next.schedule !== undefined) {
    const problem = scheduleProblem(next.schedule, next.timezone ?? 'UTC');
    if (problem)
      details.push({
        path: problem === 'unknown time zone' ? 'timezone' : 'schedule',
        message: problem === 'unknown time zone' ? 'must be an IANA time zone such as Europe/Berlin' : problem,
      });
    else intervalSeconds = shortestGapSeconds(next.schedule, next.timezone ?? 'UTC', now);
  }
  if (next.minDurationSeconds !== undefined && next.maxDurationSeconds !== undefined && next.minDurationSeconds > next.maxDurationSeconds) {
    details.push({ path: 'minDurationSeconds', message: 'must not exceed maxDurationSeconds' });
  }
  if (intervalSeconds === undefined) intervalSeconds = defaultIntervalSeconds;
  if (intervalSeconds === undefined && details.length === 0) details.push({ path: 'intervalSeconds', message: 'a job needs either intervalSeconds or schedule' });
  const first = details[0];
  if (first) throw badRequest(first.message.charAt(0).toUpperCase() + first.message.slice(1), details);
  return { jobRules: writeJobRules(next), intervalSeconds: intervalSeconds as number };
}

/** The job-rule fields a body sets (outbound checks refuse them). */
export const hasJobRuleFields = (body: JobRuleInput): (keyof typeof jobRuleFields)[] =>
  (Object.keys(jobRuleFields) as (keyof typeof jobRuleFields)[]).filter((key) => body[key] !== undefined && body[key] !== null);
