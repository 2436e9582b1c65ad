import type { Deps } from '../deps.js';
import { badRequest } from '../http/errors.js';
import { loadOutboundCheck } from './outbound.js';
import type { Ctx } from '../context.js';
import { addItem, BUCKET_MS, DAY_MS, emptyTotals, floorTo, readRollups, summarize, type Totals } from './rollups.js';
import { durationMs, type OutboundStats, type OutboundTimeline, type TimelineBucket } from './schema.js';

/**
 * Stats and timelines from the rollups. Windows end now and are aligned to 5-minute buckets (the
 * current bucket included). Up to two days are read from 5-minute buckets; longer windows read
 * the first partial day from buckets and every later day from day rollups, so a 365-day window
 * is at most 288 + 366 small items, never the raw runs.
 */

const BUCKET_ONLY_WINDOW_MS = 2 * DAY_MS;
/** 5-minute buckets are kept 8 days; timelines with sub-day buckets reach back 7. */
export const MAX_FINE_TIMELINE_MS = 7 * DAY_MS;

const windowOf = (value: string): number => {
  const ms = durationMs(value);
  // The query schema has validated it already; this only narrows the type.
  if (ms === null) throw badRequest('Invalid window', [{ path: 'window', message: 'must be a duration such as 24h' }]);
  return ms;
};

/** Totals over [fromMs, toMs) where fromMs is bucket-aligned. */
async function totalsOver(deps: Deps, checkId: number, fromMs: number, toMs: number, now: Date): Promise<Totals> {
  const totals = emptyTotals();
  const dayStart = toMs - fromMs <= BUCKET_ONLY_WINDOW_MS ? toMs : Math.min(toMs, Math.ceil(fromMs / DAY_MS) * DAY_MS);
  const [buckets, days] = await Promise.all([readRollups(deps, checkId, '5m', fromMs, dayStart, now), readRollups(deps, checkId, '1d', dayStart, toMs, now)]);
  for (const item of [...buckets, ...days]) addItem(totals, item);
  return totals;
}

export async function outboundStats(ctx: Ctx, checkId: number, query: { window: string }): Promise<OutboundStats> {
  const check = await loadOutboundCheck(ctx, checkId, 'VIEWER');
  const now = ctx.deps.clock.now();
  const end = floorTo(now.getTime(), BUCKET_MS) + BUCKET_MS;
  const from = end - Math.ceil(windowOf(query.window) / BUCKET_MS) * BUCKET_MS;
  const totals = await totalsOver(ctx.deps, check.checkId, from, end, now);
  return { checkId: check.checkId, window: query.window, from: new Date(from).toISOString(), to: now.toISOString(), ...summarize(totals) };
}

function bucketStatus(totals: Totals): TimelineBucket['status'] {
  if (totals.runs === 0) return 'NO_DATA';
  if (totals.failures === 0) return 'UP';
  return totals.failures >= totals.runs ? 'DOWN' : 'DEGRADED';
}

/**
 * Consecutive buckets of `bucketMinutes` (aligned to UTC) covering the window, the last one being
 * the bucket now falls in; buckets without runs are included as NO_DATA so a chart has no gaps.
 */
export async function outboundTimeline(ctx: Ctx, checkId: number, query: { window: string; bucketMinutes: number }): Promise<OutboundTimeline> {
  const check = await loadOutboundCheck(ctx, checkId, 'VIEWER');
  const now = ctx.deps.clock.now();
  const windowMs = windowOf(query.window);
  const size = query.bucketMinutes * 60_000;
  if (size < DAY_MS && windowMs > MAX_FINE_TIMELINE_MS) {
    throw badRequest('Buckets shorter than a day reach back at most 7 days; use bucketMinutes=1440 for longer windows', [
      { path: 'window', message: 'must be at most 7d unless bucketMinutes is 1440' },
    ]);
  }
  const count = Math.max(1, Math.ceil(windowMs / size));
  const end = floorTo(now.getTime(), size) + size;
  const from = end - count * size;
  const items = await readRollups(ctx.deps, check.checkId, size >= DAY_MS ? '1d' : '5m', from, end, now);
  const totals = Array.from({ length: count }, emptyTotals);
  for (const item of items) {
    const index = Math.floor((Date.parse(item.at) - from) / size);
    const slot = totals[index];
    if (slot) addItem(slot, item);
  }
  return {
    checkId: check.checkId,
    window: query.window,
    bucketMinutes: query.bucketMinutes,
    from: new Date(from).toISOString(),
    to: now.toISOString(),
    buckets: totals.map((slot, i) => ({ start: new Date(from + i * size).toISOString(), ...summarize(slot), status: bucketStatus(slot) })),
  };
}
