import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, PutItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedStore, type EmbeddedStore } from './embeddedStore.js';

/**
 * Every LevelDB iterator the embedded store opens is closed again (patches/dynalite+4.0.0.patch).
 * dynalite turned each query's iterator into a stream whose end called `iterator.return()`, which
 * abstract-level iterators do not have: none was ever closed. An open iterator pins the LevelDB
 * version it began on, so the files compaction replaced were never deleted and the store held a
 * growing heap: in the mass-outage bench (bench/steady.ts) the data directory grew by 213 kB per flipping
 * check, about 2.5 kB once iterators were closed.
 */

type Iterator = { close(): Promise<void> };
type LevelClass = { prototype: { values(options: unknown): Iterator; keys(options: unknown): Iterator } };
const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
/** The LevelDB class dynalite itself stores through (in-process here, so its prototype can be watched). */
const { Level } = dynaliteRequire('level') as { Level: LevelClass };
/** classic-level's native binding: each `iterator_nextv` is a trip to LevelDB's thread pool. */
const binding = createRequire(dynaliteRequire.resolve('level'))('classic-level/binding') as Record<'iterator_nextv', (...args: unknown[]) => unknown>;

const TABLE = 'iterators';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const open = { count: 0 };
const originals = { values: Level.prototype.values, keys: Level.prototype.keys };

/** Counts iterators opened and not yet closed, whoever opens them. */
function watch(kind: 'values' | 'keys') {
  const original = originals[kind];
  Level.prototype[kind] = function (this: unknown, options: unknown) {
    const iterator = original.call(this, options);
    open.count++;
    const close = iterator.close.bind(iterator);
    let closed = false;
    iterator.close = async () => {
      if (!closed) open.count--;
      closed = true;
      await close();
    };
    return iterator;
  };
}

let dir: string;
let store: EmbeddedStore;
let client: DynamoDBClient;

beforeAll(async () => {
  watch('values');
  watch('keys');
  dir = mkdtempSync(join(tmpdir(), 'vigil-iterators-'));
  store = await startEmbeddedStore(dir);
  client = new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials });
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'lane', AttributeType: 'S' },
        { AttributeName: 'at', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byAt',
          KeySchema: [
            { AttributeName: 'lane', KeyType: 'HASH' },
            { AttributeName: 'at', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  for (let i = 0; i < 30; i++) {
    await client.send(
      new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'lane' }, sk: { S: String(i).padStart(3, '0') }, lane: { S: 'a' }, at: { S: String(i).padStart(3, '0') } } }),
    );
  }
});

afterAll(async () => {
  Level.prototype.values = originals.values;
  Level.prototype.keys = originals.keys;
  client.destroy();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the embedded store closes its iterators', () => {
  it('after queries that stop at their limit, run to their end, page, or use an index, and after a scan', async () => {
    const before = open.count;
    const query = (extra: Partial<ConstructorParameters<typeof QueryCommand>[0]>) =>
      client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'lane' } }, ...extra }));
    const limited = await query({ Limit: 5 });
    expect(limited.Count).toBe(5);
    expect((await query({ Limit: 5, ExclusiveStartKey: limited.LastEvaluatedKey })).Count).toBe(5);
    expect((await query({})).Count).toBe(30);
    expect((await query({ ScanIndexForward: false, Limit: 3 })).Count).toBe(3);
    const byIndex = await client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'byAt',
        KeyConditionExpression: 'lane = :lane AND #at < :at',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':lane': { S: 'a' }, ':at': { S: '010' } },
        Limit: 4,
      }),
    );
    expect(byIndex.Count).toBe(4);
    expect((await client.send(new ScanCommand({ TableName: TABLE, Limit: 7 }))).Count).toBe(7);
    // Closing is asynchronous (the stream's destroy): wait for the store's next turn, not for time.
    await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'none' } } }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(open.count - before).toBe(0);
  });
});

describe('the embedded store reads a query in as few trips as it can', () => {
  // Each trip to LevelDB's thread pool wakes a thread and then the event loop, which costs more
  // than reading a few entries. classic-level's iterator fetched one entry, then up to 1,000: two
  // trips for any query; the patched store asks for what the query may return (its Limit + 1) or
  // 1,000 at once.
  it('makes one trip for a query of a few items, of its limit, or of a whole partition', async () => {
    const nextv = binding.iterator_nextv;
    let trips = 0;
    binding.iterator_nextv = (...args: unknown[]) => {
      trips++;
      return nextv(...args);
    };
    try {
      const tripsOf = async (input: Partial<ConstructorParameters<typeof QueryCommand>[0]>) => {
        const before = trips;
        const answer = await client.send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk AND sk < :sk',
            ExpressionAttributeValues: { ':pk': { S: 'lane' }, ':sk': { S: '999' } },
            ...input,
          }),
        );
        return [answer.Count, trips - before];
      };
      expect(await tripsOf({ ExpressionAttributeValues: { ':pk': { S: 'lane' }, ':sk': { S: '003' } } })).toEqual([3, 1]);
      expect(await tripsOf({ Limit: 5 })).toEqual([5, 1]);
      expect(await tripsOf({ Limit: 1, ScanIndexForward: false })).toEqual([1, 1]);
      expect(await tripsOf({})).toEqual([30, 1]);
    } finally {
      binding.iterator_nextv = nextv;
    }
  });
});
