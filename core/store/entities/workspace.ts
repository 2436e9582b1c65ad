import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** Plans a workspace can be on (their limits: auth/plans.ts). */
export const PLANS = ['FREE', 'TEAM', 'BUSINESS'] as const;
export type Plan = (typeof PLANS)[number];

export const createWorkspaceEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'workspace', version: '1', service: 'vigil' },
      attributes: {
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        plan: { type: PLANS, required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
        /**
         * Set when the workspace is made, removed before its first status page component is
         * written: while set, no page can show any of its checks, and a status change skips the
         * component queries (core/statuspages/hooks.ts). Absent on workspaces made before it: they
         * query as before.
         */
        noStatusComponents: { type: 'boolean' },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['workspaceId'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );

export type WorkspaceItem = EntityItem<ReturnType<typeof createWorkspaceEntity>>;
