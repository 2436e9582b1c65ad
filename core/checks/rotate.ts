import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.js';
import type { CheckItem } from '../store/entities/check.js';
import { loadCheck, updateCheckGuarded, writeCheckRef } from './repository.js';

/**
 * A new ping token for a leaked one. The token is the check's key, so the check moves: the old
 * item is tombstoned first (conditional on the state read, so a ping landing meanwhile makes it
 * read again), then the same state is written under the new token and the id ref repointed.
 * The ping path's hints need no purge: every hinted update is conditional on `deletedAt` being
 * absent, so the old token's next ping fails its condition, reads the tombstone and answers 404.
 */
export async function rotateCheckToken(ctx: Ctx, checkId: number): Promise<CheckItem> {
  const { deps } = ctx;
  const check = await loadCheck(ctx, checkId, 'MEMBER');
  const iso = deps.clock.now().toISOString();
  let live: CheckItem | undefined;
  await updateCheckGuarded(deps, check.token, (current) => {
    live = current;
    return { set: { deletedAt: iso, updatedAt: iso }, remove: ['dueAt', 'dueShard'] };
  });
  if (!live) throw new Error('rotation read no check');
  const { deletedAt: _gone, ...state } = live;
  const token = randomUUID();
  const moved = (await deps.store.entities.check.create({ ...state, token, updatedAt: iso }).go()).data;
  const { workspaceId, projectId, checkMode } = moved;
  await writeCheckRef(deps.store, { checkId, token, workspaceId, checkMode, projectId });
  return moved;
}
