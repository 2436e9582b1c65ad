import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/**
 * A component of a status page, in its page's partition (the page reads all of them with one
 * query). `targetKey` (`check#<id>`, `project#<id>`, `dependency#<id>`, `integration#<id>`) indexes it
 * by what it shows, so a status change of a check (or an integration's incident) finds the pages
 * to refresh without reading any page.
 */
export const createStatusComponentEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'statusComponent', version: '1', service: 'vigil' },
      attributes: {
        statusPageId: { type: 'number', required: true },
        componentId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        description: { type: 'string' },
        groupName: { type: 'string' },
        position: { type: 'number', required: true },
        showUptimeBar: { type: 'boolean', required: true },
        checkId: { type: 'number' },
        projectId: { type: 'number' },
        dependencyId: { type: 'number' },
        /** Follows the open incidents of this integration (core/integrations/). */
        integrationId: { type: 'number' },
        targetKey: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byPage: {
          pk: { field: 'pk', composite: ['statusPageId'] },
          sk: { field: 'sk', composite: ['componentId'] },
        },
        byTarget: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['targetKey'] },
          sk: { field: 'gsi2sk', composite: ['statusPageId', 'componentId'] },
        },
      },
    },
    config,
  );

export type StatusComponentItem = EntityItem<ReturnType<typeof createStatusComponentEntity>>;
