import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const MAINTENANCE_STATES = ['SCHEDULED', 'ACTIVE', 'COMPLETED', 'CANCELLED'] as const;

/**
 * A maintenance window of a workspace over a resolved list of projects. `occurrenceStartAt`/
 * `occurrenceEndAt` are the current or next occurrence (for a one-time window: startAt/endAt;
 * for a recurring one: the cron occurrence, see core/maintenance/recurrence.ts). `dueAt`
 * is when the processor must next look at it (sparse `byDue`, spelled as every due index is:
 * core/store/dueSweep.ts; its shard value, `maintenance`, is its own, so its entries never share a
 * partition with the checks' numbered shards).
 */
export const createMaintenanceWindowEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'maintenanceWindow', version: '1', service: 'vigil' },
      attributes: {
        maintenanceWindowId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        description: { type: 'string' },
        startAt: { type: 'string', required: true },
        endAt: { type: 'string', required: true },
        projectIds: { type: 'list', items: { type: 'number' }, required: true },
        suppressAlerts: { type: 'boolean', required: true },
        suppressIncidents: { type: 'boolean', required: true },
        autoPublishToStatusPage: { type: 'boolean', required: true },
        timezone: { type: 'string', required: true },
        recurringCron: { type: 'string' },
        state: { type: MAINTENANCE_STATES, required: true },
        occurrenceStartAt: { type: 'string' },
        occurrenceEndAt: { type: 'string' },
        completedAt: { type: 'string' },
        cancelledAt: { type: 'string' },
        /** Bumped by every write; writes are conditional on the revision they read. */
        revision: { type: 'number', required: true },
        dueShard: { type: 'string' },
        dueAt: { type: 'string' },
        createdBy: { type: 'number' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['maintenanceWindowId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['maintenanceWindowId'] },
        },
        byDue: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['dueShard'] },
          sk: { field: 'gsi2sk', composite: ['dueAt'] },
        },
      },
    },
    config,
  );

export type MaintenanceWindowItem = EntityItem<ReturnType<typeof createMaintenanceWindowEntity>>;
