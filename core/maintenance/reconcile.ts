import type { Deps } from '../deps.js';
import type { MaintenanceWindowItem } from '../store/entities/maintenanceWindow.js';
import { isConditionalFailure } from '../store/conditional.js';
import { deleteHolds, putHolds } from '../windows/holdStore.js';
import { planWindow, type WindowTiming } from './recurrence.js';

/** The processor's partition of the sparse due index (windows are few: one shard is plenty). */
export const WINDOW_DUE_SHARD = 'maintenance';

const TERMINAL = new Set<MaintenanceWindowItem['state']>(['COMPLETED', 'CANCELLED']);
export const isTerminal = (w: Pick<MaintenanceWindowItem, 'state'>): boolean => TERMINAL.has(w.state);

export const timingOf = (w: { startAt: string; endAt: string; timezone: string; recurringCron?: string | null | undefined }): WindowTiming => ({
  startAt: new Date(w.startAt),
  endAt: new Date(w.endAt),
  recurringCron: w.recurringCron ?? null,
  timezone: w.timezone,
});

const MAX_RETRIES = 3;

/**
 * Brings a window's stored state, its holds and its due time in line with `now`. Every write path
 * (create, update, end, cancel) leaves `windowDueAt` at "now" before it calls this, so if the
 * request dies half way the processor finds the window due and finishes the job. Idempotent:
 * holds are overwritten or deleted by key, and the item is written only on the revision read.
 */
export async function reconcileWindow(deps: Deps, window: MaintenanceWindowItem, now: Date, attempt = 0): Promise<MaintenanceWindowItem> {
  const entity = deps.store.entities.maintenanceWindow;
  const key = { maintenanceWindowId: window.maintenanceWindowId };
  const hold = { kind: 'MAINTENANCE' as const, windowId: window.maintenanceWindowId };
  const plan = TERMINAL.has(window.state) ? null : planWindow(timingOf(window), now);

  if (plan && plan.state !== 'COMPLETED') {
    await putHolds(deps, window.projectIds, {
      ...hold,
      workspaceId: window.workspaceId,
      startsAt: plan.occurrence.startAt.toISOString(),
      endsAt: plan.occurrence.endAt.toISOString(),
      suppressIncidents: window.suppressIncidents,
      suppressAlerts: window.suppressAlerts,
    });
  } else {
    await deleteHolds(deps, window.projectIds, hold);
  }

  const iso = now.toISOString();
  const changes: Partial<MaintenanceWindowItem> = { updatedAt: iso, revision: window.revision + 1 };
  if (plan?.state === 'COMPLETED') {
    // The natural end: completed when its (last) occurrence ended, not when the processor noticed.
    const ended = window.occurrenceEndAt && Date.parse(window.occurrenceEndAt) <= now.getTime() ? window.occurrenceEndAt : iso;
    Object.assign(changes, { state: 'COMPLETED', completedAt: ended });
  } else if (plan) {
    Object.assign(changes, {
      state: plan.state,
      occurrenceStartAt: plan.occurrence.startAt.toISOString(),
      occurrenceEndAt: plan.occurrence.endAt.toISOString(),
      windowDueShard: WINDOW_DUE_SHARD,
      windowDueAt: (plan.state === 'SCHEDULED' ? plan.occurrence.startAt : plan.occurrence.endAt).toISOString(),
    });
  }
  const settled = plan === null || plan.state === 'COMPLETED';
  try {
    const base = entity.patch(key).set(changes);
    const written = await (settled ? base.remove(['windowDueShard', 'windowDueAt']) : base)
      .where((attr, op) => op.eq(attr.revision, window.revision))
      .go({ response: 'all_new' });
    return { ...window, ...written.data } as MaintenanceWindowItem;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  // Someone else wrote the window meanwhile: undo what this pass may have put in the way, then
  // reconcile what is there now.
  const fresh = (await entity.get(key).go({ consistent: true })).data;
  const dropped = window.projectIds.filter((id) => !fresh?.projectIds.includes(id));
  if (dropped.length > 0) await deleteHolds(deps, dropped, hold);
  if (!fresh) return window;
  if (attempt >= MAX_RETRIES) return fresh;
  return reconcileWindow(deps, fresh, now, attempt + 1);
}
