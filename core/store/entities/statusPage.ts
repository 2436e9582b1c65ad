import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
// Spelled here, not imported: the store sits below the areas (core/statuspages/schema.ts checks they agree).
export const PAGE_VISIBILITIES = ['PUBLIC', 'PASSWORD_PROTECTED', 'PRIVATE'] as const;

/**
 * A status page. Its slug and custom domain are unique across the install through the lock items
 * `status-page-slug` and `status-page-domain` (owner: the page id), which double as the public
 * lookups. `passwordVersion` is bumped with every password change: page sessions carry it, so a
 * new password ends them all. `revision` guards every write.
 */
export const createStatusPageEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'statusPage', version: '1', service: 'vigil' },
      attributes: {
        statusPageId: { type: 'number', required: true },
        workspaceId: { type: 'number', required: true },
        name: { type: 'string', required: true },
        slug: { type: 'string', required: true },
        visibility: { type: PAGE_VISIBILITIES, required: true },
        passwordHash: { type: 'string' },
        passwordVersion: { type: 'number', required: true },
        /** When a page's password was last changed after its creation: subscribers who came in before it hear no more. */
        passwordSetAt: { type: 'string' },
        logoUrl: { type: 'string' },
        primaryColor: { type: 'string' },
        backgroundColor: { type: 'string' },
        faviconUrl: { type: 'string' },
        showUptimeHistory: { type: 'boolean', required: true },
        uptimeHistoryDays: { type: 'number', required: true },
        showIncidentHistory: { type: 'boolean', required: true },
        headerHtml: { type: 'string' },
        footerHtml: { type: 'string' },
        enabled: { type: 'boolean', required: true },
        customDomain: { type: 'string' },
        customDomainVerifiedAt: { type: 'string' },
        revision: { type: 'number', required: true },
        createdAt: { type: 'string', required: true },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: { pk: { field: 'pk', composite: ['statusPageId'] }, sk: { field: 'sk', composite: [] } },
        byWorkspace: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['workspaceId'] },
          sk: { field: 'gsi1sk', composite: ['statusPageId'] },
        },
      },
    },
    config,
  );

export type StatusPageItem = EntityItem<ReturnType<typeof createStatusPageEntity>>;
