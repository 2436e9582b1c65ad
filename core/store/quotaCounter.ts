import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalFailure } from './conditional.js';
import type { Store } from './service.js';

/**
 * How many of something an owner holds (a workspace's dependencies, a page's subscribers), as one
 * counter item: a new one takes a slot with `ADD` on the condition that the count is below the
 * limit, a removed one gives it back. One conditional write each, exact under concurrent
 * requests, where counting the owner's items would read all of them. A missing counter fails the
 * take's comparison too, so callers seed it (from the items that exist) before they take.
 */
export type QuotaKey = { pk: string; sk: 'quota' };

export const quotaKey = (name: string, ownerId: number): QuotaKey => ({ pk: `${name}#${ownerId}`, sk: 'quota' });

/** Writes the counter with `count()` unless it exists (a seed that lost a race keeps the winner's). */
export async function seedQuota(store: Store, key: QuotaKey, count: () => Promise<number>): Promise<void> {
  const found = await store.client.send(new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true }));
  if (found.Item) return;
  try {
    await store.client.send(new PutCommand({ TableName: store.table, Item: { ...key, count: await count() }, ConditionExpression: 'attribute_not_exists(pk)' }));
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** Takes a slot; false when the count is at `limit` (or the counter is missing). */
export async function takeQuotaSlot(store: Store, key: QuotaKey, limit: number): Promise<boolean> {
  try {
    await store.client.send(
      new UpdateCommand({
        TableName: store.table,
        Key: key,
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: '#count < :limit',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit },
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}

/** Gives a slot back (a removed item, a create that failed after taking it); never below zero. */
export async function releaseQuotaSlot(store: Store, key: QuotaKey): Promise<void> {
  try {
    await store.client.send(
      new UpdateCommand({
        TableName: store.table,
        Key: key,
        UpdateExpression: 'ADD #count :minus',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    );
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}
