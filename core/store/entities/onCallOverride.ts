import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { ID_PADDING } from './team.js';

/**
 * One override of a schedule. Indexed by (scheduleId, endAt): the overrides that touch
 * `[from, to)` are those ending after `from` (key condition) that start before `to` (filter), so
 * a read costs the overrides still to come, never the schedule's whole history.
 */
export const createOnCallOverrideEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'onCallOverride', version: '1', service: 'vigil' },
      attributes: {
        overrideId: { type: 'number', required: true, padding: ID_PADDING },
        scheduleId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        overrideUserId: { type: 'number', required: true },
        startAt: { type: 'string', required: true },
        endAt: { type: 'string', required: true },
        /** Absent means null: unconditional. */
        replacedUserId: { type: 'number' },
        reason: { type: 'string' },
        createdBy: { type: 'number' },
        /** `<source>:<its id>` of an override an importer created (core/imports/): a second import finds it by this. */
        importRef: { type: 'string' },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['overrideId'] }, sk: { field: 'sk', composite: [] } },
        bySchedule: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['scheduleId'] },
          sk: { field: 'gsi1sk', composite: ['endAt', 'overrideId'] },
        },
      },
    },
    config,
  );

export type OnCallOverrideItem = EntityItem<ReturnType<typeof createOnCallOverrideEntity>>;
