import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { ID_PADDING } from './team.js';

/**
 * An on-call schedule with its rotations. Rotations (with their participants) live inside the
 * schedule item as JSON, validated by `core/oncall/schema.ts` on the way in and out: a supplied
 * `rotations` array replaces them all in one conditional write on `revision`, so readers never
 * see half of an edit. `calendarTokenHash` is the SHA-256 of the secret calendar URL's token.
 */
export const createOnCallScheduleEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'onCallSchedule', version: '1', service: 'vigil' },
      attributes: {
        scheduleId: { type: 'number', required: true, padding: ID_PADDING },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        description: { type: 'string' },
        timezone: { type: 'string', required: true },
        /** Absent means null: handoff notices disabled. */
        handoffNotificationMinutes: { type: 'number' },
        enabled: { type: 'boolean', required: true },
        rotationsJson: { type: 'string', required: true },
        calendarTokenHash: { type: 'string' },
        /** `<source>:<its id>` of a schedule an importer created (core/imports/): a second import finds it by this, never by name. */
        importRef: { type: 'string' },
        /** When the notice sweep next looks at it (handoff and coverage-gap notices): the escalation-due index, gsi5. */
        dueShard: { type: 'string' },
        dueAt: { type: 'string' },
        revision: { type: 'number', required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['scheduleId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['scheduleId'] },
        },
        byDue: {
          index: 'gsi5',
          pk: { field: 'gsi5pk', composite: ['dueShard'] },
          sk: { field: 'gsi5sk', composite: ['dueAt'] },
        },
      },
    },
    config,
  );

export type OnCallScheduleItem = EntityItem<ReturnType<typeof createOnCallScheduleEntity>>;
