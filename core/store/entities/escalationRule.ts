import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { ID_PADDING } from './team.js';

/**
 * A legacy escalation rule: tell `alertChannelId` `delayMinutes` after an incident of
 * `projectId` opened. Listed by delay through gsi1; found by channel through gsi2 (the channel's
 * delete guard). (projectId, alertChannelId, delayMinutes) is unique through a lock item.
 */
export const createEscalationRuleEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'escalationRule', version: '1', service: 'vigil' },
      attributes: {
        ruleId: { type: 'number', required: true, padding: ID_PADDING },
        workspaceId: { type: 'number', required: true },
        projectId: { type: 'number', required: true },
        alertChannelId: { type: 'number', required: true },
        delayMinutes: { type: 'number', required: true, padding: ID_PADDING },
        enabled: { type: 'boolean', required: true },
        revision: { type: 'number', required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['ruleId'] }, sk: { field: 'sk', composite: [] } },
        byProject: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['projectId'] },
          sk: { field: 'gsi1sk', composite: ['delayMinutes', 'ruleId'] },
        },
        byChannel: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['alertChannelId'] },
          sk: { field: 'gsi2sk', composite: ['ruleId'] },
        },
      },
    },
    config,
  );

export type EscalationRuleItem = EntityItem<ReturnType<typeof createEscalationRuleEntity>>;
