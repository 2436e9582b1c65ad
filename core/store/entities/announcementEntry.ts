import { Entity, type EntityConfiguration } from 'electrodb';
import { ANNOUNCEMENT_STATES } from './announcement.js';

/**
 * One timeline entry of an announcement. The sort key is the transition's effect key
 * (`<revision>:entry`, zero-padded), created with attribute_not_exists: a replayed write appends
 * nothing twice, and the partition reads back in order.
 */
export const createAnnouncementEntryEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'announcementEntry', version: '1', service: 'vigil' },
      attributes: {
        announcementId: { type: 'number', required: true },
        entryKey: { type: 'string', required: true },
        entryId: { type: 'number', required: true },
        status: { type: ANNOUNCEMENT_STATES },
        body: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
      },
      indexes: {
        byAnnouncement: {
          pk: { field: 'pk', composite: ['announcementId'] },
          sk: { field: 'sk', composite: ['entryKey'] },
        },
      },
    },
    config,
  );
