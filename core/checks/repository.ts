import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import type { Deps } from '../deps.js';
import { conflict, notFound } from '../http/errors.js';
import type { CheckItem } from '../store/entities/check.js';
import { lockOwner } from '../store/locks.js';
import { itemKey, relayAfterWrite, type OutboxWrite } from '../outbox/index.js';
import { retryOnConflict } from '../store/conditional.js';
import { unlistCheckRef as unlistRef, writeCheckRef } from '../store/checkLists.js';
import { readCheckOfId } from '../store/checkTokens.js';

/** The lock scope that makes a slug unique per workspace; the lock's owner is the check id. */
export const slugScope = (workspaceId: number): string => `check-slug#${workspaceId}`;

const live = (check: CheckItem | null | undefined): CheckItem | undefined => (check && check.deletedAt === undefined ? check : undefined);

/** id -> token (checkRef) -> check; deleted checks do not exist. No authorisation. */
export async function readCheckById(deps: Deps, checkId: number): Promise<CheckItem | undefined> {
  return live(await readCheckOfId(deps.store, checkId));
}

export async function readCheckByToken(deps: Deps, token: string): Promise<CheckItem | undefined> {
  return live((await deps.store.entities.check.get({ token }).go()).data);
}

/**
 * A check the caller may act on at `minRole`, or 404: missing, deleted and foreign checks look
 * the same.
 */
export async function loadCheck({ deps, actor }: Ctx, checkId: number, minRole: Role): Promise<CheckItem> {
  const check = await readCheckById(deps, checkId);
  if (!check) throw notFound('Check');
  await authorize(deps, actor, check.workspaceId, minRole, 'Check');
  return check;
}

/** The live check holding `slug` in the workspace, if any (slug pings and `slug:` addressing). */
export async function findCheckBySlug(deps: Deps, workspaceId: number, slug: string): Promise<CheckItem | undefined> {
  const owner = await lockOwner(deps.store, slugScope(workspaceId), slug);
  if (owner === undefined) return undefined;
  const check = await readCheckById(deps, Number(owner));
  return check && check.workspaceId === workspaceId && check.slug === slug ? check : undefined;
}

/** `123` or `slug:<slug>` (Integration API `:id`), resolved inside the caller's workspace. */
export async function loadCheckByRef(ctx: Ctx, ref: string, minRole: Role): Promise<CheckItem> {
  const { deps, actor } = ctx;
  if (ref.startsWith('slug:')) {
    if (actor.kind !== 'apiKey') throw notFound('Check');
    const check = await findCheckBySlug(deps, actor.workspaceId, ref.slice('slug:'.length));
    if (!check) throw notFound('Check');
    await authorize(deps, actor, check.workspaceId, minRole, 'Check');
    return check;
  }
  if (!/^[1-9][0-9]{0,15}$/.test(ref)) throw notFound('Check');
  return loadCheck(ctx, Number(ref), minRole);
}

export { checksByIds, createCheckRef, listProjectChecks, listWorkspaceChecks, pageChecks, writeCheckRef, type CheckListScope } from '../store/checkLists.js';

/** Takes a deleted check's ref out of the list indexes (it still maps id -> token for readers of deleted checks). */
export const unlistCheckRef = (deps: Deps, checkId: number): Promise<void> => unlistRef(deps.store, checkId);

/** Keeps the ref's projectId and mode (what the lists query) with the check's after a move or a mode change. */
async function syncRef(deps: Deps, before: CheckItem, after: CheckItem): Promise<void> {
  if (before.projectId === after.projectId && before.checkMode === after.checkMode) return;
  const { checkId, token, workspaceId, projectId, checkMode } = after;
  await writeCheckRef(deps.store, { checkId, token, workspaceId, checkMode, projectId });
}

/** The attributes a patch may remove (ElectroDB refuses to remove required ones). */
export type RemovableCheckKey = Parameters<ReturnType<Deps['store']['entities']['check']['patch']>['remove']>[0][number];
/** `outbox`: the messages the change owes, recorded in the same write and relayed right after it. */
export type CheckChanges = { set: Partial<CheckItem>; remove: RemovableCheckKey[]; outbox?: OutboxWrite };

/**
 * Reads the check, derives the changes from what it found and writes them on the condition that
 * status and timing are still what was read; another writer (a ping, the sweep) in between makes
 * it read again. `derive` returning null means nothing to write.
 */
export async function updateCheckGuarded(deps: Deps, token: string, derive: (current: CheckItem) => CheckChanges | null, attempts = 5): Promise<CheckItem> {
  return retryOnConflict(
    async () => {
      const current = (await deps.store.entities.check.get({ token }).go({ consistent: true })).data;
      if (!current || current.deletedAt !== undefined) throw notFound('Check');
      const changes = derive(current);
      if (!changes) return current;
      let update = deps.store.entities.check.patch({ token }).set({ ...changes.set, ...changes.outbox?.set });
      if (changes.outbox) update = update.append({ outbox: changes.outbox.entries });
      const removals = changes.remove.filter((key) => !(key in changes.set));
      if (removals.length > 0) update = update.remove(removals);
      const written = await update
        .where((attr, op) =>
          [
            op.eq(attr.status, current.status),
            op.notExists(attr.deletedAt),
            current.nextDueAt === undefined ? op.notExists(attr.nextDueAt) : op.eq(attr.nextDueAt, current.nextDueAt),
          ].join(' AND '),
        )
        .go({ response: 'all_new' });
      if (changes.outbox) await relayAfterWrite(deps, itemKey(deps.store.entities.check.get({ token })), written.data.outbox);
      await syncRef(deps, current, written.data as CheckItem);
      return written.data as CheckItem;
    },
    { attempts, onExhausted: () => conflict('The check changed while it was being updated; try again') },
  );
}
