import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { LATENCY_BIN_NAMES, type LatencyBinName } from '../../probes/latency.js';

export const ROLLUP_GRAINS = ['5m', '1d'] as const;

// One top-level number per latency bin, so one `ADD` creates or bumps a bin (a nested map would
// have to exist before it can be added to). Only bins that were hit are stored.
const latencyBins = Object.fromEntries(LATENCY_BIN_NAMES.map((name) => [name, { type: 'number' as const }])) as Record<
  LatencyBinName,
  { type: 'number' }
>;

/**
 * Counters of an outbound check's runs per 5-minute bucket (grain `5m`, kept 8 days) and per UTC
 * day (grain `1d`, kept 400 days: uptime history up to 365 days, DESIGN 6). Every run adds to one
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
