import type { Deps } from '../deps.js';
import type { MaintenanceWindowItem } from '../store/entities/maintenanceWindow.js';
import { retryOnConflict } from '../store/conditional.js';
import { deleteHolds, putHolds } from '../windows/holdStore.js';
import { syncMaintenanceAnnouncements } from '../statuspages/maintenanceSync.js';
import { transitionWindow, type WindowEffect, type WindowEvent, type WindowState, type WindowTransition } from './transition.js';

/** The processor's partition of the sparse due index (windows are few: one shard is plenty). */
export const WINDOW_DUE_SHARD = 'maintenance';

/** A run is a few steps: the event, the holds, their confirmation, and a re-run after a lost race. */
const MAX_STEPS = 8;
const ATTEMPTS = 4;

export const windowState = (w: MaintenanceWindowItem): WindowState => ({
  state: w.state,
  timing: { startAt: w.startAt, endAt: w.endAt, timezone: w.timezone, recurringCron: w.recurringCron ?? null },
  projectIds: w.projectIds,
  suppressIncidents: w.suppressIncidents,
  suppressAlerts: w.suppressAlerts,
  occurrenceStartAt: w.occurrenceStartAt ?? null,
  occurrenceEndAt: w.occurrenceEndAt ?? null,
  completedAt: w.completedAt ?? null,
  cancelledAt: w.cancelledAt ?? null,
  revision: w.revision,
  dueAt: w.dueAt ?? null,
});

/** Fields outside the state machine that an update writes in the same conditional write. */
export type Extra = { set?: { name?: string; description?: string; autoPublishToStatusPage?: boolean }; remove?: readonly 'description'[] };

/**
 * The one write: the new state (plus fields outside it, for an update), landing only on the
 * revision read. Throws the store's conditional failure when the window changed meanwhile.
 */
export async function writeWindow(deps: Deps, w: MaintenanceWindowItem, next: WindowState, now: Date, extra: Extra = {}): Promise<MaintenanceWindowItem> {
  const set = {
    ...extra.set,
    state: next.state,
    startAt: next.timing.startAt,
    endAt: next.timing.endAt,
    timezone: next.timing.timezone,
    projectIds: [...next.projectIds],
    suppressIncidents: next.suppressIncidents,
    suppressAlerts: next.suppressAlerts,
    revision: next.revision,
    updatedAt: now.toISOString(),
    ...(next.timing.recurringCron !== null ? { recurringCron: next.timing.recurringCron } : {}),
    ...(next.occurrenceStartAt !== null ? { occurrenceStartAt: next.occurrenceStartAt } : {}),
    ...(next.occurrenceEndAt !== null ? { occurrenceEndAt: next.occurrenceEndAt } : {}),
    ...(next.completedAt !== null ? { completedAt: next.completedAt } : {}),
    ...(next.cancelledAt !== null ? { cancelledAt: next.cancelledAt } : {}),
    ...(next.dueAt !== null ? { dueShard: WINDOW_DUE_SHARD, dueAt: next.dueAt } : {}),
  };
  const removals = [
    ...(extra.remove ?? []),
    ...(next.timing.recurringCron === null && w.recurringCron !== undefined ? (['recurringCron'] as const) : []),
    ...(next.dueAt === null ? (['dueShard', 'dueAt'] as const) : []),
  ];
  const base = deps.store.entities.maintenanceWindow.patch({ maintenanceWindowId: w.maintenanceWindowId }).set(set);
  await (removals.length > 0 ? base.remove([...new Set(removals)]) : base).where((attr, op) => op.eq(attr.revision, w.revision)).go();
  const written: MaintenanceWindowItem = { ...w, ...set };
  for (const removed of removals) delete written[removed];
  return written;
}

async function read(deps: Deps, maintenanceWindowId: number): Promise<MaintenanceWindowItem | undefined> {
  return (await deps.store.entities.maintenanceWindow.get({ maintenanceWindowId }).go({ consistent: true })).data ?? undefined;
}

type Applied = { w: MaintenanceWindowItem; effects: WindowEffect[] } | { w: null; effects: WindowEffect[] };

/** Read, transition, one conditional write on the revision read; a lost race reads again. */
async function apply(deps: Deps, start: MaintenanceWindowItem, event: WindowEvent, now: Date): Promise<Applied> {
  return retryOnConflict(
    async (attempt): Promise<Applied> => {
      const w = attempt === 1 ? start : await read(deps, start.maintenanceWindowId);
      // Deleted meanwhile: a deleted window holds nothing, so drop what this run put.
      if (!w) return { w: null, effects: event.type === 'holdsSettled' ? [{ type: 'deleteHolds', projectIds: event.heldProjectIds }] : [] };
      const result: WindowTransition = transitionWindow(windowState(w), event, now);
      // Only `reschedule` is refused, and the update verb applies that one itself.
      if (!result.ok) throw new Error(`maintenance window ${w.maintenanceWindowId}: ${result.code}`);
      return { w: result.changed ? await writeWindow(deps, w, result.state, now) : w, effects: result.effects };
    },
    { attempts: ATTEMPTS, what: `maintenance window ${start.maintenanceWindowId}` },
  );
}

/** Performs the effects in order; returns the event the last of them reports, if any. */
async function perform(deps: Deps, w: Pick<MaintenanceWindowItem, 'maintenanceWindowId' | 'workspaceId'>, effects: readonly WindowEffect[]): Promise<WindowEvent | null> {
  const key = { kind: 'MAINTENANCE' as const, windowId: w.maintenanceWindowId };
  let report: WindowEvent | null = null;
  for (const effect of effects) {
    if (effect.type === 'putHolds') await putHolds(deps, effect.projectIds, { ...key, workspaceId: w.workspaceId, ...effect.hold });
    else if (effect.type === 'deleteHolds') await deleteHolds(deps, effect.projectIds, key);
    else report = effect.event;
  }
  return report;
}

/**
 * Performs `effects` (of a transition the caller wrote), then runs the events they report until
 * nothing is left to do. Every step is idempotent and every write conditional on the revision
 * read, so running it twice or concurrently is safe, and a crash leaves the window due.
 */
export async function runWindow(deps: Deps, start: MaintenanceWindowItem, effects: readonly WindowEffect[], now: Date): Promise<MaintenanceWindowItem> {
  let w = start;
  let next = await perform(deps, w, effects);
  for (let step = 0; next !== null && step < MAX_STEPS; step++) {
    const applied = await apply(deps, w, next, now);
    next = await perform(deps, applied.w ?? w, applied.effects);
    if (!applied.w) return w;
    w = applied.w;
  }
  // Status pages follow the window (autoPublishToStatusPage) and its holds.
  await syncMaintenanceAnnouncements(deps, w, now);
  return w;
}

/**
 * Brings a window's stored state, its holds and its due time in line with `now`. Every write path
 * (create, update, end, cancel) leaves `dueAt` at "now" before it calls this, so if the
 * request dies half way the processor finds the window due and finishes the job.
 */
export function reconcileWindow(deps: Deps, window: MaintenanceWindowItem, now: Date): Promise<MaintenanceWindowItem> {
  return runWindow(deps, window, [{ type: 'confirm', event: { type: 'tick' } }], now);
}
