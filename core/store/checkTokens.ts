import { checkKey, checkRefKey } from './checkKeys.js';
import type { CheckItem } from './entities/check.js';
import type { Store } from './service.js';
import { storeMemo } from './storeMemo.js';
import { getStored } from './storedItems.js';

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
export async function readCheckOfId(store: Pick<Store, 'entities' | 'hot' | 'table'>, checkId: number): Promise<CheckItem | undefined> {
  const known = tokens.get(store, checkId);
  let underKnown: CheckItem | undefined;
  if (known !== undefined) {
    underKnown = await readCheckOfToken(store, known);
    if (underKnown && underKnown.checkId === checkId && underKnown.deletedAt === undefined) return underKnown;
  }
  const ref = store.entities.checkRef.parse({ Item: await getStored(store, checkRefKey(checkId), EVENTUAL) }, OWNED).data;
  if (!ref) {
    tokens.delete(store, checkId);
    return undefined;
  }
  tokens.set(store, checkId, ref.token);
  if (ref.token === known) return underKnown;
  return readCheckOfToken(store, ref.token);
}

/**
 * `entities.check.get({ token }).go()`, as a plain get whose item ElectroDB's own `parse` formats:
 * each alert of a flip reads its check by id, and building the get through ElectroDB's chain cost
 * twice the CPU of the request and the parse together.
 */
const readCheckOfToken = async (store: Pick<Store, 'entities' | 'hot' | 'table'>, token: string): Promise<CheckItem | undefined> =>
  store.entities.check.parse({ Item: await getStored(store, checkKey(token), EVENTUAL) }, OWNED).data ?? undefined;

/** The entity's get is eventually consistent, and so are these. */
const EVENTUAL = { consistent: false } as const;

/** As a get does, `parse` takes only an item the entity owns (its identity), not any item under its key. */
const OWNED = { ignoreOwnership: false } as const;
