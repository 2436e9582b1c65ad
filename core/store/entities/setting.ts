import { Entity, type EntityConfiguration } from 'electrodb';

/** Install-wide values kept in the table, such as the token signing secret created on first boot. */
export const createSettingEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'setting', version: '1', service: 'vigil' },
      attributes: {
        name: { type: 'string', required: true },
        value: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byName: { pk: { field: 'pk', composite: ['name'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );
