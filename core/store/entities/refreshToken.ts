import { Entity, type EntityConfiguration } from 'electrodb';

/** One refresh token (by hash). Rotation marks it spent; a spent token presented again kills its family. */
export const createRefreshTokenEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'refreshToken', version: '1', service: 'vigil' },
      attributes: {
        tokenHash: { type: 'string', required: true },
        familyId: { type: 'string', required: true },
        userId: { type: 'number', required: true },
        sessionEpoch: { type: 'number', required: true },
        spentAt: { type: 'string' },
        createdAt: { type: 'string', required: true },
        expiresAt: { type: 'number', required: true },
      },
      indexes: {
        byHash: { pk: { field: 'pk', composite: ['tokenHash'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );

/** A refresh family: every token rotated from one sign-in. Revoking it ends the whole chain. */
export const createRefreshFamilyEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'refreshFamily', version: '1', service: 'vigil' },
      attributes: {
        familyId: { type: 'string', required: true },
        userId: { type: 'number', required: true },
        revokedAt: { type: 'string' },
        createdAt: { type: 'string', required: true },
        expiresAt: { type: 'number', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['familyId'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );
