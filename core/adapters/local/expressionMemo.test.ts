import { createRequire } from 'node:module';
import { type AttributeValue, DeleteItemCommand, type DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClient, ensureTable, hotPathClient } from '../../store/client.js';
import { type EmbeddedStore, startEmbeddedStore } from './embeddedStore.js';

/**
 * dynalite keeps parsed expressions by shape (its validations/index.js, patched by
 * patches/dynalite+4.0.0.patch): a request whose expressions, names and value types were seen
 * before gets a copy of the earlier tree with its own values. Every answer must be the one a parse
 * would have given: each request below goes through the in-process store with the memo off, then
 * twice with it on (the second from the memo), and the answers and the item left behind compare.
 */

const require = createRequire(import.meta.url);
const validations = require('dynalite/validations') as { setExpressionMemo(enabled: boolean): void };
const parsers = ['dynalite/db/conditionParser', 'dynalite/db/updateParser', 'dynalite/db/projectionParser'].map(
  (name) => require(name) as { parse: (...args: unknown[]) => unknown },
);

const TABLE = 'memo';
let store: EmbeddedStore;
let client: DynamoDBClient;

beforeAll(async () => {
  store = await startEmbeddedStore(':memory:');
  const doc = createDynamoClient({ endpoint: store.endpoint });
  await ensureTable(doc, TABLE);
  client = hotPathClient(doc);
});

afterEach(() => validations.setExpressionMemo(true));
afterAll(() => store.close());

type Values = Record<string, AttributeValue>;
type Send = (key: Record<string, AttributeValue>) => Promise<unknown>;
const S = (s: string) => ({ S: s });
const N = (n: string) => ({ N: n });
const keyOf = (sk: string) => ({ pk: S('memo'), sk: S(sk) });
const seed = { n: N('5'), status: S('UP'), tags: { SS: ['a', 'b'] }, list: { L: [S('x')] }, nested: { M: { inner: N('1') } }, gsi1pk: S('g'), gsi1sk: S('m') };

const update =
  (UpdateExpression: string, values?: Values, names?: Record<string, string>, ConditionExpression?: string): Send =>
  (Key) =>
    client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key,
        UpdateExpression,
        ConditionExpression,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
const put =
  (ConditionExpression: string, values?: Values, names?: Record<string, string>): Send =>
  (Key) =>
    client.send(
      new PutItemCommand({ TableName: TABLE, Item: { ...Key, ...seed, n: N('9') }, ConditionExpression, ExpressionAttributeNames: names, ExpressionAttributeValues: values }),
    );
const query =
  (
    KeyConditionExpression: string,
    values: Values,
    more: { FilterExpression?: string; ProjectionExpression?: string; names?: Record<string, string>; IndexName?: string } = {},
  ): Send =>
  () =>
    client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: more.IndexName,
        KeyConditionExpression,
        FilterExpression: more.FilterExpression,
        ProjectionExpression: more.ProjectionExpression,
        ExpressionAttributeNames: more.names,
        ExpressionAttributeValues: values,
      }),
    );

/**
 * Each case is a run of requests of one shape (or of shapes that share an expression), in order:
 * what the memo keeps from one must not change the answer to the next.
 */
