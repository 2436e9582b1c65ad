import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { countQuery } from '../store/count.js';
import { newUlid } from '../ids.js';
import { PROBE_REGIONS, type ProbeRegion } from '../checks/outboundSchema.js';
import type { Deps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import { envelope, type Page } from '../http/pagination.js';
import type { ProbeRunResult } from '../outbound/probe.js';
import type { ProbeRunItem } from '../store/entities/probeRun.js';
import type { ProbeRun } from './schema.js';

/** Raw run records: written once per run, listed newest first, expired by TTL. */

export const RUN_TTL_DAYS = 7;
const DAY_SECONDS = 86_400;

export async function recordRun(
  deps: Deps,
  run: { checkId: number; workspaceId: number; region: ProbeRegion; startedAt: Date; roundAt: string; result: ProbeRunResult },
): Promise<ProbeRunItem> {
  const { result } = run;
  const created = await deps.store.entities.probeRun
    .create({
      checkId: run.checkId,
      runId: newUlid(run.startedAt.getTime()).toLowerCase(),
      workspaceId: run.workspaceId,
      region: run.region,
      startedAt: run.startedAt.toISOString(),
      roundAt: run.roundAt,
      ok: result.ok,
      ...(result.statusCode === null ? {} : { statusCode: result.statusCode }),
      latencyMs: Math.max(0, Math.round(result.latencyMs)),
      ...(result.failureReason === null ? {} : { failureReason: result.failureReason }),
      ...(result.sslExpiresAt === null ? {} : { sslExpiresAt: result.sslExpiresAt }),
      expiresAt: Math.floor(run.startedAt.getTime() / 1000) + RUN_TTL_DAYS * DAY_SECONDS,
    })
    .go();
  return created.data;
}

const isRegion = (value: string): value is ProbeRegion => (PROBE_REGIONS as readonly string[]).includes(value);

export function toProbeRun(item: ProbeRunItem): ProbeRun {
  return {
    id: item.runId,
    checkId: item.checkId,
    // Regions are written from the enum; an unknown one would be a corrupt row, shown as the home default.
    region: isRegion(item.region) ? item.region : 'us-east-1',
    startedAt: item.startedAt,
    ok: item.ok,
    statusCode: item.statusCode ?? null,
    latencyMs: item.latencyMs,
    failureReason: item.failureReason ?? null,
    sslExpiresAt: item.sslExpiresAt ?? null,
  };
}

export type RunsQuery = { page: number; limit: number; startDate?: string | undefined; endDate?: string | undefined };

const EARLIEST = '1970-01-01T00:00:00.000Z';
const LATEST = '9999-12-31T23:59:59.999Z';

/**
 * Runs of a check, newest first, between startDate and endDate (both inclusive). DynamoDB has no
 * offset, so page N reads the N * limit newest runs; `total` is a COUNT query over the same range
 * (core/signals/history.ts does the same for signals).
 */
export async function listRuns(deps: Deps, checkId: number, query: RunsQuery, now: Date): Promise<Page<ProbeRun>> {
  const start = query.startDate ? new Date(query.startDate) : undefined;
  const end = query.endDate ? new Date(query.endDate) : undefined;
  if (start && end && start.getTime() > end.getTime()) {
    throw badRequest('startDate must not be after endDate', [{ path: 'startDate', message: 'must not be after endDate' }]);
  }
  // The sort key continues past startedAt with the run id: the upper bound is the next millisecond.
  const upper = end ? new Date(end.getTime() + 1).toISOString() : LATEST;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const range = deps.store.entities.probeRun.query
    .byCheck({ checkId })
    .between({ startedAt: start?.toISOString() ?? EARLIEST }, { startedAt: upper })
    .where((attr, op) => op.gt(attr.expiresAt, nowSeconds));
  const wanted = query.page * query.limit;
  const [found, total] = await Promise.all([range.go({ order: 'desc', count: wanted }), countQuery(deps.store, range.params() as QueryCommandInput)]);
  const items = found.data.slice((query.page - 1) * query.limit, wanted).map(toProbeRun);
  return envelope(items, total, query.page, query.limit);
}

// Enough newest runs to find each region's latest even when a region lags a few rounds behind.
const LATEST_RUNS_SCAN = 60;

/** The newest run of each region (null for a region with no run among the newest ones). */
export async function latestRunsByRegion(deps: Deps, checkId: number, regions: readonly ProbeRegion[], now: Date): Promise<{ region: ProbeRegion; lastRun: ProbeRun | null }[]> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const recent = await deps.store.entities.probeRun.query
    .byCheck({ checkId })
    .where((attr, op) => op.gt(attr.expiresAt, nowSeconds))
    .go({ order: 'desc', count: LATEST_RUNS_SCAN });
  return regions.map((region) => {
    const newest = recent.data.find((run) => run.region === region);
    return { region, lastRun: newest ? toProbeRun(newest) : null };
  });
}

/** Runs a sparkline shows at most. */
export const SPARKLINE_RUNS = 30;

/**
 * A check's newest runs' latencies, oldest first, for a list's sparkline: one Query of the
 * newest 30 runs (any region); failed and expired runs are left out, so a line may be shorter.
 */
export async function recentLatencies(deps: Deps, checkId: number, now: Date): Promise<number[]> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const recent = await deps.store.entities.probeRun.query.byCheck({ checkId }).go({ order: 'desc', limit: SPARKLINE_RUNS });
  return recent.data
    .filter((run) => run.ok && run.expiresAt > nowSeconds)
    .map((run) => run.latencyMs)
    .reverse();
}
