import type { CheckItem } from './entities/check.js';
import type { Store } from './service.js';

/**
 * A check by id: the id's ref names the token, the token keys the check. Every flip reads its
 * check four or five times (the incident worker, the status page hooks, the alert dispatch and
 * its content), and each of those was two gets; the ref get was a tenth of a flip's store
 * requests. So each store remembers the tokens it has read, and a check found live under a
 * remembered token is the check: a token's item never comes back to life once tombstoned, and a
 * rotation tombstones the old token's item before the new one exists (core/checks/rotate.ts).
 * Anything else (no item, a tombstone, another check's item) reads the ref again, as before, so a
 * stale token costs one get more and never answers wrongly.
 */
const tokensByStore = new WeakMap<Pick<Store, 'entities'>, Map<number, string>>();

/** A bound on what one process remembers (ids are 16 digits and tokens 36 characters: a few MB). */
const REMEMBERED = 50_000;

function tokensOf(store: Pick<Store, 'entities'>): Map<number, string> {
  let tokens = tokensByStore.get(store);
  if (!tokens) {
    tokens = new Map();
    tokensByStore.set(store, tokens);
  }
  return tokens;
}

/**
 * A check this process has just read by its token (the ping path's read of a job it has no hint
 * for): the alert dispatch of the job's next flip then reads it by id without its ref. The same
 * trust as a ref read, since a remembered token only ever answers with a live item of that id. A
 * store with no entities (the ping Lambda's) reads nothing by id, so it remembers nothing.
 */
export function rememberCheckToken(store: object, checkId: number, token: string): void {
  if (!('entities' in store)) return;
  const tokens = tokensOf(store as Pick<Store, 'entities'>);
  if (tokens.size >= REMEMBERED) tokens.clear();
  tokens.set(checkId, token);
}

/** The check with this id, deleted ones included (a tombstone keeps its token). */
export async function readCheckOfId(store: Pick<Store, 'entities'>, checkId: number): Promise<CheckItem | undefined> {
  const tokens = tokensOf(store);
  const known = tokens.get(checkId);
  let underKnown: CheckItem | undefined;
  if (known !== undefined) {
    underKnown = (await store.entities.check.get({ token: known }).go()).data ?? undefined;
    if (underKnown && underKnown.checkId === checkId && underKnown.deletedAt === undefined) return underKnown;
  }
  const ref = (await store.entities.checkRef.get({ checkId }).go()).data;
  if (!ref) {
    tokens.delete(checkId);
    return undefined;
  }
  if (tokens.size >= REMEMBERED) tokens.clear();
  tokens.set(checkId, ref.token);
  if (ref.token === known) return underKnown;
  return (await store.entities.check.get({ token: ref.token }).go()).data ?? undefined;
}
