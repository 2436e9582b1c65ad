import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { listOrderOf } from './check.js';

export const createProjectEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'project', version: '1', service: 'vigil' },
      attributes: {
        projectId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        description: { type: 'string' },
        /**
         * SHA-256 of the project's Healthchecks-style ping key (core/identity/pingKeys.ts): the key
         * itself is shown once; the lock `project-ping-key` with this value names the project.
         */
        pingKeyHash: { type: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
        /**
         * The id zero-padded to 16 digits, derived on every write: the workspace index sorts by
         * it, so a page of projects is a key range in id order (core/store/projectLists.ts).
         */
        listOrder: {
          type: 'string',
          watch: ['projectId'],
          set: (_value: unknown, item: { projectId?: number }) => (item.projectId === undefined ? undefined : listOrderOf(item.projectId)),
        },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['projectId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['listOrder'] },
        },
      },
    },
    config,
  );

export type ProjectItem = EntityItem<ReturnType<typeof createProjectEntity>>;
