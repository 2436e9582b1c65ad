import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteItemCommand, DynamoDBClient, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedStore, type EmbeddedStore } from './embeddedStore.js';

/**
 * The embedded store's index keys (patches/dynalite+4.0.0.patch). dynalite keys an index entry by
 * the entry's index key plus a hash of the item's table key; it kept only the first six hex digits
 * of that hash, so two items with equal index keys whose table keys shared those 24 bits had one
 * entry between them (about k²/2²⁵ of k such items: 3% at 1,000 checks due at one instant). The
 * patch keeps the whole hash, and moves the entries of a store written before it to their whole
 * keys when the store is opened.
 */

type Level = {
  open(): Promise<void>;
  close(): Promise<void>;
  keys(options: { gte: string; lt: string }): AsyncIterable<string>;
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
};
const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
/** The LevelDB binding dynalite itself stores through. */
const { Level } = dynaliteRequire('level') as { Level: new (path: string, options: { valueEncoding: 'json' }) => Level };
/** The hash dynalite puts in front of a table key (the first six hex digits of the same MD5). */
const { hashPrefix } = dynaliteRequire('./db') as { hashPrefix(hashKey: string, hashType: 'S', rangeKey: string, rangeType: 'S'): string };

const TABLE = 'index_keys';
const INDEX = 'byDue';
const ENTRY_PREFIX = `index-global~${TABLE}~${INDEX}~`;
/** Where the patched store records that its index entries are all under their whole key. */
const UPGRADED = 'vigil~index-keys';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Two partition keys whose table keys dynalite's six-digit hash cannot tell apart (a deterministic search). */
function collidingKeys(): [string, string] {
  const seen = new Map<string, string>();
  for (let n = 0; ; n++) {
    const pk = `check#${n}`;
    const prefix = hashPrefix(pk, 'S', 'check', 'S');
    const other = seen.get(prefix);
    if (other !== undefined) return [other, pk];
    seen.set(prefix, pk);
  }
}

let dir: string;
let store: EmbeddedStore;
let client: DynamoDBClient;

async function open(): Promise<void> {
  store = await startEmbeddedStore(dir, 0, { isolate: 'child' });
  client = new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials });
}

async function close(): Promise<void> {
  client.destroy();
  await store.close();
}

const item = (pk: string, note: string) => ({ pk: { S: pk }, sk: { S: 'check' }, dueShard: { S: '0' }, dueAt: { S: '2026-03-01T13:00:00.000Z' }, note: { S: note } });
const put = (pk: string, note: string) => client.send(new PutItemCommand({ TableName: TABLE, Item: item(pk, note) }));

/** Everything the index lists for the shared instant: partition key and note, in index order. */
async function listed(order: 'asc' | 'desc' = 'asc', limit?: number): Promise<string[]> {
  const found: string[] = [];
  let start: Record<string, { S: string }> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: INDEX,
        KeyConditionExpression: 'dueShard = :shard AND dueAt <= :now',
        ExpressionAttributeValues: { ':shard': { S: '0' }, ':now': { S: '2026-03-01T13:00:00.000Z' } },
        ScanIndexForward: order === 'asc',
        ...(limit !== undefined ? { Limit: limit } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const entry of page.Items ?? []) found.push(`${entry.pk?.S ?? '?'}:${entry.note?.S ?? '?'}`);
    start = page.LastEvaluatedKey as Record<string, { S: string }> | undefined;
  } while (start);
  return found;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-index-keys-'));
  await open();
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'sk', 'dueShard', 'dueAt'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: INDEX,
          KeySchema: [
            { AttributeName: 'dueShard', KeyType: 'HASH' },
            { AttributeName: 'dueAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
});

afterAll(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

describe('index entries of items with equal index keys', () => {
  it('are all kept, even for two items whose table keys dynalite once hashed alike', async () => {
    const [a, b] = collidingKeys();
    expect(hashPrefix(a, 'S', 'check', 'S')).toBe(hashPrefix(b, 'S', 'check', 'S'));
    await put(a, 'first');
    await put(b, 'first');
    expect((await listed()).sort()).toEqual([`${a}:first`, `${b}:first`].sort());

    // Rewritten, each still has its own entry; removing one leaves the other.
    await client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: { S: a }, sk: { S: 'check' } },
        UpdateExpression: 'SET note = :n',
        ExpressionAttributeValues: { ':n': { S: 'second' } },
      }),
    );
    expect((await listed()).sort()).toEqual([`${a}:second`, `${b}:first`].sort());
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: a }, sk: { S: 'check' } } }));
    expect(await listed()).toEqual([`${b}:first`]);
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: b }, sk: { S: 'check' } } }));
    expect(await listed()).toEqual([]);
  });

  it('page through in both directions, each item once', async () => {
    const keys = Array.from({ length: 7 }, (_, i) => `page#${i}`);
    for (const pk of keys) await put(pk, 'p');
    const all = await listed();
    expect([...all].sort()).toEqual(keys.map((pk) => `${pk}:p`).sort());
    expect(await listed('asc', 2)).toEqual(all);
    expect(await listed('desc', 3)).toEqual([...all].reverse());
    for (const pk of keys) await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: pk }, sk: { S: 'check' } } }));
  });
});

