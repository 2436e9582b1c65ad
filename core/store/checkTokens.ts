import type { CheckItem } from './entities/check.js';
import type { Store } from './service.js';
import { storeMemo } from './storeMemo.js';

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
/** A bound on what one process remembers (ids are 16 digits and tokens 36 characters: a few MB). */
const tokens = storeMemo<number, string>(50_000);

/**
 * A check this process has just read by its token (the ping path's read of a job it has no hint
 * for): the alert dispatch of the job's next flip then reads it by id without its ref. The same
 * trust as a ref read, since a remembered token only ever answers with a live item of that id. A
 * store with no entities (the ping Lambda's) reads nothing by id, so it remembers nothing.
 */
export function rememberCheckToken(store: object, checkId: number, token: string): void {
  if (!('entities' in store)) return;
  tokens.set(store, checkId, token);
}

/** The check with this id, deleted ones included (a tombstone keeps its token). */
export async function readCheckOfId(store: Pick<Store, 'entities'>, checkId: number): Promise<CheckItem | undefined> {
  const known = tokens.get(store, checkId);
  let underKnown: CheckItem | undefined;
  if (known !== undefined) {
    underKnown = (await store.entities.check.get({ token: known }).go()).data ?? undefined;
    if (underKnown && underKnown.checkId === checkId && underKnown.deletedAt === undefined) return underKnown;
  }
  const ref = (await store.entities.checkRef.get({ checkId }).go()).data;
  if (!ref) {
    tokens.delete(store, checkId);
    return undefined;
  }
  tokens.set(store, checkId, ref.token);
  if (ref.token === known) return underKnown;
  return (await store.entities.check.get({ token: ref.token }).go()).data ?? undefined;
}
