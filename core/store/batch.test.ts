import { BatchGetItemCommand, BatchWriteItemCommand, DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { ulid } from 'ulid';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Pause } from '../retry.js';
import { getAll, getItems, UnprocessedItemsError, writeItems } from './batch.js';
import { createDynamoClient, ensureTable } from './client.js';
import { createStore, type Store } from './service.js';

/** Records the waits between resends instead of sleeping through them. */
function recordedPause(): { pause: Pause; waits: number[] } {
  const waits: number[] = [];
  return { waits, pause: async (ms) => void waits.push(ms) };
}

const rawKey = (sk: string) => ({ pk: 'batch-test', sk });

describe('batch helpers on the embedded store', () => {
  let store: Store;
  const requests: string[] = [];
  beforeAll(async () => {
    const client = createDynamoClient({ endpoint: inject('dynamoEndpoint') });
    const table = `t_${ulid()}`;
    await ensureTable(client, table);
    store = createStore(client, table);
    store.hot.middlewareStack.add(
      (next, context) => async (args) => {
        requests.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countBatchRequests' },
    );
  });

  it('writes in requests of 25 and reads in requests of 100, every item, in the order asked', async () => {
    const run = ulid();
    const sks = Array.from({ length: 130 }, (_, i) => `${run}-${String(i).padStart(3, '0')}`);
    requests.length = 0;
    await writeItems(
      store,
      sks.map((sk) => ({ PutRequest: { Item: marshall({ ...rawKey(sk), value: sk }) } })),
      'test rows',
    );
    expect(requests).toEqual(Array.from({ length: 6 }, () => 'BatchWriteItemCommand'));

    requests.length = 0;
    const asked = [...sks].reverse();
    const items = await getItems(store, asked.map(rawKey));
    expect(items.map((item) => item?.value)).toEqual(asked);
    expect(requests).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);

    await writeItems(
      store,
      sks.map((sk) => ({ DeleteRequest: { Key: marshall(rawKey(sk)) } })),
      'test rows',
    );
    expect(await getItems(store, sks.slice(0, 3).map(rawKey))).toEqual([undefined, undefined, undefined]);
  });

  it("asks an entity's batch get again for the keys the store left unprocessed, after a wait", async () => {
    const names = Array.from({ length: 3 }, (_, i) => `batched-${ulid()}-${i}`);
    for (const name of names) await store.entities.setting.put({ name, value: name, createdAt: '2026-03-01T12:00:00.000Z' }).go();
    const { pause, waits } = recordedPause();
    const asked: string[][] = [];
    // The real batch get, except that its first answer holds the last key back, as a throttled table does.
    const got = await getAll(
      store,
      names.map((name) => ({ name })),
      async (keys) => {
        asked.push(keys.map((key) => key.name));
        const answer = await store.entities.setting.get(keys).go();
        if (asked.length > 1) return answer;
        const held = answer.data.filter((item) => item.name === names[2]);
        return { data: answer.data.filter((item) => item.name !== names[2]), unprocessed: [...answer.unprocessed, ...held.map((item) => ({ name: item.name }))] };
      },
      'settings',
      { pause },
    );
    expect(got.map((item) => item.value).sort()).toEqual([...names].sort());
    expect(asked).toEqual([names, [names[2]]]);
    expect(waits).toEqual([20]);
  });

  it('throws UnprocessedItemsError, not a shorter list, when a key is still unprocessed after the last attempt', async () => {
    const name = `stuck-${ulid()}`;
    await store.entities.setting.put({ name, value: 'v', createdAt: '2026-03-01T12:00:00.000Z' }).go();
    const { pause, waits } = recordedPause();
    let calls = 0;
    const read = getAll(
      store,
      [{ name }],
      async (keys) => {
        calls++;
        await store.entities.setting.get(keys).go();
        return { data: [], unprocessed: keys };
      },
      'settings',
      { pause },
    );
    await expect(read).rejects.toThrow(UnprocessedItemsError);
    await expect(read).rejects.toThrow('1 settings left unprocessed by the store after 6 attempts');
    expect(calls).toBe(6);
    expect(waits).toEqual([20, 40, 80, 160, 320]);
  });
});

