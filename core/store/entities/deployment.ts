import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const DEPLOYMENT_STATUSES = ['SCHEDULED', 'ACTIVE', 'ENDED'] as const;

/**
 * A deployment window of a project. `startEffectsAt`/`endEffectsAt` record that the side effects
 * of starting (hold written, checks paused) and ending (checks resumed, hold deleted) are done;
 * until then `dueAt` stays set, so the sweep finishes work a crashed request left half
 * done. `byDue` is sparse: only deployments with pending work or a scheduled transition are in it.
 */
export const createDeploymentEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'deployment', version: '1', service: 'vigil' },
      attributes: {
        deploymentId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        projectId: { type: 'number', required: true },
        name: { type: 'string' },
        version: { type: 'string' },
        author: { type: 'string' },
        link: { type: 'string' },
        status: { type: DEPLOYMENT_STATUSES, required: true },
        autoPause: { type: 'boolean', required: true },
        /** Absent when the deployment targets every check of the project. */
        checkIds: { type: 'list', items: { type: 'number' } },
        /** The checks this deployment actually paused; only these are resumed when it ends. */
        autoPausedCheckIds: { type: 'list', items: { type: 'number' }, required: true },
        /** When the window starts (the planned start while SCHEDULED); never changes. */
        startedAt: { type: 'string', required: true },
        endedAt: { type: 'string' },
        scheduledStartAt: { type: 'string' },
        scheduledEndAt: { type: 'string' },
        startEffectsAt: { type: 'string' },
        endEffectsAt: { type: 'string' },
        dueShard: { type: 'string' },
        dueAt: { type: 'string' },
        createdBy: { type: 'number' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['deploymentId'] }, sk: { field: 'sk', composite: [] } },
        byProject: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['projectId'] },
          sk: { field: 'gsi1sk', composite: ['startedAt', 'deploymentId'] },
        },
        byDue: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['dueShard'] },
          sk: { field: 'gsi2sk', composite: ['dueAt'] },
        },
        byWorkspace: {
          index: 'gsi3',
          pk: { field: 'gsi3pk', composite: ['workspaceId'] },
          sk: { field: 'gsi3sk', composite: ['startedAt', 'deploymentId'] },
        },
      },
    },
    config,
  );

export type DeploymentItem = EntityItem<ReturnType<typeof createDeploymentEntity>>;
