import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { envelope, type Page } from '../http/pagination.js';
import { countQuery } from './count.js';
import type { Store } from './service.js';

/** What `pageOfQuery` needs from an ElectroDB query chain (a key condition, maybe a filter). */
export type PageableQuery<T> = {
  go(options: { count: number }): Promise<{ data: T[] }>;
  params(): object;
};

/**
 * The spec's envelope over a query, in the index's own order. DynamoDB has no offset, so page N
 * reads the first N * limit items; `total` is a COUNT over the same key condition (keys only).
 */
export async function pageOfQuery<T, R>(store: Store, query: PageableQuery<T>, page: number, limit: number, map: (item: T) => R | Promise<R>): Promise<Page<R>> {
  const wanted = page * limit;
  const [found, total] = await Promise.all([query.go({ count: wanted }), countQuery(store, query.params() as QueryCommandInput)]);
  const items = await Promise.all(found.data.slice((page - 1) * limit, wanted).map(map));
  return envelope(items, total, page, limit);
}
