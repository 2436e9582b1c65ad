import { phaseOf } from '../announcementTransition.js';
import { renderMarkdown, singleLine } from '../render/sanitize.js';
import type { SnapshotAnnouncement } from '../store/snapshotShape.js';

/** An announcement as every public surface shows it (page JSON, history, live events). */
export type PublicAnnouncement = Omit<SnapshotAnnouncement, 'id' | 'publicId' | 'updates'> & {
  /** The announcement's publicId: internal ids never reach a public surface. */
  id: string;
  phase: ReturnType<typeof phaseOf>;
  updates: { status: SnapshotAnnouncement['status'] | null; bodyHtml: string; createdAt: string }[];
};

export const publicAnnouncement = (a: SnapshotAnnouncement, now: Date): PublicAnnouncement => ({
  id: a.publicId,
  title: singleLine(a.title),
  status: a.status,
  impact: a.impact,
  phase: phaseOf(a, now),
  componentIds: a.componentIds,
  scheduledFor: a.scheduledFor,
  scheduledUntil: a.scheduledUntil,
  resolvedAt: a.resolvedAt,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  // Rendered and sanitised again here: a row stored before a rule tightened is still cleaned.
  updates: a.updates.map((u) => ({ status: u.status, bodyHtml: renderMarkdown(u.body).trim(), createdAt: u.createdAt })),
});
