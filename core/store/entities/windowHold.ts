import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const HOLD_KINDS = ['DEPLOYMENT', 'MAINTENANCE'] as const;

/**
 * What a deployment or maintenance window does to one project while it lasts, written into the
 * project's own partition. `windowEffects` reads every hold of a project with one consistent
 * query (no GSI lag: a window opened a moment ago already holds), then keeps those whose
 * [startsAt, endsAt) covers the instant asked about. Holds are written when a window is opened or
 * scheduled and deleted when it ends; a recurring maintenance window rewrites them per occurrence.
 */
export const createWindowHoldEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'windowHold', version: '1', service: 'vigil' },
      attributes: {
        projectId: { type: 'number', required: true },
        kind: { type: HOLD_KINDS, required: true },
        windowId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        startsAt: { type: 'string', required: true },
        /** Absent for a deployment with no planned end: it holds until it is ended. */
        endsAt: { type: 'string' },
        suppressIncidents: { type: 'boolean', required: true },
        suppressAlerts: { type: 'boolean', required: true },
        /** Safety net for a hold whose window was lost mid-update: AWS expires it a day after endsAt. */
        expiresAt: { type: 'number' },
      },
      indexes: {
        byProject: {
          pk: { field: 'pk', composite: ['projectId'] },
          sk: { field: 'sk', composite: ['kind', 'windowId'] },
        },
      },
    },
    config,
  );

export type WindowHoldItem = EntityItem<ReturnType<typeof createWindowHoldEntity>>;
