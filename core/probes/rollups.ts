import type { Deps } from '../deps.js';
import type { ProbeRollupItem } from '../store/entities/probeRollup.js';
import { addToHistogram, binOf, LATENCY_BIN_COUNT, latencyBinName, quantile, type LatencyHistogram } from './latency.js';

/**
 * Rollups of probe runs: per check, one item per 5-minute bucket and one per UTC day. Each run
 * adds to both with one upsert apiece; reads take a window with one query per grain and never
 * touch the raw runs.
 */

export const BUCKET_MS = 5 * 60_000;
export const DAY_MS = 24 * 60 * 60_000;
const BUCKET_TTL_DAYS = 8;
const DAY_TTL_DAYS = 400;

export type Grain = ProbeRollupItem['grain'];
export type RunSample = { ok: boolean; latencyMs: number; gotResponse: boolean };

export const floorTo = (ms: number, step: number): number => Math.floor(ms / step) * step;

/** Totals over some rollups: everything stats and timelines need. */
export type Totals = { runs: number; failures: number; latencyCount: number; latencySumMs: number; histogram: LatencyHistogram };

export const emptyTotals = (): Totals => ({ runs: 0, failures: 0, latencyCount: 0, latencySumMs: 0, histogram: new Map() });

export async function recordRollups(deps: Deps, checkId: number, startedAt: Date, sample: RunSample): Promise<void> {
  const grains: [Grain, number, number][] = [
    ['5m', floorTo(startedAt.getTime(), BUCKET_MS), BUCKET_TTL_DAYS],
    ['1d', floorTo(startedAt.getTime(), DAY_MS), DAY_TTL_DAYS],
  ];
  await Promise.all(
    grains.map(([grain, at, ttlDays]) => {
      const counters: Record<string, number> = { runs: 1, failures: sample.ok ? 0 : 1 };
      if (sample.gotResponse) {
        counters.latencyCount = 1;
        counters.latencySumMs = sample.latencyMs;
        counters[latencyBinName(binOf(sample.latencyMs))] = 1;
      }
      return deps.store.entities.probeRollup
        .update({ checkId, grain, at: new Date(at).toISOString() })
        .add(counters)
        .set({ expiresAt: Math.floor((at + ttlDays * DAY_MS) / 1000) })
        .go({ response: 'none' });
    }),
  );
}

function histogramOf(item: ProbeRollupItem): LatencyHistogram {
  // The bins are declared from a generated list, so ElectroDB's item type does not name them.
  const fields = item as Record<string, unknown>;
  const histogram: LatencyHistogram = new Map();
  for (let bin = 0; bin < LATENCY_BIN_COUNT; bin++) {
    const count = fields[latencyBinName(bin)];
    if (typeof count === 'number' && count > 0) histogram.set(bin, count);
  }
  return histogram;
}

export function addItem(into: Totals, item: ProbeRollupItem): void {
  into.runs += item.runs ?? 0;
  into.failures += item.failures ?? 0;
  into.latencyCount += item.latencyCount ?? 0;
  into.latencySumMs += item.latencySumMs ?? 0;
  addToHistogram(into.histogram, histogramOf(item));
}

/** Rollups of one grain whose start lies in [fromMs, toMs), oldest first. */
export async function readRollups(deps: Deps, checkId: number, grain: Grain, fromMs: number, toMs: number, now: Date): Promise<ProbeRollupItem[]> {
  if (toMs <= fromMs) return [];
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const result = await deps.store.entities.probeRollup.query
    .byCheck({ checkId, grain })
    .between({ at: new Date(fromMs).toISOString() }, { at: new Date(toMs - 1).toISOString() })
    .where((attr, op) => op.gt(attr.expiresAt, nowSeconds))
    .go({ pages: 'all' });
  return result.data;
}

export type Summary = { runs: number; failures: number; uptimePercent: number | null; avgLatencyMs: number | null; p95LatencyMs: number | null };

const round2 = (value: number): number => Math.round(value * 100) / 100;

export function summarize(totals: Totals): Summary {
  return {
    runs: totals.runs,
    failures: totals.failures,
    uptimePercent: totals.runs === 0 ? null : round2(((totals.runs - totals.failures) / totals.runs) * 100),
    avgLatencyMs: totals.latencyCount === 0 ? null : Math.round(totals.latencySumMs / totals.latencyCount),
    p95LatencyMs: quantile(totals.histogram, 0.95),
  };
}
