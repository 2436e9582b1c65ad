import { newUlid } from '../ids.js';
import type { Ctx } from '../context.js';
import type { Deps } from '../deps.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { isConditionalFailure, retryOnConflict, StaleRead } from '../store/conditional.js';
import { sweepDue, type DueSweepReport } from '../store/dueSweep.js';
import type { AnnouncementItem } from '../store/entities/announcement.js';
import { transitionAnnouncement, type AnnouncementEffect, type AnnouncementInput, type AnnouncementState } from './announcementTransition.js';
import type { AnnouncementEntry, AnnouncementListQuery, AnnouncementV1, AnnouncementView } from './announcementSchema.js';
import { requirePageComponents } from './components.js';
import { loadStatusPage } from './load.js';
import { entryKey, listPageAnnouncements, readTimeline, type TimelineRow } from './store/announcementStore.js';
import { refreshSnapshot } from './store/snapshot.js';
import { untilProcessed } from '../store/batch.js';

export const ANNOUNCEMENT_DUE_SHARD = 'announcements';

const stateOf = (a: AnnouncementItem): AnnouncementState => ({
  title: a.title,
  status: a.status,
  impact: a.impact ?? null,
  componentIds: a.componentIds,
  resolvedAt: a.resolvedAt ?? null,
  scheduledFor: a.scheduledFor ?? null,
  scheduledUntil: a.scheduledUntil ?? null,
  maintenanceStartedAt: a.maintenanceStartedAt ?? null,
  maintenanceCompletedAt: a.maintenanceCompletedAt ?? null,
  revision: a.revision,
});

/** When the sweep must next look: the start, then the end of scheduled maintenance; never once it is over. */
function dueAt(state: AnnouncementState): string | null {
  if (state.scheduledFor === null || state.scheduledUntil === null) return null;
  if (state.status === 'RESOLVED' || state.maintenanceCompletedAt !== null) return null;
  return state.maintenanceStartedAt === null ? state.scheduledFor : state.scheduledUntil;
}

export const toAnnouncementV1 = (a: AnnouncementItem, updates: TimelineRow[]): AnnouncementV1 => ({
  id: a.announcementId,
  publicId: a.publicId,
  statusPageId: a.statusPageId,
  title: a.title,
  status: a.status,
  impact: a.impact ?? null,
  resolvedAt: a.resolvedAt ?? null,
  createdAt: a.createdAt,
  componentIds: a.componentIds,
  updates,
});

export const toAnnouncementView = (a: AnnouncementItem, updates: TimelineRow[]): AnnouncementView => ({
  ...toAnnouncementV1(a, updates),
  scheduledFor: a.scheduledFor ?? null,
  scheduledUntil: a.scheduledUntil ?? null,
  body: updates[0]?.body ?? null,
});

async function performEffects(deps: Deps, a: AnnouncementItem, effects: AnnouncementEffect[]): Promise<void> {
  for (const effect of effects) {
    if (effect.type === 'timeline') {
      try {
        await deps.store.entities.announcementEntry
          .create({
            announcementId: a.announcementId,
            entryKey: entryKey(effect.key),
            entryId: await deps.store.nextId('announcementEntry'),
            status: effect.status ?? undefined,
            body: effect.body,
            createdAt: effect.createdAt,
          })
          .go();
      } catch (err) {
        if (!isConditionalFailure(err)) throw err;
      }
    }
    // A `notify` effect needs nothing here: the snapshot rebuild that follows every change sees the
    // announcement appear, change or leave the open list and owes its stream event and subscriber
    // notification in its own conditional write (core/statuspages/events.ts), once.
  }
}

function refuse(result: { code: string; message: string }): never {
  throw badRequest(result.message, [{ path: result.code === 'NOT_SCHEDULED' ? 'scheduledFor' : 'scheduledUntil', message: result.message }]);
}

