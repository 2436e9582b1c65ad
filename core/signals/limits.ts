/**
 * The spec's ping limits (its Limits table), apart from the schemas in schema.ts so that
 * the ping path (and the ping Lambda's bundle) reads them without loading zod.
 */
export const PING_PAYLOAD_MAX_BYTES = 10_240;
export const DEDUP_WINDOW_MS = 1000;
export const PING_RATE_LIMIT: { limit: number; windowSeconds: number } = { limit: 100, windowSeconds: 60 };
/** Signals expire by TTL; uptime history comes from rollups, not from raw signals. */
export const SIGNAL_TTL_DAYS = 30;

/** One payload registers at most this many dependencies (the rest are ignored). */
export const MAX_REPORTED_DEPENDENCIES = 20;
export const MAX_DEPENDENCY_NAME = 255;

export type ReportedDependency = { name: string; status: 'ok' | 'down' };

/**
 * What a ping payload may report (spec: `dependencies`, objects with `name` and `status`).
 * Entries that do not parse (an over-long or blank name, an unknown status) are dropped one by
 * one, names are trimmed, at most MAX_REPORTED_DEPENDENCIES are kept; none left means none
 * reported. Plain code rather than a schema: it runs on the ping path.
 */
export function parseReportedDependencies(value: unknown): ReportedDependency[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const kept: ReportedDependency[] = [];
  for (const item of value) {
    if (kept.length === MAX_REPORTED_DEPENDENCIES) break;
    if (typeof item !== 'object' || item === null) continue;
    const { name, status } = item as { name?: unknown; status?: unknown };
    if (typeof name !== 'string' || (status !== 'ok' && status !== 'down')) continue;
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > MAX_DEPENDENCY_NAME) continue;
    kept.push({ name: trimmed, status });
  }
  return kept.length > 0 ? kept : undefined;
}
