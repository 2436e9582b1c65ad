import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Store } from './service.js';

/**
 * How many items a query matches (for the paginated envelope's `total`): `Select: COUNT` pages,
 * which read keys only and return no items.
 */
export async function countQuery(store: Store, params: QueryCommandInput): Promise<number> {
  let total = 0;
  let startKey: QueryCommandInput['ExclusiveStartKey'];
  do {
    const page = await store.client.send(new QueryCommand({ ...params, Select: 'COUNT', ExclusiveStartKey: startKey }));
    total += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return total;
}
