import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addToHistogram, binOf, LATENCY_BIN_COUNT, LATENCY_BOUNDS_MS, quantile, type LatencyHistogram } from './latency.js';

const histogramOf = (samples: readonly number[]): LatencyHistogram => {
  const histogram: LatencyHistogram = new Map();
  for (const sample of samples) histogram.set(binOf(sample), (histogram.get(binOf(sample)) ?? 0) + 1);
  return histogram;
};

const nearestRank = (samples: readonly number[], q: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] ?? NaN;
};

const latencies = fc.array(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 90_000 })), { minLength: 1, maxLength: 300 });

describe('latency histogram', () => {
  it('puts every latency in the bin whose bounds contain it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), (latency) => {
        const bin = binOf(latency);
        expect(bin).toBeGreaterThanOrEqual(0);
        expect(bin).toBeLessThan(LATENCY_BIN_COUNT);
        if (bin > 0) expect(latency).toBeGreaterThanOrEqual(LATENCY_BOUNDS_MS[bin - 1]!);
        if (bin < LATENCY_BOUNDS_MS.length) expect(latency).toBeLessThan(LATENCY_BOUNDS_MS[bin]!);
      }),
    );
  });

  it('bins are at most 15% (and at least 1 ms) wide', () => {
    for (let i = 1; i < LATENCY_BOUNDS_MS.length; i++) {
      const low = LATENCY_BOUNDS_MS[i - 1]!;
      expect(LATENCY_BOUNDS_MS[i]! - low).toBeLessThanOrEqual(Math.max(1, Math.ceil(low * 0.15)));
    }
  });

  it('estimates P95 inside the bin of the exact nearest-rank P95', () => {
    fc.assert(
      fc.property(latencies, (samples) => {
        const exact = nearestRank(samples, 0.95);
        const estimate = quantile(histogramOf(samples), 0.95);
        const bin = binOf(exact);
        const low = bin === 0 ? 0 : LATENCY_BOUNDS_MS[bin - 1]!;
        const high = LATENCY_BOUNDS_MS[bin] ?? Math.ceil(60_000 * 1.15);
        expect(estimate).toBeGreaterThanOrEqual(low);
        expect(estimate).toBeLessThanOrEqual(high);
      }),
    );
  });

  it('merging histograms is the histogram of the merged samples', () => {
    fc.assert(
      fc.property(latencies, latencies, (a, b) => {
        const merged = histogramOf(a);
        addToHistogram(merged, histogramOf(b));
        expect(merged).toEqual(histogramOf([...a, ...b]));
      }),
    );
  });

  it('has no quantile without samples', () => {
    expect(quantile(new Map(), 0.95)).toBeNull();
  });
});
