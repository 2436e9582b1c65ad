import type { Deps } from '../../deps.js';
import { readOncePerBatch } from '../../store/batchReads.js';
import { zlib } from '../../auth/zlib.js';
import { readCheckById, listProjectChecks } from '../../checks/repository.js';
import type { CheckItem } from '../../store/entities/check.js';
import type { StatusPageItem } from '../../store/entities/statusPage.js';
import type { StatusComponentItem } from '../../store/entities/statusComponent.js';
import type { AnnouncementItem } from '../../store/entities/announcement.js';
import {
  computePageStatus,
  SEVERITY_STATUS,
  worst,
  type CheckSnapshot,
  type ComponentStatus,
  type IntegrationHold,
  type MaintenanceHold,
  type PageStatusSnapshot,
} from '../componentStatus.js';
import { sanitizeTenantHtml } from '../render/sanitize.js';
import type { MaintenanceSpan } from '../uptime.js';
import { listPageAnnouncements, readTimeline } from './announcementStore.js';
import { dateRange, maintenanceSpans, readCheckRollups } from './rollups.js';
import type { CheckUptime, PageSnapshot, SnapshotAnnouncement, SnapshotComponent, SnapshotPage } from './snapshotShape.js';
import { cachedSnapshot, forgetPage, rememberSnapshot } from './viewCache.js';
import { itemKey, outboxWrite, relayAfterWrite } from '../../outbox/index.js';
import { retryOnConflict } from '../../store/conditional.js';
import { diffSnapshots, goneAnnouncementIds, owedForChanges } from '../events.js';

const LATENCY_WARNING_MS = 3_600_000;

export type { CheckUptime, PageSnapshot, SnapshotAnnouncement, SnapshotComponent, SnapshotPage } from './snapshotShape.js';

export const pageFields = (page: StatusPageItem): SnapshotPage => ({
  id: page.statusPageId,
  workspaceId: page.workspaceId,
  name: page.name,
  slug: page.slug,
  visibility: page.visibility,
  passwordVersion: page.passwordVersion,
  enabled: page.enabled,
  customDomain: page.customDomain ?? null,
  customDomainVerifiedAt: page.customDomainVerifiedAt ?? null,
  logoUrl: page.logoUrl ?? null,
  faviconUrl: page.faviconUrl ?? null,
  primaryColor: page.primaryColor ?? null,
  backgroundColor: page.backgroundColor ?? null,
  headerHtml: page.headerHtml ? sanitizeTenantHtml(page.headerHtml) : null,
  footerHtml: page.footerHtml ? sanitizeTenantHtml(page.footerHtml) : null,
  showUptimeHistory: page.showUptimeHistory,
  uptimeHistoryDays: page.uptimeHistoryDays,
  showIncidentHistory: page.showIncidentHistory,
});

export const componentFields = (c: StatusComponentItem): SnapshotComponent => ({
  id: c.componentId,
  name: c.name,
  description: c.description ?? null,
  groupName: c.groupName ?? null,
  position: c.position,
  showUptimeBar: c.showUptimeBar,
  checkId: c.checkId ?? null,
  projectId: c.projectId ?? null,
  dependencyId: c.dependencyId ?? null,
  integrationId: c.integrationId ?? null,
  createdAt: c.createdAt,
});

/** An announcement as snapshots and the public history carry it: the record with its timeline. */
export const snapshotAnnouncement = async (deps: Deps, item: AnnouncementItem): Promise<SnapshotAnnouncement> => ({
  id: item.announcementId,
  publicId: item.publicId,
  title: item.title,
  status: item.status,
  impact: item.impact ?? null,
  componentIds: item.componentIds,
  scheduledFor: item.scheduledFor ?? null,
  scheduledUntil: item.scheduledUntil ?? null,
  resolvedAt: item.resolvedAt ?? null,
  createdAt: item.createdAt,
  updatedAt: item.updatedAt,
  updates: await readTimeline(deps, item.announcementId),
});

export const byPosition = <T extends { position: number; id: number }>(list: T[]): T[] => [...list].sort((a, b) => a.position - b.position || a.id - b.id);

function checkSnapshot(check: CheckItem, now: Date): CheckSnapshot {
  return {
    checkId: check.checkId,
    projectId: check.projectId ?? null,
    status: check.status,
    failingRegions: check.checkMode === 'OUTBOUND' && (check.probeFailStreak ?? 0) > 0 && check.status !== 'DOWN' ? 1 : 0,
    latencyWarningActive: check.latencyWarnedAt !== undefined && now.getTime() - Date.parse(check.latencyWarnedAt) < LATENCY_WARNING_MS,
  };
}

export async function readComponents(deps: Deps, statusPageId: number): Promise<StatusComponentItem[]> {
  return (await deps.store.entities.statusComponent.query.byPage({ statusPageId }).go({ pages: 'all', consistent: true })).data;
}

