import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A check's uptime counters for one UTC day (core/statuspages/uptime.ts), added to with `ADD` as
 * status intervals close. `intervals` holds the start of every interval already added, and each
 * `ADD` is conditional on its absence: a redelivered status change adds nothing twice. Kept 400
 * days (TTL), like the probe rollups.
 */
export const createUptimeRollupEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'uptimeRollup', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        date: { type: 'string', required: true },
        observedSeconds: { type: 'number' },
        downSeconds: { type: 'number' },
        maintenanceSeconds: { type: 'number' },
        maintenanceDownSeconds: { type: 'number' },
        intervals: { type: 'set', items: 'string' },
        expiresAt: { type: 'number' },
      },
      indexes: {
        byCheck: { pk: { field: 'pk', composite: ['checkId'] }, sk: { field: 'sk', composite: ['date'] } },
      },
    },
    config,
  );

/**
 * Where the open status interval of a check began, and in which observed state: closing it adds
 * `[since, at)` to the rollups; reads add the open part up to now. Moved conditionally on `since`.
 */
export const createUptimeCursorEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'uptimeCursor', version: '1', service: 'vigil' },
      attributes: {
        checkId: { type: 'number', required: true },
        state: { type: ['UP', 'DOWN', 'UNOBSERVED'] as const, required: true },
        since: { type: 'string', required: true },
      },
      indexes: {
        byCheck: { pk: { field: 'pk', composite: ['checkId'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );

export type UptimeCursorItem = EntityItem<ReturnType<typeof createUptimeCursorEntity>>;
