import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from './service.js';

/** A table item's primary key, as an entity's `get(...).params()` gives it. */
export type ItemKey = { pk: string; sk: string };

const READ_ATTEMPTS = 5;
const idOf = (key: { pk?: unknown; sk?: unknown }): string => `${String(key.pk)}\u0000${String(key.sk)}`;

/** The key of an ElectroDB `get` (to read it together with others). */
export const keyOf = (get: { params: <P>() => P }): ItemKey => get.params<{ Key: ItemKey }>().Key;

/**
 * Items of different entities that a verb needs at the same moment, in one BatchGetItem rather
 * than one GetItem each: one request (the same round trip, the same read units). In the order
 * asked, undefined for a missing item; raw, for the entity's `parse`. Keys the store leaves
 * unprocessed (throttling) are asked for again. A single key is a plain GetItem.
 */
export async function getItems(store: Pick<Store, 'client' | 'table'>, keys: readonly ItemKey[]): Promise<(Record<string, unknown> | undefined)[]> {
  const [only] = keys;
  if (keys.length === 1 && only) return [(await store.client.send(new GetCommand({ TableName: store.table, Key: { pk: only.pk, sk: only.sk } }))).Item];
  const found = new Map<string, Record<string, unknown>>();
  const distinct: Record<string, unknown>[] = [...new Map(keys.map((key) => [idOf(key), { pk: key.pk, sk: key.sk }])).values()];
  // BatchGetItem takes at most 100 keys a request.
  for (let start = 0; start < distinct.length; start += BATCH_GET_LIMIT) {
    let pending = distinct.slice(start, start + BATCH_GET_LIMIT);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= READ_ATTEMPTS) throw new Error(`${pending.length} items left unread by the store`);
      const answer = await store.client.send(new BatchGetCommand({ RequestItems: { [store.table]: { Keys: pending } } }));
      for (const item of answer.Responses?.[store.table] ?? []) found.set(idOf(item), item);
      pending = answer.UnprocessedKeys?.[store.table]?.Keys ?? [];
    }
  }
  return keys.map((key) => found.get(idOf(key)));
}
const BATCH_GET_LIMIT = 100;
