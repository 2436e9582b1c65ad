import { isConditionalFailure } from './conditional.js';
import type { Store } from './service.js';

/**
 * Takes the lock (scope, value) for owner. Returns true when the lock is now ours: it was free,
 * ours already, or its owner no longer holds it (`isOwnerAlive` says no: an orphan from a crash).
 * `isOwnerAlive` gets the lock's age too: an owner still writing what the lock guards is alive.
 */
export async function acquireLock(
  store: Store,
  scope: string,
  value: string,
  ownerId: string,
  now: Date,
  isOwnerAlive: (ownerId: string, lockedAt: string) => Promise<boolean>,
): Promise<boolean> {
  const { lock } = store.entities;
  try {
    await lock.create({ scope, value, ownerId, createdAt: now.toISOString() }).go();
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  const existing = await lock.get({ scope, value }).go({ consistent: true });
  const holder = existing.data?.ownerId;
  if (holder === undefined || existing.data === null) return acquireLock(store, scope, value, ownerId, now, async () => true);
  if (holder === ownerId) return true;
  if (await isOwnerAlive(holder, existing.data.createdAt)) return false;
  try {
    await lock
      .patch({ scope, value })
      .set({ ownerId, createdAt: now.toISOString() })
      .where((attr, op) => op.eq(attr.ownerId, holder))
      .go();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

export async function releaseLock(store: Store, scope: string, value: string, ownerId: string): Promise<void> {
  try {
    await store.entities.lock
      .delete({ scope, value })
      .where((attr, op) => op.eq(attr.ownerId, ownerId))
      .go();
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

export async function lockOwner(store: Store, scope: string, value: string): Promise<string | undefined> {
  const existing = await store.entities.lock.get({ scope, value }).go({ consistent: true });
  return existing.data?.ownerId;
}
