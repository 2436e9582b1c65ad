import type { Deps } from '../deps.js';
import { listProjectChecks } from '../checks/repository.js';
import type { AnnouncementItem } from '../store/entities/announcement.js';
import type { MaintenanceWindowItem } from '../store/entities/maintenanceWindow.js';
import { applyAnnouncementInput, createAnnouncementOnPage } from './announcements.js';
import { pagesShowing, readComponents, refreshSnapshot } from './store/snapshot.js';

/**
 * Maintenance windows with `autoPublishToStatusPage` (docs/guide/status-pages.md): one scheduled-maintenance
 * announcement per occurrence on every page with a component on the window's projects or their
 * checks, kept in step as the window moves; cancelled -> resolved with a note. The window's name
 * and description are internal, so the announcement says only what the page already shows.
 * Called once per reconcile of a window; idempotent (the source index finds what exists).
 * A page showing none of the window's projects any more keeps its announcement as it is.
 */

export const CANCELLED_BODY = 'This maintenance has been cancelled.';
export const ENDED_EARLY_BODY = 'This maintenance has ended.';
const sourceKey = (windowId: number): string => `maintenance#${windowId}`;

async function existing(deps: Deps, windowId: number): Promise<Map<number, AnnouncementItem>> {
  const found = await deps.store.entities.announcement.query.bySource({ sourceKey: sourceKey(windowId) }).go({ pages: 'all' });
  const latest = new Map<number, AnnouncementItem>();
  for (const item of found.data) {
    const current = latest.get(item.statusPageId);
    if (!current || item.announcementId > current.announcementId) latest.set(item.statusPageId, item);
  }
  return latest;
}

async function affectedPages(deps: Deps, window: MaintenanceWindowItem): Promise<Map<number, number[]>> {
  const keys = new Set<string>();
  const checkIds = new Set<number>();
  for (const projectId of window.projectIds) {
    keys.add(`project#${projectId}`);
    for (const check of await listProjectChecks(deps, projectId)) {
      if (check.workspaceId !== window.workspaceId) continue;
      keys.add(`check#${check.checkId}`);
      checkIds.add(check.checkId);
    }
  }
  const projects = new Set(window.projectIds);
  const pages = new Map<number, number[]>();
  for (const statusPageId of await pagesShowing(deps, [...keys])) {
    const components = (await readComponents(deps, statusPageId)).filter(
      (c) => c.workspaceId === window.workspaceId && ((c.projectId !== undefined && projects.has(c.projectId)) || (c.checkId !== undefined && checkIds.has(c.checkId))),
    );
    if (components.length > 0)
      pages.set(
        statusPageId,
        components.map((c) => c.componentId).sort((a, b) => a - b),
      );
  }
  return pages;
}

const isOver = (a: AnnouncementItem): boolean => a.status === 'RESOLVED' || a.maintenanceCompletedAt !== undefined;

export async function syncMaintenanceAnnouncements(deps: Deps, window: MaintenanceWindowItem, now: Date): Promise<void> {
  const pages = await affectedPages(deps, window);
  await publishInStep(deps, window, pages, now);
  // The window's holds moved too: the pages' snapshots carry them (UNDER_MAINTENANCE at read time).
  for (const statusPageId of pages.keys()) await refreshSnapshot(deps, statusPageId);
}

async function publishInStep(deps: Deps, window: MaintenanceWindowItem, pages: Map<number, number[]>, now: Date): Promise<void> {
  const published = await existing(deps, window.maintenanceWindowId);
  const publish = window.autoPublishToStatusPage && (window.state === 'SCHEDULED' || window.state === 'ACTIVE');
  if (!publish) {
    const note = window.state === 'CANCELLED' || !window.autoPublishToStatusPage ? CANCELLED_BODY : ENDED_EARLY_BODY;
    for (const a of published.values()) {
      if (isOver(a)) continue;
      // A window that ran to its scheduled end is completed by the sweep with its own entry.
      if (window.state === 'COMPLETED' && a.scheduledUntil !== undefined && Date.parse(a.scheduledUntil) <= now.getTime()) continue;
      await applyAnnouncementInput(deps, a.statusPageId, a.announcementId, { type: 'post', status: 'RESOLVED', body: note });
    }
    return;
  }
  const scheduledFor = window.occurrenceStartAt ?? window.startAt;
  const scheduledUntil = window.occurrenceEndAt ?? window.endAt;
  if (Date.parse(scheduledUntil) <= now.getTime()) return;
  for (const [statusPageId, componentIds] of pages) {
    const current = published.get(statusPageId);
    if (current && !isOver(current)) {
      if (current.scheduledFor !== scheduledFor || current.scheduledUntil !== scheduledUntil) {
        await applyAnnouncementInput(deps, statusPageId, current.announcementId, {
          type: 'reschedule',
          scheduledFor,
          scheduledUntil,
          body: 'The maintenance has been rescheduled.',
        });
      }
      continue;
    }
    // None yet, or the last occurrence's is over (a recurring window): one for this occurrence.
    if (current && current.scheduledFor === scheduledFor) continue;
    await createAnnouncementOnPage(
      deps,
      { statusPageId, workspaceId: window.workspaceId },
      { type: 'create', title: 'Scheduled maintenance', componentIds, scheduledFor, scheduledUntil, impact: 'NONE', body: 'Planned maintenance on the affected components.' },
      sourceKey(window.maintenanceWindowId),
    );
  }
}
