import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
export const ANNOUNCEMENT_STATES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
export const ANNOUNCEMENT_IMPACT_LEVELS = ['NONE', 'MINOR', 'MAJOR', 'CRITICAL'] as const;

/**
 * An announcement of a status page, in the page's partition. Writes are conditional on
 * `revision` (core/statuspages/announcementTransition.ts). Scheduled maintenance that the sweep
 * still has to start or complete carries `dueShard`/`dueAt`, a sparse
 * index of exactly those. One published for a maintenance window carries `sourceKey`
 * (`maintenance#<windowId>`) so the window finds its announcements.
 */
export const createAnnouncementEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'announcement', version: '1', service: 'vigil' },
      attributes: {
        statusPageId: { type: 'number', required: true },
        announcementId: { type: 'number', required: true },
        publicId: { type: 'string', required: true },
        workspaceId: { type: 'number', required: true },
        title: { type: 'string', required: true },
        status: { type: ANNOUNCEMENT_STATES, required: true },
        impact: { type: ANNOUNCEMENT_IMPACT_LEVELS },
        componentIds: { type: 'list', items: { type: 'number' }, required: true },
        resolvedAt: { type: 'string' },
        scheduledFor: { type: 'string' },
        scheduledUntil: { type: 'string' },
        maintenanceStartedAt: { type: 'string' },
        maintenanceCompletedAt: { type: 'string' },
        revision: { type: 'number', required: true },
        dueShard: { type: 'string' },
        dueAt: { type: 'string' },
        sourceKey: { type: 'string' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byPage: {
          pk: { field: 'pk', composite: ['statusPageId'] },
          sk: { field: 'sk', composite: ['announcementId'] },
        },
        byDue: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['dueShard'] },
          sk: { field: 'gsi2sk', composite: ['dueAt'] },
        },
        bySource: {
          index: 'gsi3',
          pk: { field: 'gsi3pk', composite: ['sourceKey'] },
          sk: { field: 'gsi3sk', composite: ['statusPageId'] },
        },
      },
    },
    config,
  );

export type AnnouncementItem = EntityItem<ReturnType<typeof createAnnouncementEntity>>;
