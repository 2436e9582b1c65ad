import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Store } from './service.js';

/**
 * Every item an index query matches (or the first `wanted`), with only `attributes` read back:
 * what a list needs to order, filter and count before it reads its page whole. `params` is an ElectroDB query's `.params()`;
 * the raw read skips ElectroDB's formatting, which for thousands of small items cost as much as
 * the store's read.
 */
export async function queryProjected<T>(store: Pick<Store, 'client'>, params: QueryCommandInput, attributes: readonly string[], wanted = Number.POSITIVE_INFINITY): Promise<T[]> {
  const keyNames = Object.fromEntries((params.KeyConditionExpression?.match(/#\w+/g) ?? []).map((name) => [name, params.ExpressionAttributeNames?.[name] ?? '']));
  const projected = Object.fromEntries(attributes.map((attribute, i) => [`#p${i}`, attribute]));
  const items: T[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const page = await store.client.send(
      new QueryCommand({
        TableName: params.TableName,
        IndexName: params.IndexName,
        KeyConditionExpression: params.KeyConditionExpression,
        ExpressionAttributeValues: params.ExpressionAttributeValues,
        ExpressionAttributeNames: { ...keyNames, ...projected },
        ProjectionExpression: Object.keys(projected).join(', '),
        ...(Number.isFinite(wanted) ? { Limit: wanted - items.length } : {}),
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) items.push(item as T);
    start = page.LastEvaluatedKey;
  } while (start && items.length < wanted);
  return items.slice(0, wanted);
}
