import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { ALL_TOPICS } from '../../ports/index.js';
import { writeItems } from '../../store/batch.js';
import type { Store } from '../../store/service.js';

/**
 * The two reads and the delete a broadcast makes on the connection registry
 * (streamConnections.ts), as plain requests in exactly the keys the streamConnection entity
 * writes (v2; connectionRows.test.ts reads and cleans rows the entity wrote). Plain, so the ping
 * Lambda broadcasts without loading ElectroDB; every runtime uses these same functions.
 */
type Table = Pick<Store, 'hot' | 'table'>;

const PREFIX = '$streamconnection_2';
const channelKey = (channel: string): string => `$vigil#channel_${channel.toLowerCase()}`;
const epochSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

async function queryAll(store: Table, input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let cursor: Record<string, AttributeValue> | undefined;
  do {
    const page = await store.hot.send(new QueryCommand({ ...input, TableName: store.table, ExclusiveStartKey: cursor }));
    items.push(...(page.Items ?? []));
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}

/**
 * Live connections that hear an event on `channel` (and `topic`): those on the whole channel plus
 * those on that one topic, two key-range reads of exactly the listeners, never a Scan.
 */
export async function connectionsOf(store: Table, channel: string, now: Date, topic?: string): Promise<string[]> {
  const topics = topic === undefined || topic === ALL_TOPICS ? [ALL_TOPICS] : [ALL_TOPICS, topic];
  const pages = await Promise.all(
    topics.map((t) =>
      queryAll(store, {
        KeyConditionExpression: '#pk = :pk and begins_with(#sk, :sk)',
        FilterExpression: '#expiresAt > :now',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#expiresAt': 'expiresAt', '#connectionId': 'connectionId' },
        ExpressionAttributeValues: {
          ':pk': { S: channelKey(channel) },
          ':sk': { S: `${PREFIX}#topic_${t.toLowerCase()}#connectionid_` },
          ':now': { N: String(epochSeconds(now)) },
        },
        ProjectionExpression: '#connectionId',
      }),
    ),
  );
  const ids = pages.flat().flatMap((item) => (item.connectionId?.S ? [item.connectionId.S] : []));
  return [...new Set(ids)];
}

/** Removes every subscription of a connection (idempotent). */
export async function forgetConnection(store: Table, connectionId: string): Promise<void> {
  const rows = await queryAll(store, {
    IndexName: 'gsi1',
    KeyConditionExpression: '#pk = :pk and begins_with(#sk, :sk)',
    ExpressionAttributeNames: { '#pk': 'gsi1pk', '#sk': 'gsi1sk', '#tpk': 'pk', '#tsk': 'sk' },
    ExpressionAttributeValues: { ':pk': { S: `$vigil#connectionid_${connectionId.toLowerCase()}` }, ':sk': { S: `${PREFIX}#channel_` } },
    ProjectionExpression: '#tpk, #tsk',
  });
  const keys = rows.flatMap((row) => (row.pk && row.sk ? [{ pk: row.pk, sk: row.sk }] : []));
  await writeItems(
    store,
    keys.map((Key) => ({ DeleteRequest: { Key } })),
    'stream connection rows',
  );
}
