import { Entity, type EntityConfiguration } from 'electrodb';
import { OUTBOX_ATTRIBUTES } from '../outbox.js';

/**
 * The public view of a page, kept ready: everything a visitor's request needs (page fields,
 * components, the status inputs, open announcements, the uptime days of its checks), gzipped
 * JSON in one item. Rebuilt when the page, its components, its announcements or a target's
 * status change; component status is computed from it at read time, so time-driven changes
 * (a maintenance starting) need no rebuild. One get per view.
 * Each rebuild writes on the condition of the `revision` it read and owes, in the same write, the
 * events of what changed (core/statuspages/events.ts), so a change is emitted once.
 */
export const createStatusPageSnapshotEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'statusPageSnapshot', version: '1', service: 'vigil' },
      attributes: {
        statusPageId: { type: 'number', required: true },
        data: { type: 'string', required: true },
        builtAt: { type: 'string', required: true },
        /** Bumped by every rebuild; absent on snapshots stored before events existed (read as 0). */
        revision: { type: 'number' },
        ...OUTBOX_ATTRIBUTES,
      },
      indexes: {
        byPage: { pk: { field: 'pk', composite: ['statusPageId'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );
