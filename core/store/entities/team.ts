import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** Ids are zero-padded in sort keys so the index returns them in numeric order. */
export const ID_PADDING = { length: 16, char: '0' } as const;

/** A team of a workspace (escalation target `TEAM`: every member is told). */
export const createTeamEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'team', version: '1', service: 'vigil' },
      attributes: {
        teamId: { type: 'number', required: true, padding: ID_PADDING },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        description: { type: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['teamId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['teamId'] },
        },
      },
    },
    config,
  );

export type TeamItem = EntityItem<ReturnType<typeof createTeamEntity>>;
