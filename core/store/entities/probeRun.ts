import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { PROBE_FAILURE_REASONS } from '../../outbound/probe.js';

/**
 * One probe run of an outbound check from one region (the run record of docs/guide/probes.md), newest last in the
 * check's partition; expires by TTL (`expiresAt`, epoch seconds). Stats and timelines never read
 * these: they read the rollups (probeRollup) written next to each run.
 */
export const createProbeRunEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'probeRun', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        /** ULID: unique even when two regions start in the same millisecond. */
        runId: { type: 'string', required: true },
        workspaceId: { type: 'number', required: true },
        region: { type: 'string', required: true },
        startedAt: { type: 'string', required: true },
        /** The round (probe period) the run reported into. */
        roundAt: { type: 'string', required: true },
        ok: { type: 'boolean', required: true },
        statusCode: { type: 'number' },
        latencyMs: { type: 'number', required: true },
        failureReason: { type: PROBE_FAILURE_REASONS },
        sslExpiresAt: { type: 'string' },
        expiresAt: { type: 'number', required: true },
      },
      indexes: {
        byCheck: {
          pk: { field: 'pk', composite: ['checkId'] },
          sk: { field: 'sk', composite: ['startedAt', 'runId'] },
        },
      },
    },
    config,
  );

export type ProbeRunItem = EntityItem<ReturnType<typeof createProbeRunEntity>>;
