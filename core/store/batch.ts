import { BatchGetItemCommand, BatchWriteItemCommand, GetItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { AGAIN, doubling, realPause, retry, type Pause } from '../retry.js';
import type { Store } from './service.js';

/*
 * Batch reads and writes, one of each. DynamoDB may answer a BatchGetItem or BatchWriteItem in
 * part (throttling, the 16 MB answer bound) and hand back the rest as UnprocessedKeys or
 * UnprocessedItems; that is not an error, so the SDK does not retry it. Here the rest is sent
 * again with doubling waits, as AWS advises, and when it is still left after the last attempt the
 * caller gets an UnprocessedItemsError: never a shorter answer that looks complete.
 * Plain-client requests only (no document client, no ElectroDB): the ping Lambda writes through
 * here and its bundle stays small (stacks/signalsBundle.test.ts).
 */

export type BatchRetry = {
  /** How many requests a batch may take in all (default 6). */
  attempts?: number;
  /** The wait before the first resend, doubled for each one after it (default 20 ms). */
  firstDelayMs?: number;
  /** How the waits are spent (tests record them instead of sleeping). */
  pause?: Pause;
};

const ATTEMPTS = 6;
const FIRST_DELAY_MS = 20;
/** DynamoDB's bounds on one request. */
const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;

/** Items the store still left unprocessed after every attempt. */
export class UnprocessedItemsError extends Error {
  constructor(
    readonly what: string,
    readonly left: number,
    readonly attempts: number,
  ) {
    super(`${left} ${what} left unprocessed by the store after ${attempts} attempts`);
    this.name = 'UnprocessedItemsError';
  }
}

/**
 * Sends `items` with `send`, which answers what the store left unprocessed, and sends that again
 * until nothing is left. The loop under every helper below; use it directly for a batch whose
 * requests the caller builds itself (ElectroDB batch writes, the signal group commit).
 */
export async function untilProcessed<T>(items: readonly T[], send: (batch: T[]) => Promise<readonly T[]>, what: string, options: BatchRetry = {}): Promise<void> {
  let pending = [...items];
  if (pending.length === 0) return;
  const attempts = options.attempts ?? ATTEMPTS;
  await retry<undefined>(
    async () => {
      pending = [...(await send(pending))];
      return pending.length === 0 ? undefined : AGAIN;
    },
    { attempts, delayMs: doubling(options.firstDelayMs ?? FIRST_DELAY_MS), pause: options.pause },
    () => {
      throw new UnprocessedItemsError(what, pending.length, attempts);
    },
  );
}

/** The store a batch goes to; its `pause` (when given) spends the waits. */
type Target = Pick<Store, 'hot' | 'table'> & Partial<Pick<Store, 'pause'>>;

const withPause = (store: Partial<Pick<Store, 'pause'>>, options: BatchRetry = {}): BatchRetry => ({ ...options, pause: options.pause ?? store.pause ?? realPause });

/**
 * Items of one entity by key, through its ElectroDB batch get (which splits the keys into
 * requests of 100 itself): `get` is `(keys) => entity.get(keys).go(...)`. In no particular order.
 */
export async function getAll<K, I>(
  store: Partial<Pick<Store, 'pause'>>,
  keys: readonly K[],
  get: (keys: K[]) => Promise<{ data: I[]; unprocessed: K[] }>,
  what: string,
  options?: BatchRetry,
): Promise<I[]> {
  const found: I[] = [];
  await untilProcessed(
    keys,
    async (batch) => {
      const { data, unprocessed } = await get(batch);
      found.push(...data);
      return unprocessed;
    },
    what,
    withPause(store, options),
  );
  return found;
}

/** A table item's primary key, as an entity's `get(...).params()` gives it. */
export type ItemKey = { pk: string; sk: string };

const idOf = (key: { pk?: unknown; sk?: unknown }): string => `${String(key.pk)}\u0000${String(key.sk)}`;

/** The key of an ElectroDB `get` (to read it together with others). */
export const keyOf = (get: { params: <P>() => P }): ItemKey => get.params<{ Key: ItemKey }>().Key;

/**
 * Items of different entities that a verb needs at the same moment, in one BatchGetItem rather
 * than one GetItem each: one request (the same round trip, the same read units). In the order
 * asked, undefined for a missing item; raw (unmarshalled), for the entity's `parse`. A single key
 * is a plain GetItem.
 */
export async function getItems(store: Target, keys: readonly ItemKey[], options?: BatchRetry): Promise<(Record<string, unknown> | undefined)[]> {
  const [only] = keys;
  if (keys.length === 1 && only) {
    const { Item } = await store.hot.send(new GetItemCommand({ TableName: store.table, Key: marshall({ pk: only.pk, sk: only.sk }) }));
    return [Item && unmarshall(Item)];
  }
  const found = new Map<string, Record<string, unknown>>();
  const distinct = [...new Map(keys.map((key) => [idOf(key), marshall({ pk: key.pk, sk: key.sk })])).values()];
  for (let start = 0; start < distinct.length; start += BATCH_GET_LIMIT) {
    await untilProcessed(
      distinct.slice(start, start + BATCH_GET_LIMIT),
      async (pending) => {
        const answer = await store.hot.send(new BatchGetItemCommand({ RequestItems: { [store.table]: { Keys: pending } } }));
        for (const item of answer.Responses?.[store.table] ?? []) {
          const plain = unmarshall(item);
          found.set(idOf(plain), plain);
        }
        return answer.UnprocessedKeys?.[store.table]?.Keys ?? [];
      },
      'items',
      withPause(store, options),
    );
  }
  return keys.map((key) => found.get(idOf(key)));
}

/**
 * Puts and deletes of marshalled items (the plain client, no ElectroDB: the ping Lambda's paths),
 * in BatchWriteItems of 25, one after another.
 */
export async function writeItems(store: Target, requests: readonly WriteRequest[], what: string, options?: BatchRetry): Promise<void> {
  for (let start = 0; start < requests.length; start += BATCH_WRITE_LIMIT) {
    await untilProcessed(
      requests.slice(start, start + BATCH_WRITE_LIMIT),
      async (pending) => (await store.hot.send(new BatchWriteItemCommand({ RequestItems: { [store.table]: pending } }))).UnprocessedItems?.[store.table] ?? [],
      what,
      withPause(store, options),
    );
  }
}