const cases: [string, Send[]][] = [
  [
    'a conditional update with names, arithmetic and a condition that holds, then fails',
    [
      update(
        'SET #s = :s, n = n + :one ADD tags :t REMOVE nested',
        { ':s': S('DOWN'), ':one': N('1'), ':t': { SS: ['c'] }, ':x': S('zzz') },
        { '#s': 'status' },
        'attribute_exists(pk) AND #s <> :x',
      ),
      update(
        'SET #s = :s, n = n + :one ADD tags :t REMOVE nested',
        { ':s': S('LATE'), ':one': N('-2'), ':t': { SS: ['d'] }, ':x': S('UP') },
        { '#s': 'status' },
        'attribute_exists(pk) AND #s <> :x',
      ),
    ],
  ],
  [
    'arithmetic and ADD with a value of the wrong type, after the same expression with the right one',
    [
      update('SET n = n + :one', { ':one': N('1') }),
      update('SET n = n + :one', { ':one': S('1') }),
      update('ADD n :one', { ':one': N('1') }),
      update('ADD n :one', { ':one': S('1') }),
      update('ADD tags :t', { ':t': { SS: ['z'] } }),
      update('ADD tags :t', { ':t': { NS: ['1'] } }),
      update('DELETE tags :t', { ':t': { SS: ['a'] } }),
      update('DELETE tags :t', { ':t': { L: [S('a')] } }),
      update('SET #l = list_append(#l, :l)', { ':l': { L: [S('y')] } }, { '#l': 'list' }),
      update('SET #l = list_append(#l, :l)', { ':l': S('y') }, { '#l': 'list' }),
    ],
  ],
  [
    'values and names left unused, or missing, next to the same expression fully used',
    [
      update('SET #s = :s', { ':s': S('DOWN') }, { '#s': 'status' }),
      update('SET #s = :s', { ':s': S('DOWN'), ':extra': S('x') }, { '#s': 'status' }),
      update('SET #s = :s', { ':s': S('DOWN') }, { '#s': 'status', '#extra': 'x' }),
      update('SET #s = :s', { ':other': S('DOWN') }, { '#s': 'status' }),
      update('SET #s = :s', { ':s': S('DOWN') }, { '#t': 'status' }),
    ],
  ],
  [
    'a value used by the update and the condition of one request, then by the condition alone',
    [
      update('SET #a = :v', { ':v': S('x'), ':w': S('y') }, { '#a': 'status' }, '#a <> :w'),
      put('#a <> :w', { ':v': S('x'), ':w': S('y') }, { '#a': 'status' }),
      put('#a <> :w', { ':w': S('y') }, { '#a': 'status' }),
    ],
  ],
  [
    'the same expression with the names pointing elsewhere, and a reserved word',
    [
      update('SET #s = :s', { ':s': S('DOWN') }, { '#s': 'status' }),
      update('SET #s = :s', { ':s': S('DOWN') }, { '#s': 'other' }),
      update('SET status = :s', { ':s': S('DOWN') }),
      update('SET #s = :s REMOVE #s', { ':s': S('DOWN') }, { '#s': 'status' }),
    ],
  ],
  [
    'a put whose condition holds, then fails',
    [put('attribute_exists(pk) AND n > :min', { ':min': N('1') }), put('attribute_exists(pk) AND n > :min', { ':min': N('100') }), put('attribute_not_exists(pk)')],
  ],
  [
    'a delete with a condition, and a size and contains condition',
    [
      (Key) =>
        client.send(
          new DeleteItemCommand({
            TableName: TABLE,
            Key,
            ConditionExpression: 'size(tags) > :z AND contains(tags, :a)',
            ExpressionAttributeValues: { ':z': N('1'), ':a': S('a') },
          }),
        ),
      (Key) =>
        client.send(
          new DeleteItemCommand({
            TableName: TABLE,
            Key,
            ConditionExpression: 'size(tags) > :z AND contains(tags, :a)',
            ExpressionAttributeValues: { ':z': N('9'), ':a': S('a') },
          }),
        ),
      (Key) =>
        client.send(
          new DeleteItemCommand({
            TableName: TABLE,
            Key,
            ConditionExpression: 'size(tags) > :z AND contains(tags, :a)',
            ExpressionAttributeValues: { ':z': S('9'), ':a': S('a') },
          }),
        ),
    ],
  ],
  [
    'BETWEEN with bounds in order, reversed, of two types, and in order again',
    [
      query('pk = :p AND sk BETWEEN :a AND :b', { ':p': S('memo'), ':a': S('a'), ':b': S('z') }),
      query('pk = :p AND sk BETWEEN :a AND :b', { ':p': S('memo'), ':a': S('z'), ':b': S('a') }),
      query('pk = :p AND sk BETWEEN :a AND :b', { ':p': S('memo'), ':a': S('a'), ':b': N('1') }),
      update('SET #s = :s', { ':s': S('x'), ':a': N('1'), ':b': N('9') }, { '#s': 'status' }, 'n BETWEEN :a AND :b'),
      update('SET #s = :s', { ':s': S('x'), ':a': N('10'), ':b': N('9') }, { '#s': 'status' }, 'n BETWEEN :a AND :b'),
      query('pk = :p AND sk BETWEEN :a AND :b', { ':p': S('memo'), ':a': S('k'), ':b': S('o') }),
    ],
  ],
  [
    'attribute_type with a type name and with a name that is not one',
    [put('attribute_type(n, :t)', { ':t': S('N') }), put('attribute_type(n, :t)', { ':t': S('Q') }), put('attribute_type(n, :t)', { ':t': S('S') })],
  ],
  [
    'key conditions written value first (rewritten in place by the store), with a filter and a projection',
    [
      query(
        ':p = pk AND :q < sk',
        { ':p': S('memo'), ':q': S('a'), ':s': S('UP') },
        { FilterExpression: '#s = :s', ProjectionExpression: 'sk, #s, nested.#i', names: { '#s': 'status', '#i': 'inner' } },
      ),
      query(
        ':p = pk AND :q < sk',
        { ':p': S('memo'), ':q': S('n'), ':s': S('DOWN') },
        { FilterExpression: '#s = :s', ProjectionExpression: 'sk, #s, nested.#i', names: { '#s': 'status', '#i': 'inner' } },
      ),
      query('gsi1pk = :p AND begins_with(gsi1sk, :q)', { ':p': S('g'), ':q': S('m') }, { IndexName: 'gsi1', ProjectionExpression: 'sk' }),
      query(':p = pk AND :q < sk', { ':p': S('memo'), ':q': S('a') }, { ProjectionExpression: 'sk, #s', names: { '#s': 'status' } }),
      query('pk = :p AND sk > :q OR sk < :q', { ':p': S('memo'), ':q': S('a') }),
    ],
  ],
  [
    'expressions that do not parse, or use a function the store does not know',
    [update('SET = n +', { ':n': N('1') }), put('nope(pk)'), put('(attribute_exists(pk))'), update('SET n = :n, n = :n', { ':n': N('1') })],
  ],
];

