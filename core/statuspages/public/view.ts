import type { Deps } from '../../deps.js';
import { overallIndicator, type ComponentStatus } from '../componentStatus.js';
import { listPageAnnouncements } from '../store/announcementStore.js';
import { dateRange, maintenanceSpans, readCheckRollups } from '../store/rollups.js';
import type { SnapshotPage } from '../store/snapshotShape.js';
import { publicAnnouncement, type PublicAnnouncement } from './announcementView.js';
import { snapshotAnnouncement, statusesAt, type CheckUptime, type PageSnapshot, type SnapshotComponent } from '../store/snapshot.js';
import { mergeRollups, readUptime, rollupDeltas, worstRollups, type DayRollup, type UptimeRead } from '../uptime.js';

/**
 * The public JSON (design "Public surfaces"): built from the page snapshot alone. Only what a
 * visitor may see: no check, project or dependency ids, no internal names, notes, tokens or URLs;
 * announcement Markdown only as sanitised HTML; titles on one line.
 */

export { publicAnnouncement, type PublicAnnouncement };


export type PublicComponent = { id: number; name: string; description: string | null; groupName: string | null; position: number; status: ComponentStatus; showUptimeBar: boolean };

export type PublicPage = {
  /** What a page shows the public of itself: never its visibility, password version or domain state. */
  page: Pick<
    SnapshotPage,
    'name' | 'slug' | 'logoUrl' | 'faviconUrl' | 'primaryColor' | 'backgroundColor' | 'headerHtml' | 'footerHtml' | 'showUptimeHistory' | 'uptimeHistoryDays' | 'showIncidentHistory'
  >;
  status: { indicator: string; description: string };
  components: PublicComponent[];
  activeAnnouncements: PublicAnnouncement[];
  scheduledMaintenance: PublicAnnouncement[];
  updatedAt: string;
};


export function publicPage(snapshot: PageSnapshot, now: Date): PublicPage {
  const { page } = snapshot;
  const statuses = statusesAt(snapshot, now);
  const statusOf = new Map(statuses.components.map((entry) => [entry.componentId, entry.status]));
  const announcements = snapshot.announcements.map((a) => publicAnnouncement(a, now));
  return {
    page: {
      name: page.name,
      slug: page.slug,
      logoUrl: page.logoUrl,
      faviconUrl: page.faviconUrl,
      primaryColor: page.primaryColor,
      backgroundColor: page.backgroundColor,
      headerHtml: page.headerHtml,
      footerHtml: page.footerHtml,
      showUptimeHistory: page.showUptimeHistory,
      uptimeHistoryDays: page.uptimeHistoryDays,
      showIncidentHistory: page.showIncidentHistory,
    },
    status: overallIndicator(statuses.overall),
    components: snapshot.components.map((c) => ({
      id: c.id,
      name: c.name,
      description: c.description,
      groupName: c.groupName,
      position: c.position,
      status: statusOf.get(c.id) ?? 'OPERATIONAL',
      showUptimeBar: c.showUptimeBar,
    })),
    activeAnnouncements: announcements.filter((a) => a.phase === 'ACTIVE' || a.phase === 'IN_PROGRESS'),
    scheduledMaintenance: announcements.filter((a) => a.phase === 'SCHEDULED'),
    updatedAt: snapshot.builtAt,
  };
}

/** Closed days plus the open interval up to now: the in-memory twin of the store's ADDs. */
function withOpenInterval(data: CheckUptime, now: Date): DayRollup[] {
  if (!data.cursor || Date.parse(data.cursor.since) >= now.getTime()) return data.days;
  const open = rollupDeltas({ start: data.cursor.since, end: now.toISOString(), state: data.cursor.state }, data.maintenance);
  return mergeRollups(data.days, open);
}

const checksOf = (snapshot: Pick<PageSnapshot, 'checks'>, component: SnapshotComponent): number[] =>
  component.checkId !== null ? [component.checkId] : component.projectId !== null ? snapshot.checks.filter((c) => c.projectId === component.projectId).map((c) => c.checkId) : [];

