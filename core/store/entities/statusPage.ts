import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
// Spelled here, not imported: the store sits below the areas (core/statuspages/schema.ts checks they agree).
export const PAGE_VISIBILITIES = ['PUBLIC', 'PASSWORD_PROTECTED', 'PRIVATE'] as const;

/**
 * A status page. Its slug and verified custom domain are unique across the install through the
 * lock items `status-page-slug` and `status-page-domain` (owner: the page id), which double as the
 * public lookups. A domain is only locked once verified (core/statuspages/customDomain.ts). `passwordVersion` is bumped with every password change: page sessions carry it, so a
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
        /** The page's TXT challenge token for its current domain (new with every domain saved). */
        customDomainToken: { type: 'string' },
        /** When the current (unverified) claim began: it lapses 7 days later. */
        customDomainClaimedAt: { type: 'string' },
        /** The last DNS look at the domain (verification or the sweep's re-check). */
        customDomainCheckedAt: { type: 'string' },
        domainDueShard: { type: 'string' },
        domainDueAt: { type: 'string' },
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
        /** Sparse: only a page with a custom domain, due for its claim's lapse or its re-check. */
        byDomainDue: {
          index: 'gsi2',
          pk: { field: 'gsi2pk', composite: ['domainDueShard'] },
          sk: { field: 'gsi2sk', composite: ['domainDueAt'] },
        },
      },
    },
    config,
  );

export type StatusPageItem = EntityItem<ReturnType<typeof createStatusPageEntity>>;
