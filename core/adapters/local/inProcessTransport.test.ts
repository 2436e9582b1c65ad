import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClient, hotPathClient } from '../../store/client.js';
import { localTransport } from '../../store/localTransports.js';
import { startEmbeddedStore, type EmbeddedStore } from './embeddedStore.js';
import { inProcessTransport } from './inProcessTransport.js';

/**
 * A store started in this process is reached without a socket by the clients made for its
 * endpoint, and answers exactly as it does over HTTP: items, pages, conditional failures and
 * validation errors come back the same through both paths.
 */

const TABLE = 'transport';
let dir: string;
let store: EmbeddedStore;
let direct: DynamoDBClient;
let overHttp: DynamoDBClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-transport-'));
  store = await startEmbeddedStore(dir);
  direct = hotPathClient(createDynamoClient({ endpoint: store.endpoint }));
  // A client that knows nothing of the registry: the loopback socket, as another process would.
  overHttp = new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await direct.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  for (let tries = 0; (await direct.send(new DescribeTableCommand({ TableName: TABLE }))).Table?.TableStatus !== 'ACTIVE'; tries++) {
    if (tries > 100) throw new Error('table never became active');
    await new Promise((resolve) => setImmediate(resolve));
  }
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the in-process transport', () => {
  it('is what a client made for an in-process store uses, and only while the store runs', () => {
    const transport = localTransport(store.endpoint);
    expect(transport).toBeDefined();
    expect(direct.config.requestHandler).toBe(transport);
    expect(overHttp.config.requestHandler).not.toBe(transport);
    expect(localTransport('http://127.0.0.1:1')).toBeUndefined();
  });

  it('writes and reads what the socket path reads, and the other way round', async () => {
    await direct.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'a' }, sk: { S: '1' }, text: { S: 'grüße <b>&' } } }));
    await overHttp.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'a' }, sk: { S: '2' }, n: { N: '42' } } }));
    const viaHttp = await overHttp.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'a' }, sk: { S: '1' } } }));
    const viaDirect = await direct.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'a' }, sk: { S: '2' } } }));
    expect(viaHttp.Item).toEqual({ pk: { S: 'a' }, sk: { S: '1' }, text: { S: 'grüße <b>&' } });
    expect(viaDirect.Item).toEqual({ pk: { S: 'a' }, sk: { S: '2' }, n: { N: '42' } });
    expect(viaDirect.$metadata.httpStatusCode).toBe(200);
  });

  it('pages a query the same way', async () => {
    await direct.send(
      new BatchWriteItemCommand({ RequestItems: { [TABLE]: Array.from({ length: 5 }, (_, i) => ({ PutRequest: { Item: { pk: { S: 'q' }, sk: { S: String(i) } } } })) } }),
    );
    const page = async (client: DynamoDBClient) => {
      const first = await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'q' } }, Limit: 2 }));
      const second = await client.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': { S: 'q' } },
          Limit: 2,
          ExclusiveStartKey: first.LastEvaluatedKey,
        }),
      );
      return [first.Items, first.LastEvaluatedKey, second.Items];
    };
    expect(await page(direct)).toEqual(await page(overHttp));
    expect((await page(direct))[2]).toEqual([
      { pk: { S: 'q' }, sk: { S: '2' } },
      { pk: { S: 'q' }, sk: { S: '3' } },
    ]);
  });

  it('raises a failed condition as the same typed error', async () => {
    const put = (client: DynamoDBClient) =>
      client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'a' }, sk: { S: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' }));
    await expect(put(direct)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await expect(put(overHttp)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });

  it('raises a validation error with its status and message', async () => {
    type Failure = { name: string; message: string; $metadata: { httpStatusCode?: number } };
    const bad = (client: DynamoDBClient) =>
      client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'a' } } })).then(
        () => ({ name: 'none', message: 'answered', $metadata: {} }) as Failure,
        (err: unknown) => err as Failure,
      );
    const [viaDirect, viaHttp] = await Promise.all([bad(direct), bad(overHttp)]);
    expect(viaDirect).toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
    expect(viaDirect).toMatchObject({ name: viaHttp.name, message: viaHttp.message });
  });
});

describe('a closed in-process store', () => {
  it('refuses a late request with an error instead of ending the process', async () => {
    const lateDir = mkdtempSync(join(tmpdir(), 'vigil-transport-late-'));
    const late = await startEmbeddedStore(lateDir);
    const client = hotPathClient(createDynamoClient({ endpoint: late.endpoint }));
    await late.close();
    await expect(client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'a' }, sk: { S: '1' } } }))).rejects.toThrow('the embedded store is closed');
    expect(localTransport(late.endpoint)).toBeUndefined();
    rmSync(lateDir, { recursive: true, force: true });
  });

  it('answers 500 when its database fails under a request, instead of throwing out of the callback', async () => {
    // dynalite threw such errors out of its callback (patches/dynalite+4.0.0.patch), which in
    // this process would end the server. A closed database is the failure that can be forced.
    const dynalite = createRequire(import.meta.url)('dynalite') as (options: object) => Server;
    const server = dynalite({ createTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const client = new DynamoDBClient({
      endpoint: 'http://127.0.0.1:1',
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestHandler: inProcessTransport(server),
      maxAttempts: 1,
    });
    await client.send(
      new CreateTableCommand({
        TableName: TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'x' } } }))).rejects.toMatchObject({
      name: 'InternalServerError',
      $metadata: { httpStatusCode: 500 },
    });
  });
});