/** Reads everything the page shows and builds its snapshot (no write). */
export async function buildSnapshot(deps: Deps, page: StatusPageItem, now: Date): Promise<PageSnapshot> {
  const components = byPosition((await readComponents(deps, page.statusPageId)).map(componentFields));
  const checks = new Map<number, CheckItem>();
  const projects = new Set<number>();
  const dependencyIds = new Set<number>();
  const integrationIds = new Set<number>();
  for (const component of components) {
    if (component.checkId !== null) {
      const check = await readCheckById(deps, component.checkId);
      if (check && check.workspaceId === page.workspaceId) {
        checks.set(check.checkId, check);
        if (check.projectId !== undefined) projects.add(check.projectId);
      }
    } else if (component.projectId !== null) {
      projects.add(component.projectId);
      for (const check of await listProjectChecks(deps, component.projectId)) if (check.workspaceId === page.workspaceId) checks.set(check.checkId, check);
    } else if (component.dependencyId !== null) dependencyIds.add(component.dependencyId);
    else if (component.integrationId != null) integrationIds.add(component.integrationId);
  }
  const dependenciesDown: number[] = [];
  for (const dependencyId of dependencyIds) {
    const dependency = (await deps.store.entities.dependency.get({ dependencyId }).go()).data;
    if (dependency?.workspaceId === page.workspaceId && dependency.lastReportedStatus === 'down') dependenciesDown.push(dependencyId);
  }
  const integrationsOpen: IntegrationHold[] = [];
  for (const integrationId of integrationIds) {
    const status = await integrationStatus(deps, page.workspaceId, integrationId);
    if (status !== 'OPERATIONAL') integrationsOpen.push({ integrationId, status });
  }
  const maintenance: MaintenanceHold[] = [];
  const spansByProject = new Map<number, MaintenanceSpan[]>();
  for (const projectId of projects) {
    const spans = await maintenanceSpans(deps, projectId);
    spansByProject.set(projectId, spans);
    for (const span of spans) maintenance.push({ projectId, startsAt: span.start, endsAt: span.end });
  }
  const { first, last } = dateRange(now, page.uptimeHistoryDays, 0);
  const uptime: Record<string, CheckUptime> = {};
  for (const check of checks.values()) {
    const read = await readCheckRollups(deps, check.checkId, first, last);
    uptime[String(check.checkId)] = { ...read, maintenance: check.projectId === undefined ? [] : (spansByProject.get(check.projectId) ?? []) };
  }
  const announcements: SnapshotAnnouncement[] = [];
  for (const item of await listPageAnnouncements(deps, page.statusPageId)) {
    if (item.status === 'RESOLVED') continue;
    announcements.push(await snapshotAnnouncement(deps, item));
  }
  const checkList = [...checks.values()].map((check) => checkSnapshot(check, now));
  const snapshot: Omit<PageSnapshot, 'statuses'> = {
    page: pageFields(page),
    components,
    checks: checkList,
    dependenciesDown,
    integrationsOpen,
    maintenance,
    announcements,
    uptime,
    builtAt: now.toISOString(),
  };
  return { ...snapshot, statuses: statusesAt(snapshot, now) };
}

export const statusesAt = (
  snapshot: Pick<PageSnapshot, 'components' | 'checks' | 'dependenciesDown' | 'integrationsOpen' | 'maintenance' | 'announcements'>,
  now: Date,
): PageStatusSnapshot =>
  computePageStatus(
    {
      components: snapshot.components,
      checks: snapshot.checks,
      dependenciesDown: snapshot.dependenciesDown,
      integrationsOpen: snapshot.integrationsOpen,
      maintenance: snapshot.maintenance,
      announcements: snapshot.announcements,
    },
    now,
  );

