import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { SEVERITIES } from './check.js';

export const INTEGRATION_KINDS = ['ALERTMANAGER', 'GRAFANA', 'SNS', 'PAGERDUTY_EVENTS'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

/** How an Alertmanager-format notification becomes incidents: one per group, or one per alert. */
export const INTEGRATION_GROUPINGS = ['GROUP', 'ALERT'] as const;

/**
 * A source of alerts from outside (core/integrations/). Its intake URL carries a secret that is
 * stored only as its SHA-256 (`secretHash`), looked up through gsi2 and then checked against the
 * item itself (read consistently), so a rotated secret stops working with the write that
 * replaced it even while the index still holds the old hash. `severityMapJson`: the label value ->
 * severity table as JSON (its shape is the schema's, core/integrations/schema.ts).
 */
export const createIntegrationEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'integration', version: '1', service: 'vigil' },
      attributes: {
        integrationId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        kind: { type: INTEGRATION_KINDS, required: true },
        projectId: { type: 'number' },
        enabled: { type: 'boolean', required: true },
        secretHash: { type: 'string', required: true },
        /** The last four characters of the secret, to tell URLs apart without showing them. */
        secretHint: { type: 'string', required: true },
        defaultSeverity: { type: SEVERITIES, required: true },
        severityMapJson: { type: 'string', required: true },
        grouping: { type: INTEGRATION_GROUPINGS, required: true },
        createdBy: { type: 'number' },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['integrationId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['integrationId'] },
        },
        bySecret: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['secretHash'] },
          sk: { field: 'gsi2sk', composite: [] },
        },
      },
    },
    config,
  );

export type IntegrationItem = EntityItem<ReturnType<typeof createIntegrationEntity>>;
