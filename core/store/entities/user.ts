import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const createUserEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'user', version: '1', service: 'vigil' },
      attributes: {
        userId: { type: 'number', required: true },
        email: { type: 'string', required: true },
        name: { type: 'string' },
        passwordHash: { type: 'string', required: true },
        /** Bumped by logout-everywhere and password change: refresh families of older epochs die. */
        sessionEpoch: { type: 'number', required: true, default: 0 },
        /**
         * `<revokedAt seconds>:<familyId>` of sessions ended by logout while their access tokens
         * may still be alive (pruned after one access-token lifetime): the session middleware
         * already reads this item, so ending one session costs no extra read per request.
         */
        /** Workspaces created after the sign-up one (counted against VIGIL_MAX_WORKSPACES_PER_USER). */
        workspacesCreated: { type: 'number' },
        endedSessions: { type: 'set', items: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['userId'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );

export type UserItem = EntityItem<ReturnType<typeof createUserEntity>>;
