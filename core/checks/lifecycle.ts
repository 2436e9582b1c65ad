import { randomUUID } from 'node:crypto';
import type { PlanLimits } from '../auth/plans.js';
import type { Deps } from '../deps.js';
import { badRequest, conflict } from '../http/errors.js';
import { untilProcessed } from '../store/batch.js';
import type { CheckItem } from '../store/entities/check.js';
import { acquireLock, releaseLock } from '../store/locks.js';
import { isConditionalFailure } from '../store/conditional.js';
import { readOutboundConfig } from './outboundSchema.js';
import { statusChangeOwed } from './events.js';
import { releaseCheckSlots } from './quota.js';
import { createCheckRef, readCheckById, slugScope, unlistCheckRef, updateCheckGuarded, type CheckChanges, type RemovableCheckKey } from './repository.js';
import { draftOf, enforcePlan, judgePlan, takePlanSlots, type CheckDraft } from './rules.js';
import { syncProbeSchedules } from './schedules.js';
import { retime } from './timing.js';

// A lock younger than this whose check is not readable yet belongs to a create still in flight.
const IN_FLIGHT_LOCK_MS = 60_000;

/** Takes the workspace-unique slug for `checkId`, or 409s; an orphan left by a crash is taken over. */
async function claimSlug(deps: Deps, workspaceId: number, slug: string, checkId: number, now: Date): Promise<void> {
  const scope = slugScope(workspaceId);
  const ownerAlive = async (owner: string): Promise<boolean> => {
    const holder = await readCheckById(deps, Number(owner));
    if (holder) return holder.slug === slug && holder.workspaceId === workspaceId;
    const lock = (await deps.store.entities.lock.get({ scope, value: slug }).go({ consistent: true })).data;
    return lock !== null && now.getTime() - Date.parse(lock.createdAt) < IN_FLIGHT_LOCK_MS;
  };
  if (!(await acquireLock(deps.store, scope, slug, String(checkId), now, ownerAlive))) {
    throw conflict(`The slug "${slug}" is already used by another check in this workspace`, 'SLUG_TAKEN');
  }
}

export const releaseSlug = (deps: Deps, workspaceId: number, slug: string, checkId: number): Promise<void> =>
  releaseLock(deps.store, slugScope(workspaceId), slug, String(checkId));

/**
 * What an imported check brings from its source (core/imports): the ping token its clients already
 * use (a Healthchecks UUID, an Uptime Kuma push token; see `isImportableToken`), its description
 * and tags.
 */
/**
 * A ping token a check may be given: 10-128 letters, digits, `-` or `_`. That takes a
 * Healthchecks UUID and an Uptime Kuma push token (32 characters since Kuma 1.23, 10 before);
 * nothing shorter, which a stranger could guess, and nothing that would need escaping in a path.
 */
export const isImportableToken = (token: string): boolean => /^[A-Za-z0-9_-]{10,128}$/.test(token);

export type ImportedFields = { token?: string | undefined; description?: string | undefined; tags?: string[] | undefined };

/**
 * Stores a new check whose workspace the caller is authorised in and whose references were
 * checked: plan limits, slug lock, then the check (by token) and its id -> token ref. `limits` are
 * the workspace's plan, read by this request alongside its authorisation (workspaceForNewCheck).
 * A given token is the item's key, so the create's own condition (no item under that key, live
 * or a tombstone) keeps it unique across workspaces: a taken one is 409 CONFLICT.
 */
