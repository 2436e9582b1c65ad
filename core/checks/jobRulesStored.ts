/*
 * The stored form of a job's rules, without zod: the ping path reads them on every ping of a job
 * that has them, and the ping Lambda's bundle must not carry the schema library
 * (stacks/signalsBundle.test.ts). The request and response schemas are in jobRules.ts.
 */

/**
 * A heartbeat job's optional rules (docs/guide/cron.md): a cron `schedule` read in `timezone` instead of an
 * interval, duration bounds for a run, and the shortest interval between successes. Stored on the
 * check as one canonical JSON string (`jobRules`, absent when none), so the ping path's update can
 * pin the rules it planned with in a single comparison.
 */
export type JobRules = {
  schedule?: string;
  timezone?: string;
  minDurationSeconds?: number;
  maxDurationSeconds?: number;
  minIntervalSeconds?: number;
};

const NUMBER_FIELDS = ['minDurationSeconds', 'maxDurationSeconds', 'minIntervalSeconds'] as const;
const STRING_FIELDS = ['schedule', 'timezone'] as const;

/** The rules in a parsed JSON value, or undefined when it is not a rules object (unknown keys are dropped). */
function rulesOf(raw: unknown): JobRules | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const source = raw as Record<string, unknown>;
  const rules: JobRules = {};
  for (const key of STRING_FIELDS) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') return undefined;
    rules[key] = value;
  }
  for (const key of NUMBER_FIELDS) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value !== 'number') return undefined;
    rules[key] = value;
  }
  return rules;
}

const cache = new Map<string, JobRules>();
const CACHE_MAX = 10_000;

/** The stored rules, parsed once per distinct string (the ping path reads them on every ping of a job that has them). */
export function readJobRules(stored: string | undefined): JobRules | undefined {
  if (stored === undefined) return undefined;
  let rules = cache.get(stored);
  if (!rules) {
    let raw: unknown;
    try {
      raw = JSON.parse(stored);
    } catch {
      return undefined;
    }
    rules = rulesOf(raw);
    if (!rules) return undefined;
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(stored, rules);
  }
  return rules;
}

const ORDER = ['schedule', 'timezone', 'minDurationSeconds', 'maxDurationSeconds', 'minIntervalSeconds'] as const;

/** The canonical stored form (fixed key order), or undefined when there are no rules. */
export function writeJobRules(rules: JobRules | undefined): string | undefined {
  if (!rules) return undefined;
  const entries = ORDER.flatMap((key) => (rules[key] === undefined ? [] : [[key, rules[key]] as const]));
  return entries.length === 0 ? undefined : JSON.stringify(Object.fromEntries(entries));
}
