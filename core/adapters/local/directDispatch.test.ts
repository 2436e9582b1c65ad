import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  InternalServerError,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand as DocumentQueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoClient, ensureTable, hotPathClient } from '../../store/client.js';
import { baseClient } from '../../store/plainClient.js';
import { registerLocalTransport } from '../../store/localTransports.js';
import type { Dispatch } from './directDispatch.js';
import { inProcessTransport } from './inProcessTransport.js';

/**
 * A client made for an embedded store in this process hands data-plane requests to dynalite's
 * dispatch as objects (directDispatch.ts). The same requests over the loopback socket, through
 * the SDK's JSON and dynalite's HTTP handler, are the reference: outputs, binary values, pages and
 * errors must come back the same, and only the control plane may still reach the HTTP handler.
 */

type DynaliteServer = Server & { dispatch: Dispatch };
const dynalite = createRequire(import.meta.url)('dynalite') as (options: object) => DynaliteServer;

const TABLE = 'direct';
const BINARY = 'binary';
const calls = { dispatch: 0, http: 0 };
let server: DynaliteServer;
let unregister: () => void;
let doc: DynamoDBDocumentClient;
let direct: DynamoDBClient;
let overHttp: DynamoDBClient;
let docOverHttp: DynamoDBDocumentClient;

