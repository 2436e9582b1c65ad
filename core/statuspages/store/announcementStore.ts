import type { Deps } from '../../deps.js';
import type { AnnouncementItem } from '../../store/entities/announcement.js';
import type { AnnouncementStatus } from '../announcementSchema.js';

/** Every announcement of a page (one query of its partition). */
export async function listPageAnnouncements(deps: Deps, statusPageId: number): Promise<AnnouncementItem[]> {
  return (await deps.store.entities.announcement.query.byPage({ statusPageId }).go({ pages: 'all', consistent: true })).data;
}

export type TimelineRow = { id: number; status: AnnouncementStatus | null; body: string; createdAt: string };

/** An announcement's timeline, oldest first (the entry keys sort by revision). */
export async function readTimeline(deps: Deps, announcementId: number): Promise<TimelineRow[]> {
  const entries = await deps.store.entities.announcementEntry.query.byAnnouncement({ announcementId }).go({ pages: 'all', consistent: true });
  return entries.data.map((entry) => ({ id: entry.entryId, status: entry.status ?? null, body: entry.body, createdAt: entry.createdAt }));
}

/** Zero-padded so the partition sorts entries in the order they were written. */
export const entryKey = (effectKey: string): string => {
  const [revision = '0', what = 'entry'] = effectKey.split(':');
  return `${revision.padStart(8, '0')}:${what}`;
};