/** What a call answered (its store request id left out) and the item it left. */
async function outcome(send: Send, sk: string): Promise<unknown> {
  const Key = keyOf(sk);
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...Key, ...seed } }));
  const answer = await send(Key).then(
    (result) => ({ ...(result as object), $metadata: undefined }),
    (err: Error) => ({ error: err.name, message: err.message }),
  );
  const left = await client.send(new GetItemCommand({ TableName: TABLE, Key, ConsistentRead: true }));
  return { answer, left: left.Item ?? null };
}

/** Each pass over a case starts from the same items: the queries read the whole partition. */
async function emptyPartition(): Promise<void> {
  const { Items = [] } = await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': S('memo') } }));
  for (const item of Items) await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: item.pk as AttributeValue, sk: item.sk as AttributeValue } }));
}

describe("dynalite's memo of parsed expressions", () => {
  it.each(cases)('answers as a parse does: %s', async (_name, sends) => {
    validations.setExpressionMemo(false);
    await emptyPartition();
    const parsed: unknown[] = [];
    for (const [i, send] of sends.entries()) parsed.push(await outcome(send, `k${i}`));
    validations.setExpressionMemo(true);
    await emptyPartition();
    for (const [i, send] of sends.entries()) {
      expect(await outcome(send, `k${i}`), `request ${i}, first`).toStrictEqual(parsed[i]);
      expect(await outcome(send, `k${i}`), `request ${i}, again`).toStrictEqual(parsed[i]);
    }
    // Not every answer a failure: each case has requests that succeed through the memo.
    expect(parsed.some((result) => !('error' in (result as { answer: object }).answer))).toBe(true);
  });

  it('parses a repeated shape once, whatever its values, and a value-dependent one every time', async () => {
    let calls = 0;
    const originals = parsers.map((parser) => parser.parse);
    parsers.forEach((parser, i) => {
      parser.parse = (...args: unknown[]) => {
        calls++;
        return originals[i]?.(...args);
      };
    });
    try {
      validations.setExpressionMemo(true);
      const count = async (send: (i: number) => Send) => {
        calls = 0;
        for (let i = 0; i < 20; i++) await outcome(send(i), 'count');
        return calls;
      };
      const conditional = (i: number) =>
        update('SET #s = :s, n = n + :one', { ':s': S(`s${i}`), ':one': N(String(i)), ':x': S('zzz') }, { '#s': 'status' }, 'attribute_exists(pk) AND #s <> :x');
      // Two expressions, parsed at the first request only.
      expect(await count(conditional)).toBe(2);
      expect(await count((i) => query('pk = :p AND sk > :q', { ':p': S('memo'), ':q': S(`a${i}`) }))).toBe(1);
      // attribute_type reads its value's text: never kept.
      expect(await count((i) => put('attribute_type(n, :t)', { ':t': S(i % 2 ? 'N' : 'S') }))).toBe(20);
    } finally {
      parsers.forEach((parser, i) => {
        parser.parse = originals[i] as (...args: unknown[]) => unknown;
      });
    }
  });
});
