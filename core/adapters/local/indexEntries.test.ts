import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AttributeValue, DeleteItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClient, ensureTable, hotPathClient } from '../../store/client.js';
import { type EmbeddedStore, startEmbeddedStore } from './embeddedStore.js';

/**
 * An entry of an ALL-projection index is a reference to its item, not a copy of it
 * (patches/dynalite+4.0.0.patch, writeItem): a query reads each item through its entry, with the
 * snapshot the index is read with. A query must answer what it would have with copies: each item
 * as it was when the query began, even if it moves out of the index, changes or goes away before
 * its entry is read.
 */

type Iterator = { nextv(size: number, options?: unknown): Promise<unknown[]> };
type LevelClass = { prototype: { values(options: unknown): Iterator } };
const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
/** The LevelDB class dynalite stores through on disk. */
const { Level } = dynaliteRequire('level') as { Level: LevelClass };
type Raw = { values(options: unknown): Iterator };

const TABLE = 'entries';
let dir: string;
let store: EmbeddedStore;
let client: ReturnType<typeof hotPathClient>;
/** The next index iterator opened waits here before its first read. */
let held: { opened: () => void; release: Promise<void> } | null = null;
const values = Level.prototype.values;
let raw: Raw | null = null;

beforeAll(async () => {
  Level.prototype.values = function (this: Raw, options: unknown) {
    raw = this;
    const iterator = values.call(this, options);
    const hold = (options as { gte?: string }).gte?.startsWith('index-') ? held : null;
    if (hold) {
      held = null;
      hold.opened();
      const nextv = iterator.nextv.bind(iterator);
      iterator.nextv = async (size, more) => {
        await hold.release;
        return nextv(size, more);
      };
    }
    return iterator;
  };
  dir = mkdtempSync(join(tmpdir(), 'vigil-entries-'));
  store = await startEmbeddedStore(dir);
  const doc = createDynamoClient({ endpoint: store.endpoint });
  await ensureTable(doc, TABLE);
  client = hotPathClient(doc);
});

afterAll(async () => {
  Level.prototype.values = values;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const S = (s: string) => ({ S: s });
const item = (sk: string, note: string): Record<string, AttributeValue> => ({ pk: S('p'), sk: S(sk), gsi1pk: S('due'), gsi1sk: S(sk), note: S(note) });
const byIndex = () =>
  client.send(new QueryCommand({ TableName: TABLE, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :due', ExpressionAttributeValues: { ':due': S('due') } }));

describe('index entries that refer to their items', () => {
  it('are references, not copies, and a query answers the items', async () => {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: item('a', 'first') }));
    expect((await byIndex()).Items).toEqual([item('a', 'first')]);
    const entries = await indexEntryValues();
    expect(entries).toHaveLength(1);
    expect(typeof entries[0]).toBe('string');
  });

  it('answer each item as it was when the query began, though it changed, moved out of the index or went away', async () => {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: item('b', 'second') }));
    await client.send(new PutItemCommand({ TableName: TABLE, Item: item('c', 'third') }));
    const before = (await byIndex()).Items;
    expect(before).toEqual([item('a', 'first'), item('b', 'second'), item('c', 'third')]);

    let release = () => {};
    const opened = new Promise<void>((resolve) => {
      held = { opened: resolve, release: new Promise<void>((done) => (release = done)) };
    });
    const query = byIndex();
    await opened;
    await client.send(
      new UpdateItemCommand({ TableName: TABLE, Key: { pk: S('p'), sk: S('a') }, UpdateExpression: 'SET note = :n', ExpressionAttributeValues: { ':n': S('changed') } }),
    );
    await client.send(
      new UpdateItemCommand({ TableName: TABLE, Key: { pk: S('p'), sk: S('b') }, UpdateExpression: 'SET gsi1pk = :other', ExpressionAttributeValues: { ':other': S('later') } }),
    );
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: S('p'), sk: S('c') } }));
    release();
    expect((await query).Items).toEqual(before);
    expect((await byIndex()).Items).toEqual([{ ...item('a', 'first'), note: S('changed') }]);
  });
});

/** The values of the table's gsi1 entries as LevelDB holds them. */
async function indexEntryValues(): Promise<unknown[]> {
  if (!raw) throw new Error('the store has not read through LevelDB yet');
  const out: unknown[] = [];
  const entries = raw.values({ gte: `index-global~${TABLE}~gsi1~`, lt: `index-global~${TABLE}~gsi1~\xff` }) as unknown as AsyncIterable<unknown>;
  for await (const value of entries) out.push(value);
  return out;
}
