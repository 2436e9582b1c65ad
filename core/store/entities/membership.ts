import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** Workspace roles, highest first (auth/roles.ts ranks them). */
export const ROLES = ['OWNER', 'ADMIN', 'MEMBER', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

export const createMembershipEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'membership', version: '1', service: 'vigil' },
      attributes: {
        workspaceId: { type: 'number', required: true },
        userId: { type: 'number', required: true },
        role: { type: ROLES, required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byWorkspace: {
          pk: { field: 'pk', composite: ['workspaceId'] },
          sk: { field: 'sk', composite: ['userId'] },
        },
        byUser: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['userId'] },
          sk: { field: 'gsi1sk', composite: ['workspaceId'] },
        },
      },
    },
    config,
  );

export type MembershipItem = EntityItem<ReturnType<typeof createMembershipEntity>>;