/** Creates an announcement on a page the caller already loaded (workspace checked). */
export async function createAnnouncementOnPage(
  deps: Deps,
  page: { statusPageId: number; workspaceId: number },
  input: Extract<AnnouncementInput, { type: 'create' }>,
  sourceKey?: string,
): Promise<AnnouncementItem> {
  await requirePageComponents(deps, page.statusPageId, input.componentIds);
  const now = deps.clock.now();
  const result = transitionAnnouncement(null, input, now);
  if (!result.ok) refuse(result);
  const { state } = result;
  const due = dueAt(state);
  const iso = now.toISOString();
  const created = await deps.store.entities.announcement
    .create({
      statusPageId: page.statusPageId,
      announcementId: await deps.store.nextId('announcement'),
      publicId: newUlid().toLowerCase(),
      workspaceId: page.workspaceId,
      title: state.title,
      status: state.status,
      impact: state.impact ?? undefined,
      componentIds: state.componentIds,
      resolvedAt: state.resolvedAt ?? undefined,
      scheduledFor: state.scheduledFor ?? undefined,
      scheduledUntil: state.scheduledUntil ?? undefined,
      revision: state.revision,
      dueShard: due ? ANNOUNCEMENT_DUE_SHARD : undefined,
      dueAt: due ?? undefined,
      sourceKey,
      createdAt: iso,
      updatedAt: iso,
    })
    .go();
  await performEffects(deps, created.data, result.effects);
  await refreshSnapshot(deps, page.statusPageId);
  return created.data;
}

/**
 * Applies one input to a stored announcement: pure transition, a write conditional on the
 * revision read, then the effects. Returns the announcement and the timeline entry written, if any.
 */
export async function applyAnnouncementInput(
  deps: Deps,
  statusPageId: number,
  announcementId: number,
  input: AnnouncementInput,
): Promise<{ item: AnnouncementItem; entryKey: string | null }> {
  const outcome = await retryOnConflict(
    async () => {
      const current = (await deps.store.entities.announcement.get({ statusPageId, announcementId }).go({ consistent: true })).data;
      if (!current) throw notFound('Announcement');
      const result = transitionAnnouncement(stateOf(current), input, deps.clock.now());
      if (!result.ok) refuse(result);
      if (!result.changed) return { item: current, effects: [] as AnnouncementEffect[] };
      const { state } = result;
      const due = dueAt(state);
      const set: Partial<AnnouncementItem> = {
        title: state.title,
        status: state.status,
        componentIds: state.componentIds,
        revision: state.revision,
        updatedAt: deps.clock.now().toISOString(),
      };
      const remove: ('impact' | 'resolvedAt' | 'scheduledFor' | 'scheduledUntil' | 'maintenanceStartedAt' | 'maintenanceCompletedAt' | 'dueShard' | 'dueAt')[] = [];
      const optional = (key: 'impact' | 'resolvedAt' | 'scheduledFor' | 'scheduledUntil' | 'maintenanceStartedAt' | 'maintenanceCompletedAt', value: string | null) => {
        if (value === null) {
          if (current[key] !== undefined) remove.push(key);
        } else (set as Record<string, unknown>)[key] = value;
      };
      optional('impact', state.impact);
      optional('resolvedAt', state.resolvedAt);
      optional('scheduledFor', state.scheduledFor);
      optional('scheduledUntil', state.scheduledUntil);
      optional('maintenanceStartedAt', state.maintenanceStartedAt);
      optional('maintenanceCompletedAt', state.maintenanceCompletedAt);
      if (due) Object.assign(set, { dueShard: ANNOUNCEMENT_DUE_SHARD, dueAt: due });
      else if (current.dueAt !== undefined) remove.push('dueShard', 'dueAt');
      const write = deps.store.entities.announcement.patch({ statusPageId, announcementId }).set(set);
      const updated = await (remove.length > 0 ? write.remove(remove) : write).where((attr, op) => op.eq(attr.revision, current.revision)).go({ response: 'all_new' });
      return { item: updated.data as AnnouncementItem, effects: result.effects };
    },
    { what: 'announcement update', onExhausted: () => new HttpError('CONFLICT', 'The announcement is being changed by another request; try again') },
  );
  await performEffects(deps, outcome.item, outcome.effects);
  if (outcome.effects.length > 0) await refreshSnapshot(deps, statusPageId);
  const timeline = outcome.effects.find((effect) => effect.type === 'timeline');
  return { item: outcome.item, entryKey: timeline ? entryKey(timeline.key) : null };
}

export async function createAnnouncement(ctx: Ctx, statusPageId: number, input: Extract<AnnouncementInput, { type: 'create' }>): Promise<AnnouncementItem> {
  const page = await loadStatusPage(ctx, statusPageId, 'MEMBER');
  return createAnnouncementOnPage(ctx.deps, page, input);
}

