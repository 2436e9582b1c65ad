import { z } from 'zod';
import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { ID_PADDING } from './team.js';

export const TARGET_TYPES = ['ALERT_CHANNEL', 'USER', 'ON_CALL_SCHEDULE', 'TEAM'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

/** The id field each target type carries (the spec's names). */
export const TARGET_ID_FIELD = {
  ALERT_CHANNEL: 'alertChannelId',
  USER: 'targetUserId',
  ON_CALL_SCHEDULE: 'targetScheduleId',
  TEAM: 'targetTeamId',
} as const satisfies Record<TargetType, string>;

/** Steps as stored in `stepsJson` (already validated on the way in; read back through this). */
export const StoredTarget = z.object({
  targetType: z.enum(TARGET_TYPES),
  alertChannelId: z.number().int().optional(),
  targetUserId: z.number().int().optional(),
  targetScheduleId: z.number().int().optional(),
  targetTeamId: z.number().int().optional(),
});
export type StoredTarget = z.infer<typeof StoredTarget>;
export const StoredSteps = z.array(z.object({ position: z.number().int(), delayMinutes: z.number().int(), targets: z.array(StoredTarget) }));
export type StoredSteps = z.infer<typeof StoredSteps>;

export const targetIdOf = (target: StoredTarget): number | undefined => target[TARGET_ID_FIELD[target.targetType]];

/**
 * An escalation policy with its steps (JSON, validated by `core/escalation/schema.ts`): a
 * supplied `steps` array replaces them all in one conditional write on `revision`. Listed in
 * priority order through gsi1; `priority` is unique per workspace through a lock item
 * (`escalation-priority#<workspaceId>`). `catchAll` stands for `projectIds: null`.
 */
export const createEscalationPolicyEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'escalationPolicy', version: '1', service: 'vigil' },
      attributes: {
        policyId: { type: 'number', required: true, padding: ID_PADDING },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        priority: { type: 'number', required: true, padding: ID_PADDING },
        catchAll: { type: 'boolean', required: true },
        projectIds: { type: 'list', items: { type: 'number' } },
        /** Integrations whose incidents it routes too, whatever their project (absent: none). */
        integrationIds: { type: 'list', items: { type: 'number' } },
        /** Absent means null: no acknowledgement timeout. */
        ackTimeoutMinutes: { type: 'number' },
        repeatCount: { type: 'number', required: true },
        enabled: { type: 'boolean', required: true },
        stepsJson: { type: 'string', required: true },
        /** `<source>:<its id>` of a policy an importer created (core/imports/): a second import finds it by this, never by name. */
        importRef: { type: 'string' },
        revision: { type: 'number', required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['policyId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['priority', 'policyId'] },
        },
      },
    },
    config,
  );

export type EscalationPolicyItem = EntityItem<ReturnType<typeof createEscalationPolicyEntity>>;
