import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const API_KEY_PERMISSIONS = ['read_only', 'read_write'] as const;
export const API_KEY_KINDS = ['service', 'ping'] as const;

/** Keyed by the SHA-256 of the key: authentication is one consistent get. */
export const createApiKeyEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'apiKey', version: '1', service: 'vigil' },
      attributes: {
        keyHash: { type: 'string', required: true },
        apiKeyId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        permission: { type: API_KEY_PERMISSIONS, required: true },
        kind: { type: API_KEY_KINDS, required: true },
        enabled: { type: 'boolean', required: true },
        displayPrefix: { type: 'string', required: true },
        lastFour: { type: 'string', required: true },
        createdBy: { type: 'number' },
        lastUsedAt: { type: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byHash: { pk: { field: 'pk', composite: ['keyHash'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['apiKeyId'] },
        },
        byId: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['apiKeyId'] },
          sk: { field: 'gsi2sk', composite: [] },
        },
      },
    },
    config,
  );

export type ApiKeyItem = EntityItem<ReturnType<typeof createApiKeyEntity>>;
