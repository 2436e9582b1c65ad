import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { isConditionalFailure } from './conditional.js';
import type { Store } from './service.js';

/** The plain client and the table: every limiter (the ping path's too) counts without the document client. */
type WindowTable = Pick<Store, 'hot' | 'table'>;

export type RateWindow = { rule: string; scope: string; windowStartMs: number; windowMs: number };

/**
 * Counts one request (or `units` of work) in the fixed window `RL#<rule>#<scope>#<windowStart>`: one UpdateItem ADD
 * with a condition on the limit, expired by TTL a minute after the window closes. Lambdas share
 * no memory, so the table is the counter. Returns the count after this request, or null when the
 * window has no room for it (nothing is written). Other failures propagate: the caller decides.
 */
const windowKey = (window: RateWindow) => ({ pk: `RL#${window.rule}#${window.scope}#${window.windowStartMs}`, sk: 'rl' });

/** The window's count so far, without counting (a limit judged before work it only counts on failure). */
export async function readWindow(store: WindowTable, window: RateWindow): Promise<number> {
  const found = await store.hot.send(new GetItemCommand({ TableName: store.table, Key: marshall(windowKey(window)) }));
  return Number(found.Item?.count?.N ?? 0);
}

export async function countInWindow(store: WindowTable, window: RateWindow, limit: number, units = 1): Promise<number | null> {
  // More units than the whole window holds can never fit (the condition below would let them in on a fresh window).
  if (units > limit) return null;
  try {
    const result = await store.hot.send(
      new UpdateItemCommand({
        TableName: store.table,
        Key: marshall(windowKey(window)),
        UpdateExpression: 'ADD #count :units SET #expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
        ExpressionAttributeNames: { '#count': 'count', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: marshall({
          ':units': units,
          ':room': limit - units,
          ':expiresAt': Math.floor((window.windowStartMs + window.windowMs) / 1000) + 60,
        }),
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.count?.N ?? limit);
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}
