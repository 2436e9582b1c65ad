import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const DEPENDENCY_CATEGORIES = ['DATABASE', 'CACHE', 'API', 'QUEUE', 'STORAGE', 'OTHER'] as const;

/**
 * An external service a workspace depends on. Names are unique per workspace (case-insensitive)
 * through the lock `dependency-name#<workspaceId>`, whose owner is the dependency id; the lock is
 * also how a name reported in a ping payload finds its dependency.
 */
export const createDependencyEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'dependency', version: '1', service: 'vigil' },
      attributes: {
        dependencyId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        description: { type: 'string' },
        category: { type: DEPENDENCY_CATEGORIES },
        url: { type: 'string' },
        /** MANUAL (registered on the dashboard) or REPORTED (first seen in a ping payload). */
        source: { type: ['MANUAL', 'REPORTED'] as const, required: true },
        /** The last status a ping payload reported for it. */
        lastReportedStatus: { type: ['ok', 'down'] as const },
        lastReportedAt: { type: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['dependencyId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['dependencyId'] },
        },
      },
    },
    config,
  );

export type DependencyItem = EntityItem<ReturnType<typeof createDependencyEntity>>;
