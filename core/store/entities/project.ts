import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const createProjectEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'project', version: '1', service: 'vigil' },
      attributes: {
        projectId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        description: { type: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['projectId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['projectId'] },
        },
      },
    },
    config,
  );

export type ProjectItem = EntityItem<ReturnType<typeof createProjectEntity>>;