/** A component's bar from the snapshot (no store read): the page's `uptimeHistoryDays`, newest last. */
export function componentBar(snapshot: PageSnapshot, component: SnapshotComponent, now: Date): UptimeRead {
  const perCheck = checksOf(snapshot, component).flatMap((checkId) => {
    const data = snapshot.uptime[String(checkId)];
    return data ? [withOpenInterval(data, now)] : [];
  });
  const rollups = component.checkId !== null ? (perCheck[0] ?? []) : worstRollups(perCheck);
  return readUptime(rollups, { now, days: snapshot.page.uptimeHistoryDays, offset: 0, notBefore: component.createdAt });
}

/** `/components/:id/uptime?days=&offset=`: any range up to 365 days, a query and a get per check. */
export async function componentUptime(deps: Deps, snapshot: PageSnapshot, component: SnapshotComponent, days: number, offset: number, now: Date): Promise<UptimeRead> {
  const { first, last } = dateRange(now, days, offset);
  const ids = checksOf(snapshot, component);
  const spans = new Map<number, Awaited<ReturnType<typeof maintenanceSpans>>>();
  const perCheck: DayRollup[][] = [];
  for (const checkId of ids) {
    const read = await readCheckRollups(deps, checkId, first, last);
    const cached = snapshot.uptime[String(checkId)];
    const projectId = snapshot.checks.find((c) => c.checkId === checkId)?.projectId ?? null;
    if (cached === undefined && projectId !== null && !spans.has(projectId)) spans.set(projectId, await maintenanceSpans(deps, projectId));
    perCheck.push(withOpenInterval({ ...read, maintenance: cached?.maintenance ?? spans.get(projectId ?? -1) ?? [] }, now));
  }
  const rollups = component.checkId !== null ? (perCheck[0] ?? []) : worstRollups(perCheck);
  return readUptime(rollups, { now, days, offset, notBefore: component.createdAt });
}

export type HistoryMonth = {
  month: string;
  announcements: PublicAnnouncement[];
  incidents: { componentIds: number[]; severity: string; startedAt: string; resolvedAt: string | null }[];
};

const monthOf = (iso: string): string => iso.slice(0, 7);
function monthsBack(now: Date, months: number, offset: number): string[] {
  const result: string[] = [];
  for (let i = offset; i < offset + months; i++) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    result.push(d.toISOString().slice(0, 7));
  }
  return result;
}

/** Past announcements and incidents by month, newest first; incidents only as their components' impact. */
export async function pageHistory(deps: Deps, snapshot: PageSnapshot, months: number, offset: number, now: Date): Promise<HistoryMonth[]> {
  if (!snapshot.page.showIncidentHistory) return [];
  const wanted = monthsBack(now, months, offset);
  const inRange = new Set(wanted);
  const byMonth = new Map<string, HistoryMonth>(wanted.map((month) => [month, { month, announcements: [], incidents: [] }]));
  const all = await listPageAnnouncements(deps, snapshot.page.id);
  for (const item of all.sort((a, b) => b.createdAt.localeCompare(a.createdAt))) {
    const bucket = byMonth.get(monthOf(item.createdAt));
    if (!bucket) continue;
    bucket.announcements.push(publicAnnouncement(await snapshotAnnouncement(deps, item), now));
  }
  const incidents = new Map<number, { componentIds: Set<number>; severity: string; startedAt: string; resolvedAt: string | null }>();
  const { incident } = deps.store.entities;
  for (const component of snapshot.components) {
    const found =
      component.checkId !== null
        ? (await incident.query.byCheck({ checkId: component.checkId }).go({ pages: 'all' })).data
        : component.projectId !== null
          ? (await incident.query.byProject({ projectId: component.projectId }).go({ pages: 'all' })).data
          : [];
    for (const item of found) {
      if (item.workspaceId !== snapshot.page.workspaceId || !inRange.has(monthOf(item.startedAt))) continue;
      const entry = incidents.get(item.incidentId) ?? { componentIds: new Set<number>(), severity: item.severity, startedAt: item.startedAt, resolvedAt: item.resolvedAt ?? null };
      entry.componentIds.add(component.id);
      incidents.set(item.incidentId, entry);
    }
  }
  for (const entry of [...incidents.values()].sort((a, b) => b.startedAt.localeCompare(a.startedAt))) {
    byMonth.get(monthOf(entry.startedAt))?.incidents.push({ componentIds: [...entry.componentIds].sort((a, b) => a - b), severity: entry.severity, startedAt: entry.startedAt, resolvedAt: entry.resolvedAt });
  }
  return wanted.map((month) => byMonth.get(month) ?? { month, announcements: [], incidents: [] });
}
