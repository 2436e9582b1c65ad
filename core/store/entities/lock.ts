import { Entity, type EntityConfiguration } from 'electrodb';

/**
 * Uniqueness without transactions: a lock item per (scope, value), written with
 * attribute_not_exists. It names its owner so an orphan left by a crash can be taken over, and it
 * doubles as the lookup (email -> user, slug -> check).
 */
export const createLockEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'lock', version: '1', service: 'vigil' },
      attributes: {
        scope: { type: 'string', required: true },
        value: { type: 'string', required: true },
        ownerId: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byValue: { pk: { field: 'pk', composite: ['scope', 'value'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );
