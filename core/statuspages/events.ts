import type { RateLimitRule } from '../http/rateLimit.js';
import type { Owed } from '../outbox/index.js';
import type { ComponentStatus } from './componentStatus.js';
import { publicAnnouncement, type PublicAnnouncement } from './public/announcementView.js';
import type { PageSnapshot, SnapshotAnnouncement } from './store/snapshotShape.js';

/**
 * What a status page tells the world when its snapshot changes (docs/guide/status-pages.md "Live events"
 * and "Subscribing"): the difference between the stored snapshot and the one replacing it. The
 * rebuild writes the new snapshot on the condition of the revision it read, and owes these
 * messages in that same write (core/outbox), so each change is emitted once however many
 * rebuilds race: the stream events as `broadcast` entries on the page's channel, and one
 * `statuspage.notify` on the alerts queue for the subscribers (core/statuspages/subscribers).
 */

/** Events of one status page travel on its channel (the public SSE and WebSocket streams listen to it). */
export const statusPageChannel = (statusPageId: string | number): string => `statuspage:${statusPageId}`;

/** The public status stream has no user to count by: its 30 connections per 60 s are per address, SSE and WebSocket together. */
export const STATUS_STREAM_CONNECTION_LIMIT: RateLimitRule = { name: 'status-stream', limit: 30, windowSeconds: 60 };
/** The SSE keep-alive comment's period (the signal stream's too). */
export const STATUS_KEEP_ALIVE_MS = 15_000;

export const STATUS_STREAM_EVENTS = ['component.status_changed', 'announcement.created', 'announcement.updated'] as const;
export type StatusStreamEvent = (typeof STATUS_STREAM_EVENTS)[number];

/** What subscribers hear: the stream's events plus the ends and scheduled maintenance named apart. */
export type SubscriberNotice = StatusStreamEvent | 'announcement.resolved' | 'maintenance.scheduled';

/** `summary` is one plain line for mail subjects and texts (a component's or announcement's name and what happened). */
export type PageChange =
  | {
      event: 'component.status_changed';
      notice: SubscriberNotice;
      componentIds: number[];
      summary: string;
      data: { componentId: number; status: ComponentStatus; previous: ComponentStatus };
    }
  | { event: 'announcement.created' | 'announcement.updated'; notice: SubscriberNotice; componentIds: number[]; summary: string; data: PublicAnnouncement };

const STATUS_WORDS: Record<ComponentStatus, string> = {
  OPERATIONAL: 'operational',
  DEGRADED_PERFORMANCE: 'degraded performance',
  PARTIAL_OUTAGE: 'a partial outage',
  MAJOR_OUTAGE: 'a major outage',
  UNDER_MAINTENANCE: 'under maintenance',
};
const NOTICE_WORDS: Record<SubscriberNotice, string> = {
  'component.status_changed': 'status changed',
  'announcement.created': 'new announcement',
  'announcement.updated': 'announcement updated',
  'announcement.resolved': 'resolved',
  'maintenance.scheduled': 'maintenance scheduled',
};

/** The `alerts` queue message that fans a change out to the page's subscribers (one `statuspage.deliver` each). */
export type StatusPageNotifyMessage = {
  type: 'statuspage.notify';
  statusPageId: number;
  workspaceId: number;
  /** `<pageId>:<revision>:<n>`: names the change for every delivery of it (delivery keys, webhook-id). */
  eventKey: string;
  pageName: string;
  slug: string;
  summary: string;
  notice: SubscriberNotice;
  componentIds: number[];
  data: Record<string, unknown>;
  at: string;
};

/**
 * The changes from `previous` to `next` (pure). Components present in both whose status moved;
 * announcements new to the open list (created), changed in it (updated), or gone from it
 * (`gone`: the caller's reads of those records, now resolved; updated). A page's first snapshot
 * is a baseline and says nothing.
 */
export function diffSnapshots(previous: PageSnapshot | null, next: PageSnapshot, gone: readonly SnapshotAnnouncement[], now: Date): PageChange[] {
  if (!previous) return [];
  const changes: PageChange[] = [];
  const before = new Map(previous.statuses.components.map((entry) => [entry.componentId, entry.status]));
  const names = new Map(next.components.map((c) => [c.id, c.name]));
  for (const entry of next.statuses.components) {
    const was = before.get(entry.componentId);
    if (was === undefined || was === entry.status) continue;
    changes.push({
      event: 'component.status_changed',
      notice: 'component.status_changed',
      componentIds: [entry.componentId],
      summary: `${names.get(entry.componentId) ?? 'A component'} is now ${STATUS_WORDS[entry.status]} (was ${STATUS_WORDS[was]})`,
      data: { componentId: entry.componentId, status: entry.status, previous: was },
    });
  }
  const open = new Map(previous.announcements.map((a) => [a.id, a]));
  for (const a of next.announcements) {
    const was = open.get(a.id);
    if (!was) {
      const scheduled = a.scheduledFor !== null && a.scheduledUntil !== null;
      const notice = scheduled ? 'maintenance.scheduled' : 'announcement.created';
      changes.push({ event: 'announcement.created', notice, componentIds: a.componentIds, summary: `${NOTICE_WORDS[notice]}: ${a.title}`, data: publicAnnouncement(a, now) });
    } else if (was.updatedAt !== a.updatedAt || was.updates.length !== a.updates.length) {
      changes.push({
        event: 'announcement.updated',
        notice: 'announcement.updated',
        componentIds: a.componentIds,
        summary: `${NOTICE_WORDS['announcement.updated']}: ${a.title}`,
        data: publicAnnouncement(a, now),
      });
    }
  }
  for (const a of gone) {
    if (!open.has(a.id)) continue;
    const notice = a.status === 'RESOLVED' ? 'announcement.resolved' : 'announcement.updated';
    changes.push({ event: 'announcement.updated', notice, componentIds: a.componentIds, summary: `${NOTICE_WORDS[notice]}: ${a.title}`, data: publicAnnouncement(a, now) });
  }
  return changes;
}

/** Ids of announcements open in `previous` and no longer in `next`: the rebuild reads these records. */
export const goneAnnouncementIds = (previous: PageSnapshot | null, next: Pick<PageSnapshot, 'announcements'>): number[] => {
  if (!previous) return [];
  const still = new Set(next.announcements.map((a) => a.id));
  return previous.announcements.filter((a) => !still.has(a.id)).map((a) => a.id);
};

/** The messages a snapshot write at `revision` owes for `changes`: each stream event, then one notify per change. */
export function owedForChanges(page: { id: number; workspaceId: number; name: string; slug: string }, revision: number, changes: readonly PageChange[], now: Date): Owed[] {
  const owed: Owed[] = [];
  changes.forEach((change, n) => {
    owed.push({ queue: 'broadcast', body: { channel: statusPageChannel(page.id), type: change.event, data: change.data } });
    const notify: StatusPageNotifyMessage = {
      type: 'statuspage.notify',
      statusPageId: page.id,
      workspaceId: page.workspaceId,
      eventKey: `${page.id}:${revision}:${n}`,
      pageName: page.name,
      slug: page.slug,
      summary: change.summary,
      notice: change.notice,
      componentIds: change.componentIds,
      data: change.data,
      at: now.toISOString(),
    };
    owed.push({ queue: 'alerts', body: notify });
  });
  return owed;
}