export async function insertCheck(deps: Deps, draft: CheckDraft, limits: PlanLimits, imported: ImportedFields = {}): Promise<CheckItem> {
  if (imported.token !== undefined && !isImportableToken(imported.token)) {
    throw badRequest('A ping token is 10-128 letters, digits, - or _', [{ path: 'token', message: 'must match ^[A-Za-z0-9_-]{10,128}$' }]);
  }
  judgePlan(limits, draft, undefined);
  // The plan's slots and the id in parallel (an id handed out to a refused check is just skipped).
  const [plan, id] = await Promise.allSettled([takePlanSlots(deps, limits, draft, true), deps.store.nextId('check')]);
  if (plan.status === 'rejected') throw plan.reason;
  // The check's slots are taken: anything refusing it from here gives them back.
  const giveBack = async (err: unknown): Promise<never> => {
    await releaseCheckSlots(deps, draft.workspaceId, draft.checkMode);
    throw err;
  };
  if (id.status === 'rejected') return giveBack(id.reason);
  const checkId = id.value;
  const now = deps.clock.now();
  const iso = now.toISOString();
  if (draft.slug !== null) await claimSlug(deps, draft.workspaceId, draft.slug, checkId, now).catch(giveBack);
  const token = imported.token ?? randomUUID();
  // The check and its ref (with the list counts) in parallel; either failing takes both back.
  const [created, listed] = await Promise.allSettled([
    deps.store.entities.check
      .create({
        token,
        checkId,
        workspaceId: draft.workspaceId,
        ...(draft.projectId !== undefined ? { projectId: draft.projectId } : {}),
        ...(draft.dependencyId !== undefined ? { dependencyId: draft.dependencyId } : {}),
        ...(draft.dependencyIds !== undefined ? { dependencyIds: draft.dependencyIds } : {}),
        name: draft.name,
        ...(draft.slug !== null ? { slug: draft.slug } : {}),
        checkMode: draft.checkMode,
        checkType: draft.checkType,
        intervalSeconds: draft.intervalSeconds,
        graceSeconds: draft.graceSeconds,
        muteNotifications: draft.muteNotifications,
        downSeverity: draft.downSeverity,
        lateSeverity: draft.lateSeverity,
        status: 'NEW',
        ...(draft.outbound !== undefined ? { outbound: draft.outbound } : {}),
        ...(draft.jobRules !== undefined && draft.checkMode === 'INBOUND' ? { jobRules: draft.jobRules } : {}),
        ...(imported.description ? { description: imported.description } : {}),
        ...(imported.tags && imported.tags.length > 0 ? { tags: imported.tags } : {}),
        createdAt: iso,
        updatedAt: iso,
      })
      .go(),
    createCheckRef(deps.store, { checkId, token, workspaceId: draft.workspaceId, checkMode: draft.checkMode, projectId: draft.projectId ?? undefined }),
  ]);
  if (created.status === 'rejected' || listed.status === 'rejected') {
    // A check without its ref could never be opened, and a ref without its check lists nothing: take back what landed.
    if (created.status === 'fulfilled') await deps.store.entities.check.delete({ token }).go();
    if (listed.status === 'fulfilled') await unlistCheckRef(deps, checkId);
    if (draft.slug !== null) await releaseSlug(deps, draft.workspaceId, draft.slug, checkId);
    if (created.status === 'rejected' && imported.token !== undefined && isConditionalFailure(created.reason)) {
      return giveBack(conflict('This ping token is already used by another check'));
    }
    return giveBack(created.status === 'rejected' ? created.reason : (listed as PromiseRejectedResult).reason);
  }
  const check = created.value.data;
  await syncProbeSchedules(deps, undefined, check);
  return check;
}

/** The stored config of a check, for drafting an update (undefined for inbound checks). */
export const outboundOf = (check: CheckItem) => (check.checkMode === 'OUTBOUND' ? (readOutboundConfig(check.outbound) ?? undefined) : undefined);

const OPTIONAL_FIELDS = ['projectId', 'dependencyId', 'dependencyIds', 'slug', 'outbound', 'jobRules'] as const satisfies readonly RemovableCheckKey[];

/**
 * Writes `next` over a loaded, authorised check: plan rules for what changed, the slug lock moved,
 * timing re-derived when interval, grace or mode changed, probe schedules kept in step.
 */