/** A server whose HTTP handler and dispatch count their calls. */
async function countedStore(): Promise<{ server: DynaliteServer; endpoint: string }> {
  const store = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const listener = store.listeners('request')[0] as (...args: unknown[]) => void;
  store.removeAllListeners('request');
  store.on('request', (...args: unknown[]) => {
    calls.http++;
    listener(...args);
  });
  const dispatch = store.dispatch;
  store.dispatch = (...args) => {
    calls.dispatch++;
    dispatch(...args);
  };
  await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', () => resolve()));
  return { server: store, endpoint: `http://127.0.0.1:${(store.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  const started = await countedStore();
  server = started.server;
  unregister = registerLocalTransport(started.endpoint, inProcessTransport(server));
  doc = createDynamoClient({ endpoint: started.endpoint });
  direct = hotPathClient(doc);
  // A client that knows nothing of the registry: the loopback socket, as another process would.
  overHttp = new DynamoDBClient({ endpoint: started.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  docOverHttp = DynamoDBDocumentClient.from(overHttp, { marshallOptions: { removeUndefinedValues: true } });
  await ensureTable(doc, TABLE);
  await direct.send(
    new CreateTableCommand({
      TableName: BINARY,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'B' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
});

afterAll(async () => {
  unregister();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** What a call's result or failure says, the store's random request id left out. */
function outcome(result: unknown): unknown {
  const { $metadata, ...rest } = result as { $metadata: { requestId?: string } };
  const { requestId, ...metadata } = $metadata;
  if (!(result instanceof Error)) return { ...rest, $metadata: metadata };
  return { type: result.constructor, name: result.name, message: result.message, fields: { ...rest }, $metadata: metadata };
}

/**
 * Runs `call` through the direct client, then through the socket (each after `seed`), and returns
 * both outcomes; checks that the first reached only the dispatch and the second only HTTP.
 */
async function both(call: (client: DynamoDBClient) => Promise<unknown>, seed?: () => Promise<unknown>): Promise<[unknown, unknown]> {
  const run = async (client: DynamoDBClient) => {
    await seed?.();
    const before = { ...calls };
    const result = await call(client).catch((err: unknown) => err);
    return { result: outcome(result), dispatched: calls.dispatch - before.dispatch, overHttp: calls.http - before.http };
  };
  const viaDirect = await run(direct);
  const viaHttp = await run(overHttp);
  expect([viaDirect.dispatched, viaDirect.overHttp]).toEqual([1, 0]);
  expect([viaHttp.dispatched, viaHttp.overHttp]).toEqual([0, 1]);
  return [viaDirect.result, viaHttp.result];
}

const key = (sk: string) => ({ pk: { S: 'item' }, sk: { S: sk } });
const seedItem =
  (sk: string, extra: Record<string, AttributeValue> = {}) =>
  () =>
    direct.send(
      new PutItemCommand({ TableName: TABLE, Item: { ...key(sk), n: { N: '1' }, tags: { SS: ['a', 'b'] }, nested: { M: { l: { L: [{ S: 'x' }, { NULL: true }] } } }, ...extra } }),
    );

describe('the direct path of an in-process store', () => {
  it('answers each read and write as the socket does, through the dispatch and never the HTTP handler', async () => {
    const [put, putHttp] = await both(
      (client) => client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('put'), n: { N: '2' } }, ReturnValues: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL' })),
      seedItem('put'),
    );
    expect(put).toStrictEqual(putHttp);
    expect(put).toMatchObject({ Attributes: { n: { N: '1' } }, ConsumedCapacity: { TableName: TABLE }, $metadata: { httpStatusCode: 200, attempts: 1 } });

    const [get, getHttp] = await both((client) => client.send(new GetItemCommand({ TableName: TABLE, Key: key('put'), ConsistentRead: true, ReturnConsumedCapacity: 'INDEXES' })));
    expect(get).toStrictEqual(getHttp);
    const [missing, missingHttp] = await both((client) => client.send(new GetItemCommand({ TableName: TABLE, Key: key('absent') })));
    expect(missing).toStrictEqual(missingHttp);
    expect(Object.keys(missing as object)).toEqual(['$metadata']);

    const [update, updateHttp] = await both(
      (client) =>
        client.send(
          new UpdateItemCommand({
            TableName: TABLE,
            Key: key('update'),
            UpdateExpression: 'SET n = n + :one, #s = :s, gsi1pk = :g, gsi1sk = :s, flag = :f, cleared = :nothing, ratio = :r REMOVE tags',
            ConditionExpression: 'attribute_exists(pk) AND n < :ten',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':one': { N: '1' },
              ':ten': { N: '10' },
              ':s': { S: 'DOWN' },
              ':g': { S: 'g' },
              ':f': { BOOL: false },
              ':nothing': { NULL: true },
              ':r': { N: '-000.500' },
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      seedItem('update'),
    );
    expect(update).toStrictEqual(updateHttp);
    expect(update).toMatchObject({ Attributes: { n: { N: '2' }, status: { S: 'DOWN' }, flag: { BOOL: false }, cleared: { NULL: true }, ratio: { N: '-0.5' } } });
    // Each attribute value a plain object, as JSON gives them (dynalite's new item has none).
    const attributes = (update as { Attributes: Record<string, object> }).Attributes;
    for (const name in attributes) expect(Object.getPrototypeOf(attributes[name])).toBe(Object.prototype);

    // Names that objects inherit are attributes like any other, in the new item and in the answer
    // (not `constructor`: toStrictEqual compares objects' constructors).
    const [inherited, inheritedHttp] = await both(
      (client) =>
        client.send(
          new UpdateItemCommand({
            TableName: TABLE,
            Key: key('inherited'),
            UpdateExpression: 'SET #c = if_not_exists(#c, :v), #t = :v, nested.#h = :v',
            ExpressionAttributeNames: { '#c': 'isPrototypeOf', '#t': 'toString', '#h': 'hasOwnProperty' },
            ExpressionAttributeValues: { ':v': { S: 'set' } },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      seedItem('inherited'),
    );
    expect(inherited).toStrictEqual(inheritedHttp);
    expect(inherited).toMatchObject({ Attributes: { isPrototypeOf: { S: 'set' }, toString: { S: 'set' }, nested: { M: { hasOwnProperty: { S: 'set' } } } } });

    const [removed, removedHttp] = await both(
      (client) => client.send(new DeleteItemCommand({ TableName: TABLE, Key: key('delete'), ReturnValues: 'ALL_OLD' })),
      seedItem('delete'),
    );
    expect(removed).toStrictEqual(removedHttp);
    expect(removed).toMatchObject({ Attributes: key('delete') });
  });

  it('writes and reads batches, and pages a query and an index query, as the socket does', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ ...key(`q${i}`), gsi1pk: { S: 'batch' }, gsi1sk: { S: String(6 - i) }, n: { N: String(i) } }));
    const [written, writtenHttp] = await both((client) =>
      client.send(
        new BatchWriteItemCommand({
          RequestItems: { [TABLE]: [...items.map((Item) => ({ PutRequest: { Item } })), { DeleteRequest: { Key: key('put') } }] },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      ),
    );
    expect(written).toStrictEqual(writtenHttp);
    expect(written).toMatchObject({ UnprocessedItems: {} });

    const keys = items.map(({ pk, sk }) => ({ pk, sk }));
    const [read, readHttp] = await both((client) =>
      client.send(new BatchGetItemCommand({ RequestItems: { [TABLE]: { Keys: keys, ProjectionExpression: 'sk, n' } }, ReturnConsumedCapacity: 'TOTAL' })),
    );
    // dynalite answers a batch in a random order, whichever path it came by.
    const sorted = (result: unknown) => {
      const { Responses, ...rest } = result as { Responses: Record<string, { sk: { S: string } }[]> };
      return { ...rest, Responses: (Responses[TABLE] ?? []).sort((a, b) => a.sk.S.localeCompare(b.sk.S)) };
    };
    expect(sorted(read)).toStrictEqual(sorted(readHttp));
    expect(sorted(read)).toMatchObject({ UnprocessedKeys: {}, Responses: items.map(({ sk, n }) => ({ sk, n })) });

    type Pages = { IndexName?: string; KeyConditionExpression: string; ExpressionAttributeValues: Record<string, AttributeValue> };
    const pages = async (client: DynamoDBClient, input: Pages) => {
      const seen: unknown[] = [];
      let start: Record<string, AttributeValue> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({ TableName: TABLE, ...input, Limit: 3, ScanIndexForward: false, ExclusiveStartKey: start, ReturnConsumedCapacity: 'INDEXES' }),
        );
        seen.push(outcome(page));
        start = page.LastEvaluatedKey;
      } while (start);
      return seen;
    };
    for (const input of [
      { KeyConditionExpression: 'pk = :p AND begins_with(sk, :q)', ExpressionAttributeValues: { ':p': { S: 'item' }, ':q': { S: 'q' } } },
      { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': { S: 'batch' } } },
    ] as Pages[]) {
      const viaDirect = await pages(direct, input);
      expect(viaDirect).toStrictEqual(await pages(overHttp, input));
      expect(viaDirect).toHaveLength(3);
    }
  });

  it('carries binary values as bytes both ways, in items, keys, sets and pages', async () => {
    const bytes = (...values: number[]) => new Uint8Array(values);
    const item = (sk: Uint8Array) => ({
      pk: { S: 'bin' },
      sk: { B: sk },
      blob: { B: bytes(0, 255, 128, 7) },
      set: { BS: [bytes(1), bytes(2, 3)] },
      deep: { M: { list: { L: [{ B: bytes(9, 9) }, { M: { inner: { B: bytes(42) } } }] } } },
    });
    await direct.send(new PutItemCommand({ TableName: BINARY, Item: item(bytes(1)) }));
    await overHttp.send(new PutItemCommand({ TableName: BINARY, Item: item(bytes(2)) }));
    await direct.send(new PutItemCommand({ TableName: BINARY, Item: item(bytes(3)) }));
    for (const sk of [bytes(1), bytes(2), bytes(3)]) {
      const [got, gotHttp] = await both((client) => client.send(new GetItemCommand({ TableName: BINARY, Key: { pk: { S: 'bin' }, sk: { B: sk } } })));
      expect(got).toStrictEqual(gotHttp);
      expect(got).toMatchObject({ Item: item(sk) });
      expect((got as { Item: { blob: { B: unknown } } }).Item.blob.B).toBeInstanceOf(Uint8Array);
    }
    const [first, firstHttp] = await both((client) =>
      client.send(new QueryCommand({ TableName: BINARY, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'bin' } }, Limit: 2 })),
    );
    expect(first).toStrictEqual(firstHttp);
    const lastKey = (first as { LastEvaluatedKey: Record<string, AttributeValue> }).LastEvaluatedKey;
    expect(lastKey).toStrictEqual({ pk: { S: 'bin' }, sk: { B: bytes(2) } });
    const [rest, restHttp] = await both((client) =>
      client.send(new QueryCommand({ TableName: BINARY, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'bin' } }, ExclusiveStartKey: lastKey })),
    );
    expect(rest).toStrictEqual(restHttp);
    expect(rest).toMatchObject({ Items: [item(bytes(3))], Count: 1 });

    // The document client (ElectroDB's) marshals around the same path.
    const plain = { pk: 'doc', sk: bytes(4), blob: bytes(5, 6), count: 3, when: undefined, list: [bytes(7), 'x', 1.5, null] };
    await doc.send(new PutCommand({ TableName: BINARY, Item: plain }));
    const viaDirect = await doc.send(new GetCommand({ TableName: BINARY, Key: { pk: 'doc', sk: bytes(4) } }));
    const viaHttp = await docOverHttp.send(new GetCommand({ TableName: BINARY, Key: { pk: 'doc', sk: bytes(4) } }));
    expect(outcome(viaDirect)).toStrictEqual(outcome(viaHttp));
    expect(viaDirect.Item).toStrictEqual({ pk: 'doc', sk: bytes(4), blob: bytes(5, 6), count: 3, list: [bytes(7), 'x', 1.5, null] });
    const docPages = async (client: DynamoDBDocumentClient) =>
      outcome(await client.send(new DocumentQueryCommand({ TableName: BINARY, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'bin' }, Limit: 1 })));
    expect(await docPages(doc)).toStrictEqual(await docPages(docOverHttp));
  });

  it("leaves the caller's input as it was", async () => {
    const blob = new Uint8Array([1, 2, 3]);
    const input = {
      TableName: TABLE,
      Item: { ...key('input'), blob: { B: blob }, flag: { BOOL: true }, none: { NULL: true }, n: { N: '007.50' }, gone: undefined as unknown as AttributeValue },
      ConditionExpression: undefined,
      ReturnValues: undefined,
    };
    const before = structuredClone(input);
    await direct.send(new PutItemCommand(input));
    expect(input).toStrictEqual(before);
    expect(input.Item.blob.B).toBe(blob);
    const query = { TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'item' } }, ExclusiveStartKey: undefined, Limit: 1 };
    const sameQuery = structuredClone(query);
    await direct.send(new QueryCommand(query));
    expect(query).toStrictEqual(sameQuery);
  });

  it('keeps the control plane on the transport: tables are described by the HTTP handler', async () => {
    const before = { ...calls };
    expect((await direct.send(new DescribeTableCommand({ TableName: TABLE }))).Table?.TableStatus).toBe('ACTIVE');
    expect([calls.dispatch - before.dispatch, calls.http - before.http]).toEqual([0, 1]);
  });

  it('lets the middleware of both clients see, count and fail each request as before', async () => {
    const seen: string[] = [];
    const observedDoc = createDynamoClient({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const observed = hotPathClient(observedDoc);
    for (const [client, name] of [
      [observed, 'observe-direct'],
      [observedDoc, 'observe-document'],
    ] as const) {
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (JSON.stringify(args.input).includes('refused')) throw new Error('injected: store unavailable');
          const result = await next(args);
          seen.push(`${name} ${context.commandName} ${JSON.stringify(result.output).includes('"observed"')}`);
          return result;
        },
        { step: 'initialize', name },
      );
    }
    const before = calls.dispatch;
    await observed.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('observed'), note: { S: 'observed' } } }));
    await observedDoc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'item', sk: 'observed' } }));
    await expect(observedDoc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'item', sk: 'refused' } }))).rejects.toThrow('injected: store unavailable');
    expect(calls.dispatch - before).toBe(2);
    expect(seen).toEqual(['observe-direct PutItemCommand false', 'observe-document GetItemCommand true']);
  });
});

describe('failures on the direct path', () => {
  it('are the modeled exceptions the SDK raises over HTTP, with the same fields and status', async () => {
    const failures: [string, (client: DynamoDBClient) => Promise<unknown>, (() => Promise<unknown>)?][] = [
      [
        'a failed condition, its item asked for',
        (client) =>
          client.send(new PutItemCommand({ TableName: TABLE, Item: key('cond'), ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })),
        seedItem('cond'),
      ],
      ['an item over 400 KB', (client) => client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('big'), text: { S: 'x'.repeat(410 * 1024) } } }))],
      ['an expression that does not parse', (client) => client.send(new UpdateItemCommand({ TableName: TABLE, Key: key('cond'), UpdateExpression: 'SET = n +' }))],
      [
        'a value the expression does not name',
        (client) => client.send(new UpdateItemCommand({ TableName: TABLE, Key: key('cond'), UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':m': { N: '1' } } })),
      ],
      ['a number that is not one', (client) => client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('nan'), n: { N: 'twelve' } } }))],
      ['a key missing its sort key', (client) => client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'item' } } }))],
      [
        'a table that does not exist',
        (client) => client.send(new QueryCommand({ TableName: 'absent', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'x' } } })),
      ],
      [
        'a batch over 25 writes',
        (client) => client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: Array.from({ length: 26 }, (_, i) => ({ PutRequest: { Item: key(`b${i}`) } })) } })),
      ],
    ];
    const names: string[] = [];
    for (const [what, call, seed] of failures) {
      const [viaDirect, viaHttp] = await both(call, seed);
      expect(viaDirect, what).toStrictEqual(viaHttp);
      names.push((viaDirect as { name: string }).name);
    }
    expect(names).toEqual([
      'ConditionalCheckFailedException',
      'ValidationException',
      'ValidationException',
      'ValidationException',
      'ValidationException',
      'ValidationException',
      'ResourceNotFoundException',
      'ValidationException',
    ]);
    const failed = await direct.send(new PutItemCommand({ TableName: TABLE, Item: key('cond'), ConditionExpression: 'attribute_not_exists(pk)' })).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(ConditionalCheckFailedException);
    expect(failed).toMatchObject({ $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
  });

  it('answers the keys a batch read could not fit as unprocessed, as the socket does', async () => {
    // dynalite stops a batch's answer near 1.4 MB: three of these five items fit, two are left.
    const keys = Array.from({ length: 5 }, (_, i) => ({ pk: { S: 'large' }, sk: { B: new Uint8Array([i]) } }));
    for (const k of keys) await direct.send(new PutItemCommand({ TableName: BINARY, Item: { ...k, text: { S: 'y'.repeat(380 * 1024) } } }));
    const [viaDirect, viaHttp] = (await both((client) =>
      client.send(new BatchGetItemCommand({ RequestItems: { [BINARY]: { Keys: keys, ProjectionExpression: 'pk, sk, #t', ExpressionAttributeNames: { '#t': 'text' } } } })),
    )) as {
      Responses: Record<string, { sk: { B: Uint8Array } }[]>;
      UnprocessedKeys: Record<string, { Keys: { sk: { B: Uint8Array } }[]; ProjectionExpression?: string }>;
    }[];
    // Which keys are left depends on dynalite's shuffle of the answer; how many, and their shape, do not.
    for (const answer of [viaDirect, viaHttp]) {
      const left = answer?.UnprocessedKeys[BINARY]?.Keys ?? [];
      expect([answer?.Responses[BINARY]?.length, left.length]).toEqual([3, 2]);
      const all = [...(answer?.Responses[BINARY] ?? []), ...left].map((k) => k.sk.B);
      expect(all.every((b) => b instanceof Uint8Array)).toBe(true);
      expect(all.map((b) => b[0]).sort()).toEqual([0, 1, 2, 3, 4]);
    }
    expect(Object.keys(viaDirect?.UnprocessedKeys[BINARY] ?? {})).toEqual(Object.keys(viaHttp?.UnprocessedKeys[BINARY] ?? {}));
  });

  it("raise a failing database as the SDK's InternalServerError, retried as over HTTP", async () => {
    const broken = await countedStore();
    const transport = inProcessTransport(broken.server);
    const client = (direct: boolean) => {
      const made = new DynamoDBClient({
        endpoint: broken.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        requestHandler: transport,
        maxAttempts: 2,
      });
      if (direct && transport.directProtocol) made.config.protocol = transport.directProtocol(made.config.protocol);
      return made;
    };
    await client(false).send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    // A closed database is the failure that can be forced; the transport itself is left open.
    await new Promise<void>((resolve) => broken.server.close(() => resolve()));
    const before = { ...calls };
    const put = (c: DynamoDBClient) => c.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'x' } } })).catch((err: unknown) => err);
    const viaDirect = await put(client(true));
    expect([calls.dispatch - before.dispatch, calls.http - before.http]).toEqual([2, 0]);
    const viaListener = await put(client(false));
    expect(viaDirect).toBeInstanceOf(InternalServerError);
    expect(outcome(viaDirect)).toMatchObject({ name: 'InternalServerError', fields: { $fault: 'server' }, $metadata: { httpStatusCode: 500, attempts: 2 } });
    const { totalRetryDelay, ...directMetadata } = (outcome(viaDirect) as { $metadata: Record<string, unknown> }).$metadata;
    const { totalRetryDelay: delayed, ...listenerMetadata } = (outcome(viaListener) as { $metadata: Record<string, unknown> }).$metadata;
    expect({ ...(outcome(viaDirect) as object), $metadata: directMetadata }).toStrictEqual({ ...(outcome(viaListener) as object), $metadata: listenerMetadata });
  });

  it("sends a first attempt straight to the store, and leaves a failed one to the SDK's retry strategy", async () => {
    const client = baseClient({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const strategy = await (
      client.config as unknown as { retryStrategy: () => Promise<{ acquireInitialRetryToken(scope: string): Promise<unknown>; getCapacity(): number }> }
    ).retryStrategy();
    // Failures a store can answer with, thrown below the retry step as the deserializer throws them.
    let failing = 0;
    let attempts = 0;
    client.middlewareStack.add(
      (next) => (args) => {
        attempts++;
        if (failing > 0) {
          failing--;
          return Promise.reject(new InternalServerError({ message: 'the database failed', $metadata: { httpStatusCode: 500 } }));
        }
        return next(args);
      },
      { step: 'deserialize', name: 'failFirst' },
    );
    const get = () => client.send(new GetItemCommand({ TableName: TABLE, Key: key('retried') }));
    // The client's first request learns the strategy: it takes the SDK's way.
    await get();
    const tokens = vi.spyOn(strategy, 'acquireInitialRetryToken');

    const straight = await get();
    expect(straight.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 1, totalRetryDelay: 0 });
    expect(tokens).not.toHaveBeenCalled();

    failing = 1;
    attempts = 0;
    const retried = await get();
    expect([attempts, retried.$metadata.attempts, tokens.mock.calls.length]).toEqual([2, 2, 1]);

    failing = 5;
    attempts = 0;
    const exhausted = await get().catch((err: unknown) => err);
    expect(exhausted).toBeInstanceOf(InternalServerError);
    expect([attempts, (exhausted as InternalServerError).$metadata.attempts]).toEqual([3, 3]);
    failing = 0;
    // Those retries spent capacity for good; each first attempt's success gives one back, as the SDK's own does.
    const spent = strategy.getCapacity();
    expect(spent).toBeLessThan(500);
    await get();
    expect(strategy.getCapacity()).toBe(spent + 1);

    const refused = await client.send(new PutItemCommand({ TableName: TABLE, Item: key('retried'), ConditionExpression: 'attribute_exists(pk)' })).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ConditionalCheckFailedException);
    expect((refused as ConditionalCheckFailedException).$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
  });
});
