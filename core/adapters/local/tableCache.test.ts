import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoClient, ensureTable, hotPathClient } from '../../store/client.js';
import { type EmbeddedStore, startEmbeddedStore } from './embeddedStore.js';

/**
 * dynalite keeps each table's description as the data-plane actions last read it (its
 * db/index.js getTable, patched by patches/dynalite+4.0.0.patch) instead of reading and parsing it
 * from LevelDB at every request. A table deleted or made again must be seen at once, and nothing
 * a request does may change the kept description.
 */

type Table = Record<string, unknown>;
type Store = {
  tableDb: { get(name: string, cb: (err: Error | null, table?: Table) => void): void };
  getTable(name: string, checkStatus: boolean | ((err: Error | null, table?: Table) => void), cb?: (err: Error | null, table?: Table) => void): void;
};

const require = createRequire(import.meta.url);
const crypto = require('node:crypto') as { createHash: (algorithm: string) => unknown };
const db = require('dynalite/db') as { create: (options: object) => Store };
const TABLE = 'kept';
const OTHER = 'remade';
let dir: string;
let embedded: EmbeddedStore;
let store: Store;
let client: DynamoDBClient;
let reads = 0;

beforeAll(async () => {
  // The store behind the server, to count its table reads and look at what it keeps.
  const create = db.create;
  db.create = (options) => {
    store = create(options);
    const get = store.tableDb.get;
    store.tableDb.get = (name, cb) => {
      reads++;
      get(name, cb);
    };
    return store;
  };
  dir = mkdtempSync(join(tmpdir(), 'vigil-tables-'));
  try {
    embedded = await startEmbeddedStore(join(dir, 'data'));
  } finally {
    db.create = create;
  }
  const doc = createDynamoClient({ endpoint: embedded.endpoint });
  await ensureTable(doc, TABLE);
  client = hotPathClient(doc);
});

afterAll(async () => {
  await embedded.close();
  rmSync(dir, { recursive: true, force: true });
});

const S = (s: string) => ({ S: s });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err: Error) => `${err.name}: ${err.message}`,
  );
const read = (name: string, checkStatus: boolean) =>
  new Promise<Table | undefined>((resolve, reject) => {
    const cb = (err: Error | null, table?: Table) => (err ? reject(err) : resolve(table));
    if (checkStatus) store.getTable(name, cb);
    else store.getTable(name, false, cb);
  });

describe("dynalite's kept table descriptions", () => {
  it('reads a table once for a run of reads, writes and queries, and keeps it unchanged by them', async () => {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: S('t'), sk: S('seed') } }));
    reads = 0;
    for (let i = 0; i < 10; i++) {
      await client.send(
        new PutItemCommand({ TableName: TABLE, Item: { pk: S('t'), sk: S(`${i}`), gsi1pk: S('g'), gsi1sk: S(`${i}`) }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: S('t'), sk: S(`${i}`) } }));
    }
    expect(reads).toBe(0);
    await client.send(new QueryCommand({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :g', ExpressionAttributeValues: { ':g': S('g') }, Limit: 3 }));
    await client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: S('t'), sk: S('1') },
        UpdateExpression: 'SET gsi2pk = :g, gsi2sk = :g',
        ExpressionAttributeValues: { ':g': S('h') },
        ReturnValues: 'ALL_NEW',
      }),
    );
    await client.send(
      new BatchWriteItemCommand({ RequestItems: { [TABLE]: [{ DeleteRequest: { Key: { pk: S('t'), sk: S('2') } } }, { PutRequest: { Item: { pk: S('t'), sk: S('x') } } }] } }),
    );
    await client.send(new BatchGetItemCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: S('t'), sk: S('3') }], ProjectionExpression: 'pk' } } }));
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: S('t'), sk: S('4') } }));
    expect(reads).toBe(0);
    // What the data plane is handed is what the table store holds, as the control plane reads it.
    expect(await read(TABLE, true)).toStrictEqual(await read(TABLE, false));
  });

  it('sees a table deleted, and made again with another key, at the next request', async () => {
    const create = async (keys: string[]) => {
      await client.send(
        new CreateTableCommand({
          TableName: OTHER,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
          KeySchema: keys.map((name, i) => ({ AttributeName: name, KeyType: i === 0 ? ('HASH' as const) : ('RANGE' as const) })),
        }),
      );
      // dynalite makes a table ACTIVE a timer's turn after answering.
      for (let i = 0; i < 100; i++) if ((await client.send(new DescribeTableCommand({ TableName: OTHER }))).Table?.TableStatus === 'ACTIVE') return;
      throw new Error('the table did not become active');
    };
    await create(['pk']);
    await client.send(new PutItemCommand({ TableName: OTHER, Item: { pk: S('a') } }));
    expect(await failure(client.send(new GetItemCommand({ TableName: OTHER, Key: { pk: S('a') } })))).toBe('ok');

    await client.send(new DeleteTableCommand({ TableName: OTHER }));
    expect(await failure(client.send(new GetItemCommand({ TableName: OTHER, Key: { pk: S('a') } })))).toBe('ResourceNotFoundException: Requested resource not found');

    // and removes it a timer's turn after answering its deletion.
    for (let i = 0; i < 100 && (await failure(client.send(new DescribeTableCommand({ TableName: OTHER })))) === 'ok'; i++);
    await create(['pk', 'sk']);
    expect(await failure(client.send(new PutItemCommand({ TableName: OTHER, Item: { pk: S('a') } })))).toBe(
      'ValidationException: One or more parameter values were invalid: Missing the key sk in the item',
    );
    expect(await failure(client.send(new PutItemCommand({ TableName: OTHER, Item: { pk: S('a'), sk: S('b') } })))).toBe('ok');
    expect(await read(OTHER, true)).toStrictEqual(await read(OTHER, false));
  });
});

// The same patch keeps the MD5 prefix of each recent partition key: a write hashed its item's
// partition and each index's again, and so did every query, for the same few keys.
describe("dynalite's partition prefixes", () => {
  it('hash a partition key once for a run of writes and queries to it', async () => {
    const put = (i: number) => client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: S('p'), sk: S(`${i}`), gsi1pk: S('pg'), gsi1sk: S(`${i}`) } }));
    await put(0);
    const hash = vi.spyOn(crypto, 'createHash');
    try {
      for (let i = 1; i <= 10; i++) await put(i);
      const found = await client.send(
        new QueryCommand({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :g', ExpressionAttributeValues: { ':g': S('pg') } }),
      );
      expect(found.Items?.length).toBe(11);
      // One for each new item's index entry (its whole key, new each time); none for the partitions.
      expect(hash.mock.calls.filter(([algorithm]) => algorithm === 'md5').length).toBe(10);
    } finally {
      hash.mockRestore();
    }
  });
});
