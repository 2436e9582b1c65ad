/**
 * Latency histograms for the rollups: counts per bin, so P95 over any window is a sum of small
 * items instead of a read of every run. The bins are a rollup's stored layout (one attribute per
 * bin), so they are defined with the entity, with the precision they give.
 */
import { LATENCY_BOUNDS_MS, LATENCY_LAST_BOUND_MS, LATENCY_OPEN_BIN_END_MS } from '../store/entities/probeRollup.js';

export { LATENCY_BIN_COUNT, LATENCY_BOUNDS_MS, latencyBinName } from '../store/entities/probeRollup.js';

/** Sparse histogram: bin index -> count. */
export type LatencyHistogram = Map<number, number>;

export function binOf(latencyMs: number): number {
  let low = 0;
  let high = LATENCY_BOUNDS_MS.length;
  // First bound greater than the latency; binary search over ~70 bounds.
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((LATENCY_BOUNDS_MS[mid] ?? Infinity) > latencyMs) high = mid;
    else low = mid + 1;
  }
  return low;
}

function binRange(index: number): { low: number; high: number } {
  const low = index === 0 ? 0 : (LATENCY_BOUNDS_MS[index - 1] ?? LATENCY_LAST_BOUND_MS);
  const high = LATENCY_BOUNDS_MS[index] ?? LATENCY_OPEN_BIN_END_MS;
  return { low, high };
}

export function addToHistogram(into: LatencyHistogram, from: ReadonlyMap<number, number>): void {
  for (const [bin, count] of from) into.set(bin, (into.get(bin) ?? 0) + count);
}

/**
 * The q-quantile (0 < q <= 1) by nearest rank, placed inside its bin by linear interpolation;
 * null for an empty histogram. Whole milliseconds.
 */
export function quantile(histogram: ReadonlyMap<number, number>, q: number): number | null {
  const total = [...histogram.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bin of [...histogram.keys()].sort((a, b) => a - b)) {
    const count = histogram.get(bin) ?? 0;
    if (count <= 0) continue;
    if (seen + count >= rank) {
      const { low, high } = binRange(bin);
      return Math.round(low + ((high - low) * (rank - seen)) / count);
    }
    seen += count;
  }
  return null;
}