describe('batch helpers against DynamoDB answering in part (mocked SDK)', () => {
  const hot = new DynamoDBClient({ region: 'us-east-1' });
  const sdk = mockClient(hot);
  const table = 't';
  afterEach(() => sdk.reset());

  const item = (sk: string): Record<string, AttributeValue> => marshall({ ...rawKey(sk), value: `v-${sk}` });

  it('getItems: a key left in UnprocessedKeys is asked for again and returned in its place', async () => {
    sdk
      .on(BatchGetItemCommand)
      .resolvesOnce({ Responses: { [table]: [item('a'), item('c')] }, UnprocessedKeys: { [table]: { Keys: [marshall(rawKey('b'))] } } })
      .resolves({ Responses: { [table]: [item('b')] } });
    const { pause, waits } = recordedPause();
    const items = await getItems({ hot, table }, ['a', 'b', 'c'].map(rawKey), { pause });
    expect(items.map((found) => found?.value)).toEqual(['v-a', 'v-b', 'v-c']);
    const calls = sdk.commandCalls(BatchGetItemCommand);
    expect(calls.map((call) => call.args[0].input.RequestItems?.[table]?.Keys?.length)).toEqual([3, 1]);
    expect(calls[1]?.args[0].input.RequestItems?.[table]?.Keys).toEqual([marshall(rawKey('b'))]);
    expect(waits).toEqual([20]);
  });

  it('getItems: past the limit, an UnprocessedItemsError instead of a short result', async () => {
    sdk.on(BatchGetItemCommand).callsFake((input: { RequestItems: Record<string, { Keys: unknown[] }> }) => ({
      Responses: { [table]: input.RequestItems[table]?.Keys.length === 2 ? [item('a')] : [] },
      UnprocessedKeys: { [table]: { Keys: [marshall(rawKey('b'))] } },
    }));
    const { pause } = recordedPause();
    await expect(getItems({ hot, table }, ['a', 'b'].map(rawKey), { pause, attempts: 3 })).rejects.toThrow(new UnprocessedItemsError('items', 1, 3));
    expect(sdk.commandCalls(BatchGetItemCommand)).toHaveLength(3);
  });

  it('writeItems: an item left in UnprocessedItems is sent again, alone; past the limit, an error', async () => {
    const [a, b] = [item('a'), item('b')];
    sdk
      .on(BatchWriteItemCommand)
      .resolvesOnce({ UnprocessedItems: { [table]: [{ PutRequest: { Item: b } }] } })
      .resolves({});
    const { pause, waits } = recordedPause();
    await writeItems({ hot, table }, [{ PutRequest: { Item: a } }, { PutRequest: { Item: b } }], 'rows', { pause });
    expect(sdk.commandCalls(BatchWriteItemCommand).map((call) => call.args[0].input.RequestItems?.[table])).toEqual([
      [{ PutRequest: { Item: a } }, { PutRequest: { Item: b } }],
      [{ PutRequest: { Item: b } }],
    ]);
    expect(waits).toEqual([20]);

    sdk.reset();
    sdk.on(BatchWriteItemCommand).callsFake((input: { RequestItems: Record<string, unknown[]> }) => ({ UnprocessedItems: { [table]: input.RequestItems[table] } }));
    await expect(writeItems({ hot, table }, [{ DeleteRequest: { Key: marshall(rawKey('a')) } }], 'rows', { pause })).rejects.toThrow(
      '1 rows left unprocessed by the store after 6 attempts',
    );
    expect(sdk.commandCalls(BatchWriteItemCommand)).toHaveLength(6);
  });
});
