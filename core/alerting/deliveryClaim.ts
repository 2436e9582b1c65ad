import { newUlid } from '../ids.js';
import type { Deps } from '../deps.js';
import { acquireLock, releaseLock } from '../store/locks.js';

const SCOPE = 'alert-delivery';
/**
 * How long a claim holds off other workers. Longer than one delivery can take (10 s outbound
 * timeout, or one SES call), shorter than the queue's visibility timeout (VISIBILITY_TIMEOUT_SECONDS,
 * 180 s), so a claim left by a crashed worker has lapsed by the time its message comes back. (A
 * reported failure comes back sooner, after its backoff, but its worker released the claim.)
 */
export const CLAIM_LEASE_MS = 60_000;

/** The owner id carries its lease's end, so any worker can tell a live claim from an orphan. */
export const claimOwner = (now: Date): string => `${newUlid(now.getTime())}@${now.getTime() + CLAIM_LEASE_MS}`;
const leaseEnd = (owner: string): number => Number(owner.slice(owner.lastIndexOf('@') + 1));

/**
 * Whether `holder`'s claim, taken at `lockedAt`, still holds at `now`: its lease has not ended, and
 * (under a runtime that owns its store) it was not taken before this runtime started.
 */
export function isClaimLive(deps: Pick<Deps, 'storeOwnedSince'>, holder: string, lockedAt: string, now: Date): boolean {
  if (deps.storeOwnedSince !== undefined && Date.parse(lockedAt) < deps.storeOwnedSince.getTime()) return false;
  const end = leaseEnd(holder);
  return Number.isFinite(end) && end > now.getTime();
}

/**
 * Claims one delivery (by its key) for the duration of a send, so two copies of a message
 * handled at the same moment cannot both send. Returns the release function, or undefined when
 * another worker holds a live claim. A lock item written with attribute_not_exists, taken over
 * once its lease has passed, deleted on release (the ALERT_SENT event is the lasting record).
 * Under a runtime that owns its store (`deps.storeOwnedSince`), a claim taken before it started is
 * an orphan at once: its process was killed mid-send, and waiting out the lease would hold the
 * alert back for up to a minute after the restart.
 */
export async function claimDelivery(deps: Pick<Deps, 'store' | 'storeOwnedSince'>, key: string, now: Date): Promise<(() => Promise<void>) | undefined> {
  const { store } = deps;
  const owner = claimOwner(now);
  const isLive = async (holder: string, lockedAt: string): Promise<boolean> => isClaimLive(deps, holder, lockedAt, now);
  if (!(await acquireLock(store, SCOPE, key, owner, now, isLive))) return undefined;
  return () => releaseLock(store, SCOPE, key, owner);
}
