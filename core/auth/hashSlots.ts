import type { Deps } from '../deps.js';
import { HttpError } from '../http/httpError.js';

/**
 * scrypt at the production cost holds a core for about 0.3 s and 128 MiB, on libuv's small thread
 * pool. Every password hash of the process (sign-in, sign-up, password change, status-page
 * passwords set or checked) runs inside one of `passwordHashConcurrency` slots. Past them a request
 * is refused at once, 429 with `Retry-After`, and never queued: a queue would hold memory and the
 * answer for as long as a flood lasts, and spend the cores the pings need.
 */

declare const held: unique symbol;
/** Proof of a held slot: secrets.ts hashes only for a caller that has one. */
export type HashSlot = { readonly [held]: true };
const SLOT = Object.freeze({}) as HashSlot;

let inFlight = 0;

/** How many slots are held right now in this process. */
export const hashesInFlight = (): number => inFlight;

export const HASH_RETRY_AFTER_SECONDS = 1;

const busy = (): HttpError =>
  new HttpError('RATE_LIMITED', 'Too many password checks in progress; try again in a second', undefined, { 'Retry-After': String(HASH_RETRY_AFTER_SECONDS) });

/**
 * Refuses now when no slot is free, without taking one: an anonymous route calls it before its
 * rate-limit writes, so a flood that finds every slot busy costs no store request either.
 */
export function requireFreeHashSlot(deps: Pick<Deps, 'config'>): void {
  if (inFlight >= deps.config.passwordHashConcurrency) throw busy();
}

/** Runs `work` (one or more hashes, one after the other) in a slot, or refuses at once when none is free. */
export async function withHashSlot<T>(deps: Pick<Deps, 'config'>, work: (slot: HashSlot) => Promise<T>): Promise<T> {
  requireFreeHashSlot(deps);
  inFlight++;
  try {
    return await work(SLOT);
  } finally {
    inFlight--;
  }
}
