/**
 * Latency histograms for the rollups: counts per bin, so P95 over any window is a sum of small
 * items instead of a read of every run. Bins grow geometrically, so an estimate lands in the bin
 * of the exact value: off by at most one bin's width (15%, at least 1 ms; 5 ms below 5 ms).
 */

const FIRST_BOUND_MS = 5;
const GROWTH = 1.15;
const LAST_BOUND_MS = 60_000;

/** Upper bounds (exclusive) of the bins; the last bin takes everything from the last bound up. */
export const LATENCY_BOUNDS_MS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let bound = FIRST_BOUND_MS; bound < LAST_BOUND_MS; bound = Math.ceil(bound * GROWTH)) bounds.push(bound);
  bounds.push(LAST_BOUND_MS);
  return bounds;
})();

export const LATENCY_BIN_COUNT = LATENCY_BOUNDS_MS.length + 1;

export type LatencyBinName = `l${number}`;
export const latencyBinName = (index: number): LatencyBinName => `l${index}`;
export const LATENCY_BIN_NAMES: readonly LatencyBinName[] = Array.from({ length: LATENCY_BIN_COUNT }, (_, i) => latencyBinName(i));

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
  const low = index === 0 ? 0 : (LATENCY_BOUNDS_MS[index - 1] ?? LAST_BOUND_MS);
  // The open-ended last bin is reported as if it were one more step wide.
  const high = LATENCY_BOUNDS_MS[index] ?? Math.ceil(LAST_BOUND_MS * GROWTH);
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