const encode = (snapshot: PageSnapshot): string => zlib.gzipSync(JSON.stringify(snapshot)).toString('base64');
const decode = (data: string): PageSnapshot => JSON.parse(zlib.gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as PageSnapshot;

/**
 * Rebuilds and stores the snapshot of one page; a page that is gone loses its snapshot. The write
 * is conditional on the revision read and records the events of the difference in the same
 * request (core/statuspages/events.ts): racing rebuilds each emit only what they changed.
 */
export async function refreshSnapshot(deps: Deps, statusPageId: number): Promise<PageSnapshot | null> {
  const page = (await deps.store.entities.statusPage.get({ statusPageId }).go({ consistent: true })).data;
  if (!page) {
    await deps.store.entities.statusPageSnapshot.delete({ statusPageId }).go();
    forgetPage(deps.store, statusPageId);
    return null;
  }
  const written = await retryOnConflict(
    async () => {
      const now = deps.clock.now();
      const stored = (await deps.store.entities.statusPageSnapshot.get({ statusPageId }).go({ consistent: true })).data;
      const previous = stored ? decode(stored.data) : null;
      const snapshot = await buildSnapshot(deps, page, now);
      const gone: SnapshotAnnouncement[] = [];
      for (const announcementId of goneAnnouncementIds(previous, snapshot)) {
        const item = (await deps.store.entities.announcement.get({ statusPageId, announcementId }).go({ consistent: true })).data;
        if (item) gone.push(await snapshotAnnouncement(deps, item));
      }
      const revision = (stored?.revision ?? 0) + 1;
      const owed = owedForChanges(snapshot.page, revision, diffSnapshots(previous, snapshot, gone, now), now);
      const outbox = owed.length > 0 ? outboxWrite(owed, now) : undefined;
      const update = deps.store.entities.statusPageSnapshot.update({ statusPageId }).set({ data: encode(snapshot), builtAt: snapshot.builtAt, revision, ...(outbox?.set ?? {}) });
      const guarded = (outbox ? update.append({ outbox: outbox.entries }) : update).where((attr, op) =>
        !stored ? op.notExists(attr.builtAt) : stored.revision === undefined ? op.notExists(attr.revision) : op.eq(attr.revision, stored.revision),
      );
      const result = await guarded.go({ response: 'all_new' });
      return { snapshot, pending: outbox ? (result.data.outbox ?? []) : [] };
    },
    { what: 'status page snapshot rebuild' },
  );
  forgetPage(deps.store, statusPageId);
  await relayAfterWrite(deps, itemKey(deps.store.entities.statusPageSnapshot.get({ statusPageId })), written.pending);
  return written.snapshot;
}

/** The stored snapshot, or a fresh one when none was stored yet (first view after an upgrade). */
export async function readSnapshot(deps: Deps, statusPageId: number): Promise<PageSnapshot | null> {
  const nowMs = deps.clock.now().getTime();
  const cached = cachedSnapshot(deps.store, statusPageId, nowMs);
  if (cached) return cached;
  const stored = (await deps.store.entities.statusPageSnapshot.get({ statusPageId }).go()).data;
  const snapshot = stored ? decode(stored.data) : await refreshSnapshot(deps, statusPageId);
  if (snapshot) rememberSnapshot(deps.store, statusPageId, snapshot, nowMs);
  return snapshot;
}

/** Pages showing a target: one index query per target key. */
export async function pagesShowing(deps: Deps, targetKeys: readonly string[]): Promise<number[]> {
  const ids = new Set<number>();
  for (const targetKey of targetKeys) {
    const found = await readOncePerBatch(deps, `components#${targetKey}`, () => deps.store.entities.statusComponent.query.byTarget({ targetKey }).go({ pages: 'all' }));
    for (const component of found.data) ids.add(component.statusPageId);
  }
  return [...ids];
}

export const targetKeyOf = (target: {
  checkId?: number | null | undefined;
  projectId?: number | null | undefined;
  dependencyId?: number | null | undefined;
  integrationId?: number | null | undefined;
}): string => {
  if (target.checkId != null) return `check#${target.checkId}`;
  if (target.projectId != null) return `project#${target.projectId}`;
  if (target.integrationId != null) return `integration#${target.integrationId}`;
  return `dependency#${target.dependencyId ?? 0}`;
};

/**
 * The worst open incident of an integration, as a component status. Its incidents' episode
 * pointers sit in one partition under checkId = -integrationId (core/integrations/apply.ts), read
 * strongly consistent: the pointer is set before the incident is written and cleared after it is
 * resolved, so each open incident is read by its id, and a pointer whose incident is resolved or
 * not written yet counts for nothing.
 */
async function integrationStatus(deps: Deps, workspaceId: number, integrationId: number): Promise<ComponentStatus> {
  const episodes = await deps.store.entities.incidentEpisode.query.byCheck({ checkId: -integrationId }).go({ pages: 'all', consistent: true });
  const statuses: ComponentStatus[] = [];
  for (const episode of episodes.data) {
    if (episode.openIncidentId === undefined) continue;
    const incident = (await deps.store.entities.incident.get({ incidentId: episode.openIncidentId }).go({ consistent: true })).data;
    if (incident && incident.workspaceId === workspaceId && incident.integrationId === integrationId && incident.state !== 'RESOLVED')
      statuses.push(SEVERITY_STATUS[incident.severity]);
  }
  return worst(statuses);
}

/** An integration's incident opened, changed or resolved: the pages with a component that follows it are rebuilt. */
export async function refreshPagesOfIntegration(deps: Deps, integrationId: number): Promise<number> {
  const pages = await pagesShowing(deps, [`integration#${integrationId}`]);
  for (const statusPageId of pages) await refreshSnapshot(deps, statusPageId);
  return pages.length;
}

/** A check's status changed: every page showing it, directly or through its project, is rebuilt. */
export async function refreshPagesOfCheck(deps: Deps, checkId: number, projectId: number | null): Promise<number> {
  const keys = [`check#${checkId}`, ...(projectId === null ? [] : [`project#${projectId}`])];
  const pages = await pagesShowing(deps, keys);
  for (const statusPageId of pages) await refreshSnapshot(deps, statusPageId);
  return pages.length;
}
