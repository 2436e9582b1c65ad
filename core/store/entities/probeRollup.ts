import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const ROLLUP_GRAINS = ['5m', '1d'] as const;

/*
 * The latency histogram's bins as stored (probes/latency.ts does the arithmetic): bins grow
 * geometrically, so an estimate lands in the bin of the exact value, off by at most one bin's
 * width (15%, at least 1 ms; 5 ms below 5 ms). Changing them changes what stored counts mean.
 */
const FIRST_BOUND_MS = 5;
const GROWTH = 1.15;
export const LATENCY_LAST_BOUND_MS = 60_000;

/** Upper bounds (exclusive) of the bins; the last bin takes everything from the last bound up. */
export const LATENCY_BOUNDS_MS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let bound = FIRST_BOUND_MS; bound < LATENCY_LAST_BOUND_MS; bound = Math.ceil(bound * GROWTH)) bounds.push(bound);
  bounds.push(LATENCY_LAST_BOUND_MS);
  return bounds;
})();

/** The open-ended last bin is reported as if it were one more step wide. */
export const LATENCY_OPEN_BIN_END_MS = Math.ceil(LATENCY_LAST_BOUND_MS * GROWTH);

export const LATENCY_BIN_COUNT = LATENCY_BOUNDS_MS.length + 1;

export type LatencyBinName = `l${number}`;
export const latencyBinName = (index: number): LatencyBinName => `l${index}`;
const LATENCY_BIN_NAMES: readonly LatencyBinName[] = Array.from({ length: LATENCY_BIN_COUNT }, (_, i) => latencyBinName(i));

// One top-level number per latency bin, so one `ADD` creates or bumps a bin (a nested map would
// have to exist before it can be added to). Only bins that were hit are stored.
const latencyBins = Object.fromEntries(LATENCY_BIN_NAMES.map((name) => [name, { type: 'number' as const }])) as Record<LatencyBinName, { type: 'number' }>;

/**
 * Counters of an outbound check's runs per 5-minute bucket (grain `5m`, kept 8 days) and per UTC
 * day (grain `1d`, kept 400 days: uptime history up to 365 days). Every run adds to one
 * item of each grain with a single upsert; stats and timelines read a window with one query.
 * Latency counters cover runs that got an HTTP response.
 */
export const createProbeRollupEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'probeRollup', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        grain: { type: ROLLUP_GRAINS, required: true },
        /** Start of the bucket or day (ISO instant, UTC). */
        at: { type: 'string', required: true },
        runs: { type: 'number' },
        failures: { type: 'number' },
        latencyCount: { type: 'number' },
        latencySumMs: { type: 'number' },
        expiresAt: { type: 'number' },
        ...latencyBins,
      },
      indexes: {
        byCheck: {
          pk: { field: 'pk', composite: ['checkId', 'grain'] },
          sk: { field: 'sk', composite: ['at'] },
        },
      },
    },
    config,
  );

export type ProbeRollupItem = EntityItem<ReturnType<typeof createProbeRollupEntity>>;
