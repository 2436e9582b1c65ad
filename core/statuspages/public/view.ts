import type { Deps } from '../../deps.js';
import { overallIndicator, type ComponentStatus } from '../componentStatus.js';
import { cachedRead } from '../store/viewCache.js';
import { dateRange, maintenanceSpans, readCheckRollups } from '../store/rollups.js';
import type { SnapshotPage } from '../store/snapshotShape.js';
import { publicAnnouncement, type PublicAnnouncement } from './announcementView.js';
import { snapshotAnnouncement, statusesAt, type CheckUptime, type PageSnapshot, type SnapshotComponent } from '../store/snapshot.js';
import { mergeRollups, readUptime, rollupDeltas, worstRollups, type DayRollup, type UptimeRead } from '../uptime.js';

/**
 * The public JSON (docs/guide/status-pages.md): built from the page snapshot alone. Only what a
 * visitor may see: no check, project or dependency ids, no internal names, notes, tokens or URLs;
 * announcement Markdown only as sanitised HTML; titles on one line.
 */

export { publicAnnouncement, type PublicAnnouncement };

export type PublicComponent = { id: number; name: string; description: string | null; groupName: string | null; position: number; status: ComponentStatus; showUptimeBar: boolean };

export type PublicPage = {
  /** What a page shows the public of itself: never its visibility, password version or domain state. */
  page: Pick<
    SnapshotPage,
    | 'name'
    | 'slug'
    | 'logoUrl'
    | 'faviconUrl'
    | 'primaryColor'
    | 'backgroundColor'
    | 'headerHtml'
    | 'footerHtml'
    | 'showUptimeHistory'
    | 'uptimeHistoryDays'
    | 'showIncidentHistory'
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

/**
 * Bounds of one history read, whatever the page's age: the
 * newest `HISTORY_SCAN` announcements of the page (one query), the timelines of at most
 * `HISTORY_SHOWN` of them (one round trip), and the newest `INCIDENT_SCAN` incidents of the
 * workspace (one query), kept to the page's components. What lies beyond is not read, and the
 * answer says so (`truncated`). Ids grow with time, so newest-first by key is newest-first by date.
 */
export const HISTORY_SCAN = 100;
export const HISTORY_SHOWN = 20;
export const INCIDENT_SCAN = 200;

export type PageHistory = { months: HistoryMonth[]; truncated: boolean };

/** Past announcements and incidents by month, newest first; incidents only as their components' impact. Cached per page for a few seconds. */
export async function pageHistory(deps: Deps, snapshot: PageSnapshot, months: number, offset: number, now: Date): Promise<PageHistory> {
  if (!snapshot.page.showIncidentHistory) return { months: [], truncated: false };
  return cachedRead(deps.store, `${snapshot.page.id}:history:${months}:${offset}`, now.getTime(), () => readHistory(deps, snapshot, months, offset, now));
}

async function readHistory(deps: Deps, snapshot: PageSnapshot, months: number, offset: number, now: Date): Promise<PageHistory> {
  const wanted = monthsBack(now, months, offset);
  const inRange = new Set(wanted);
  const oldest = `${wanted[wanted.length - 1] ?? ''}-01`;
  const byMonth = new Map<string, HistoryMonth>(wanted.map((month) => [month, { month, announcements: [], incidents: [] }]));
  const { announcement, incident } = deps.store.entities;
  const [scanned, recent] = await Promise.all([
    announcement.query.byPage({ statusPageId: snapshot.page.id }).go({ order: 'desc', limit: HISTORY_SCAN }),
    incident.query.byWorkspace({ workspaceId: snapshot.page.workspaceId }).go({ order: 'desc', limit: INCIDENT_SCAN }),
  ]);
  // The scan stopped before the range's start: older items of the range may exist unread.
  const cutShort = (items: { createdAt?: string; startedAt?: string }[], limit: number) =>
    items.length >= limit && (items[items.length - 1]?.startedAt ?? items[items.length - 1]?.createdAt ?? '') >= oldest;
  let truncated = cutShort(scanned.data, HISTORY_SCAN) || cutShort(recent.data, INCIDENT_SCAN);
  const shown = scanned.data.filter((item) => inRange.has(monthOf(item.createdAt))).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  if (shown.length > HISTORY_SHOWN) truncated = true;
  const withTimelines = await Promise.all(shown.slice(0, HISTORY_SHOWN).map((item) => snapshotAnnouncement(deps, item)));
  for (const item of withTimelines) byMonth.get(monthOf(item.createdAt))?.announcements.push(publicAnnouncement(item, now));
  const componentsOf = (item: { checkId?: number | undefined; projectId?: number | undefined }): number[] =>
    snapshot.components
      .filter((c) => (c.checkId !== null && c.checkId === item.checkId) || (c.projectId !== null && c.projectId === item.projectId))
      .map((c) => c.id)
      .sort((a, b) => a - b);
  const incidents = recent.data
    .filter((item) => inRange.has(monthOf(item.startedAt)))
    .map((item) => ({ componentIds: componentsOf(item), severity: item.severity, startedAt: item.startedAt, resolvedAt: item.resolvedAt ?? null }))
    .filter((entry) => entry.componentIds.length > 0)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  for (const entry of incidents) byMonth.get(monthOf(entry.startedAt))?.incidents.push(entry);
  return { months: wanted.map((month) => byMonth.get(month) ?? { month, announcements: [], incidents: [] }), truncated };
}