export async function updateCheck(deps: Deps, check: CheckItem, next: CheckDraft): Promise<CheckItem> {
  const before = draftOf(check, outboundOf(check));
  await enforcePlan(deps, next, before);
  const now = deps.clock.now();
  const slugChanged = next.slug !== before.slug;
  // Turned OUTBOUND, enforcePlan took an outbound slot: a refused update gives it back, and a check turned INBOUND frees its own.
  const toOutbound = before.checkMode !== 'OUTBOUND' && next.checkMode === 'OUTBOUND';
  const giveBack = async (err: unknown): Promise<never> => {
    if (toOutbound) await releaseCheckSlots(deps, check.workspaceId, 'OUTBOUND', false);
    throw err;
  };
  if (slugChanged && next.slug !== null) await claimSlug(deps, check.workspaceId, next.slug, check.checkId, now).catch(giveBack);

  const set: Partial<CheckItem> = {
    name: next.name,
    checkMode: next.checkMode,
    checkType: next.checkType,
    intervalSeconds: next.intervalSeconds,
    graceSeconds: next.graceSeconds,
    muteNotifications: next.muteNotifications,
    downSeverity: next.downSeverity,
    lateSeverity: next.lateSeverity,
    updatedAt: now.toISOString(),
  };
  const remove: RemovableCheckKey[] = [];
  const optional: Record<(typeof OPTIONAL_FIELDS)[number], unknown> = {
    projectId: next.projectId,
    dependencyId: next.dependencyId,
    dependencyIds: next.dependencyIds,
    slug: next.slug ?? undefined,
    outbound: next.outbound,
    jobRules: next.checkMode === 'INBOUND' ? next.jobRules : undefined,
  };
  for (const key of OPTIONAL_FIELDS) {
    if (optional[key] === undefined) remove.push(key);
    else Object.assign(set, { [key]: optional[key] });
  }
  // The project index is keyed by (projectId, checkId): ElectroDB rebuilds it only with both.
  if (set.projectId !== undefined) set.checkId = check.checkId;
  const retimed =
    before.intervalSeconds !== next.intervalSeconds || before.graceSeconds !== next.graceSeconds || before.checkMode !== next.checkMode || before.jobRules !== optional.jobRules;

  let updated: CheckItem;
  try {
    updated = await updateCheckGuarded(deps, check.token, (current): CheckChanges => {
      if (!retimed) return { set, remove };
      const merged = { ...current, ...set } as CheckItem;
      for (const key of remove) delete merged[key];
      const timing = retime(merged, current.intervalSeconds, now);
      return { set: { ...set, ...timing.set }, remove: [...remove, ...timing.remove] };
    });
  } catch (err) {
    if (slugChanged && next.slug !== null) await releaseSlug(deps, check.workspaceId, next.slug, check.checkId);
    return giveBack(err);
  }
  if (before.checkMode === 'OUTBOUND' && next.checkMode !== 'OUTBOUND') await releaseCheckSlots(deps, check.workspaceId, 'OUTBOUND', false);
  if (slugChanged && before.slug !== null) await releaseSlug(deps, check.workspaceId, before.slug, check.checkId);
  await syncProbeSchedules(deps, check, updated);
  return updated;
}

/**
 * Soft delete: the check disappears (404 everywhere), leaves the due index, frees its slug, stops
 * its probes and drops its signals. The delete write itself owes the incident worker its DELETE
 * message (which resolves the check's open incidents): a crash right after it still resolves them.
 */
export async function softDeleteCheck(deps: Deps, check: CheckItem): Promise<void> {
  const now = deps.clock.now();
  const deleted = await updateCheckGuarded(deps, check.token, (current) => ({
    set: { deletedAt: now.toISOString(), updatedAt: now.toISOString() },
    remove: ['dueAt', 'dueShard'],
    outbox: statusChangeOwed(current, { from: current.status, to: current.status }, 'DELETE', now),
  }));
  if (check.slug !== undefined) await releaseSlug(deps, check.workspaceId, check.slug, check.checkId);
  await releaseCheckSlots(deps, check.workspaceId, deleted.checkMode);
  await unlistCheckRef(deps, check.checkId);
  await syncProbeSchedules(deps, check, undefined);
  await deleteSignals(deps, check.checkId);
}

async function deleteSignals(deps: Deps, checkId: number): Promise<void> {
  const { signal } = deps.store.entities;
  let cursor: string | null = null;
  do {
    const page: { data: { checkId: number; receivedAt: string; signalId: string }[]; cursor: string | null } = await signal.query
      .byCheck({ checkId })
      .go({ cursor, limit: 100, attributes: ['checkId', 'receivedAt', 'signalId'] });
    if (page.data.length > 0) {
      const keys = page.data.map(({ receivedAt, signalId }) => ({ checkId, receivedAt, signalId }));
      await untilProcessed(keys, async (batch) => (await signal.delete(batch).go()).unprocessed, 'signal deletes');
    }
    cursor = page.cursor;
  } while (cursor);
}
