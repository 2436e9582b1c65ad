import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { OUTBOX_ATTRIBUTES } from '../outbox.js';
import { SEVERITIES } from './check.js';

export const INCIDENT_STATES = ['ACTIVE', 'MONITORING', 'RESOLVED'] as const;
export const INCIDENT_REASONS = ['SERVICE_DOWN', 'DEPENDENCY_DOWN'] as const;

/**
 * An incident. State flips are conditional writes on `revision` (the value read), so two workers
 * or a worker and a user never overwrite each other. Absent optional attributes mean null.
 * Indexes by workspace, check and project are sparse where the attribute is missing.
 */
export const createIncidentEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'incident', version: '1', service: 'vigil' },
      attributes: {
        incidentId: { type: 'number', required: true },
        publicId: { type: 'string', required: true },
        workspaceId: { type: 'number', required: true },
        projectId: { type: 'number' },
        checkId: { type: 'number' },
        dependencyId: { type: 'number' },
        dependencyName: { type: 'string' },
        /** Opened by an alert from this integration (core/integrations/). */
        integrationId: { type: 'number' },
        title: { type: 'string', required: true },
        summary: { type: 'string' },
        state: { type: INCIDENT_STATES, required: true },
        reason: { type: INCIDENT_REASONS, required: true },
        severity: { type: SEVERITIES, required: true },
        startedAt: { type: 'string', required: true },
        resolvedAt: { type: 'string' },
        recoveredAt: { type: 'string' },
        acknowledgedBy: { type: 'number' },
        acknowledgedByKeyId: { type: 'number' },
        acknowledgedAt: { type: 'string' },
        /** True when declared through the API rather than opened by a check or dependency. */
        declared: { type: 'boolean', required: true },
        revision: { type: 'number', required: true },
        /**
         * The escalation cursor (core/escalation/cursor.ts): the next (epoch, cycle, step) to fire,
         * counted from `escalationAnchor`. `dueShard`/`dueAt` are set only while
         * something is pending (a step, an ack timeout, a maintenance hold): the sparse index the
         * escalation sweep reads.
         */
        escalationEpoch: { type: 'number' },
        escalationCycle: { type: 'number' },
        escalationStep: { type: 'number' },
        escalationAnchor: { type: 'string' },
        escalationHeld: { type: 'boolean' },
        escalationAfterAck: { type: 'boolean' },
        dueShard: { type: 'string' },
        dueAt: { type: 'string' },
        /** The alerts its changes owe, until relayed (core/outbox). */
        ...OUTBOX_ATTRIBUTES,
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['incidentId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['incidentId'] },
        },
        byCheck: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['checkId'] },
          sk: { field: 'gsi2sk', composite: ['incidentId'] },
        },
        byProject: {
          index: 'gsi3',
          pk: { field: 'gsi3pk', composite: ['projectId'] },
          sk: { field: 'gsi3sk', composite: ['incidentId'] },
        },
        byDue: {
          index: 'gsi5',
          pk: { field: 'gsi5pk', composite: ['dueShard'] },
          sk: { field: 'gsi5sk', composite: ['dueAt'] },
        },
      },
    },
    config,
  );

export type IncidentItem = EntityItem<ReturnType<typeof createIncidentEntity>>;
