import { Entity, type EntityConfiguration } from 'electrodb';

/**
 * dependency <-> check, so deleting a dependency finds its checks with a query, not a scan.
 * Written when a check names the dependency (dependencyId / dependencyIds) or a ping payload
 * reports it; readers confirm against the check, so a link left behind by an edit is harmless.
 */
export const createDependencyLinkEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'dependencyLink', version: '1', service: 'vigil' },
      attributes: {
        dependencyId: { type: 'number', required: true },
        checkId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        /** The check reported this dependency in a ping payload. */
        reported: { type: 'boolean' },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byDependency: {
          pk: { field: 'pk', composite: ['dependencyId'] },
          sk: { field: 'sk', composite: ['checkId'] },
        },
        byCheck: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['checkId'] },
          sk: { field: 'gsi1sk', composite: ['dependencyId'] },
        },
      },
    },
    config,
  );