describe('a store written before the patch', () => {
  it('has its short-keyed entries moved to their whole keys when opened, stale ones dropped, and each item listed once', async () => {
    const [a, b] = collidingKeys();
    for (const pk of ['old#1', 'old#2', 'gone#3', 'moved#4', a, b]) await put(pk, 'before');
    await client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: { S: 'moved#4' }, sk: { S: 'check' } },
        UpdateExpression: 'SET dueAt = :later',
        ExpressionAttributeValues: { ':later': { S: '2026-03-01T14:00:00.000Z' } },
      }),
    );
    await close();

    // Rewrite the index as dynalite left it before the patch: each entry a copy of its item under
    // the whole hash cut to six digits, and no record that the store was upgraded. gone#3's item is deleted behind
    // the index's back and moved#4 keeps an entry at its old due time (both stale), and of the two
    // colliding items only b's entry is there (the later write had replaced a's).
    const level = new Level(dir, { valueEncoding: 'json' });
    await level.open();
    expect(await level.get(UPGRADED)).toBeDefined();
    await level.del(UPGRADED);
    const pkOf = (entry: unknown) => (entry as { pk?: { S?: string } }).pk?.S;
    const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
    const entries = new Map<string, unknown>();
    // Entries are now references to their items (the item's key); before the patch each was a copy.
    for await (const key of level.keys({ gte: ENTRY_PREFIX, lt: `${ENTRY_PREFIX}~` })) {
      const entry = await level.get(key);
      entries.set(key, typeof entry === 'string' ? await level.get(`item-${TABLE}~${entry}`) : entry);
    }
    expect(entries.size).toBe(6);
    for (const [key, entry] of entries) {
      expect(key).toMatch(/[0-9a-f]{32}$/);
      await level.del(key);
      if (pkOf(entry) !== a) await level.put(key.slice(0, -26), entry);
      if (pkOf(entry) === 'moved#4') {
        const stale = key.replace(hex('2026-03-01T14:00:00.000Z'), hex('2026-03-01T13:00:00.000Z')).slice(0, -26);
        await level.put(stale, { ...(entry as Record<string, unknown>), dueAt: { S: '2026-03-01T13:00:00.000Z' } });
      }
    }
    for await (const key of level.keys({ gte: `item-${TABLE}~`, lt: `item-${TABLE}~~` })) if (pkOf(await level.get(key)) === 'gone#3') await level.del(key);
    await level.close();

    await open();
    expect((await listed()).sort()).toEqual(['old#1:before', 'old#2:before', `${b}:before`].sort());

    // Every entry is now under its whole key, and the store records it.
    await close();
    const after = new Level(dir, { valueEncoding: 'json' });
    await after.open();
    const keys: string[] = [];
    for await (const key of after.keys({ gte: ENTRY_PREFIX, lt: `${ENTRY_PREFIX}~` })) keys.push(key);
    expect(await after.get(UPGRADED)).toBeDefined();
    await after.close();
    expect(keys).toHaveLength(4);
    for (const key of keys) expect(key).toMatch(/[0-9a-f]{32}$/);
    await open();

    // Written again, each item keeps one entry; a is back in the index at its next write.
    await client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: { S: 'old#1' }, sk: { S: 'check' } },
        UpdateExpression: 'SET note = :n',
        ExpressionAttributeValues: { ':n': { S: 'after' } },
      }),
    );
    await put(a, 'after');
    expect((await listed()).sort()).toEqual(['old#1:after', 'old#2:before', `${a}:after`, `${b}:before`].sort());
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: 'old#1' }, sk: { S: 'check' } } }));
    expect((await listed()).sort()).toEqual(['old#2:before', `${a}:after`, `${b}:before`].sort());
  });
});