export async function loadAnnouncement(ctx: Ctx, statusPageId: number, announcementId: number, minimum: 'VIEWER' | 'MEMBER' = 'VIEWER'): Promise<AnnouncementItem> {
  await loadStatusPage(ctx, statusPageId, minimum);
  const found = (await ctx.deps.store.entities.announcement.get({ statusPageId, announcementId }).go({ consistent: true })).data;
  if (!found) throw notFound('Announcement');
  return found;
}

export async function patchAnnouncement(ctx: Ctx, statusPageId: number, announcementId: number, input: Extract<AnnouncementInput, { type: 'patch' }>): Promise<AnnouncementItem> {
  await loadAnnouncement(ctx, statusPageId, announcementId, 'MEMBER');
  if (input.componentIds) await requirePageComponents(ctx.deps, statusPageId, input.componentIds);
  return (await applyAnnouncementInput(ctx.deps, statusPageId, announcementId, input)).item;
}

export async function postAnnouncementEntry(
  ctx: Ctx,
  statusPageId: number,
  announcementId: number,
  input: { body: string; status?: AnnouncementItem['status'] | undefined },
): Promise<AnnouncementEntry> {
  await loadAnnouncement(ctx, statusPageId, announcementId, 'MEMBER');
  const { entryKey: key } = await applyAnnouncementInput(ctx.deps, statusPageId, announcementId, { type: 'post', body: input.body, status: input.status });
  const entry = key ? (await ctx.deps.store.entities.announcementEntry.get({ announcementId, entryKey: key }).go({ consistent: true })).data : null;
  if (!entry) throw new StaleRead('timeline entry missing after its write');
  return { id: entry.entryId, announcementId, status: entry.status ?? null, body: entry.body, createdAt: entry.createdAt };
}

/** Newest first, filtered by open/resolved; `skip`/`take` over the page's partition. */
export async function listAnnouncements(ctx: Ctx, statusPageId: number, status: AnnouncementListQuery['status']): Promise<AnnouncementItem[]> {
  await loadStatusPage(ctx, statusPageId);
  const all = await listPageAnnouncements(ctx.deps, statusPageId);
  const wanted = status === undefined ? all : all.filter((a) => (a.status === 'RESOLVED') === (status === 'resolved'));
  return wanted.sort((a, b) => b.announcementId - a.announcementId);
}

export async function withTimelines<T>(deps: Deps, items: AnnouncementItem[], view: (a: AnnouncementItem, updates: TimelineRow[]) => T): Promise<T[]> {
  return Promise.all(items.map(async (a) => view(a, await readTimeline(deps, a.announcementId))));
}

export async function deletePageAnnouncements(deps: Deps, statusPageId: number): Promise<void> {
  for (const a of await listPageAnnouncements(deps, statusPageId)) {
    const entries = await deps.store.entities.announcementEntry.query.byAnnouncement({ announcementId: a.announcementId }).go({ pages: 'all' });
    await untilProcessed(
      entries.data.map((e) => ({ announcementId: e.announcementId, entryKey: e.entryKey })),
      async (keys) => (await deps.store.entities.announcementEntry.delete(keys).go()).unprocessed,
      'announcement entry deletes',
    );
    await deps.store.entities.announcement.delete({ statusPageId, announcementId: a.announcementId }).go();
  }
}

/**
 * Sweep step: scheduled maintenance that is due starts or completes (O(due) through the sparse
 * index). The tick re-reads the announcement consistently itself and changes nothing when it is
 * not due after all, so the index entry is handed over as read.
 */
export async function processScheduledAnnouncements(deps: Deps, now: Date): Promise<DueSweepReport> {
  return sweepDue({
    name: 'status page maintenance',
    shards: [ANNOUNCEMENT_DUE_SHARD],
    page: (dueShard, cursor, limit) => deps.store.entities.announcement.query.byDue({ dueShard }).lte({ dueAt: now.toISOString() }).go({ cursor, limit }),
    handle: (a) => applyAnnouncementInput(deps, a.statusPageId, a.announcementId, { type: 'tick' }),
    label: (a) => `announcement ${a.announcementId}`,
  });
}
