import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedStore } from '../adapters/local/embeddedStore.js';
import { createDynamoClient, ensureTable } from './client.js';
import { createStore, type Store } from './service.js';

// Both store clients resolve their middleware once per command class (core/store/resolvedOnce.ts)
// and resolve again after any change to their stack: over the port of the run's store (dynalite
// and, in the fidelity pass, DynamoDB Local: test/fidelity.sh), and on the direct path to a store
// in this process (core/adapters/local/directDispatch.ts), whose stack leaves out HTTP's middleware.
const own = startEmbeddedStore(':memory:');
afterAll(async () => (await own).close());
const at = '2026-03-01T12:00:00.000Z';
const event = (incidentId: number, eventKey: string) => ({
  incidentId,
  eventKey,
  eventId: 1,
  workspaceId: 1,
  type: 'OPENED' as const,
  message: `opened ${eventKey}`,
  occurredAt: at,
  createdAt: at,
});
const rawKey = (sk: string) => ({ pk: { S: 'resolved-once' }, sk: { S: sk } });

type Stack = Store['hot']['middlewareStack'];

/** A middleware that counts how often a stack is resolved with it (its factory) and the requests it sees. */
function counter(name: string) {
  const counts = { resolutions: 0, requests: [] as string[] };
  const middleware = (next: (args: object) => Promise<{ output: object }>, context: { commandName?: string }) => (
    counts.resolutions++, (args: object) => (counts.requests.push(context.commandName ?? '?'), next(args))
  );
  return { counts, add: (stack: Stack) => stack.add(middleware as never, { step: 'initialize', name }) };
}

describe.each([
  ['over the port', () => Promise.resolve(inject('dynamoEndpoint'))],
  ['on the direct path', async () => (await own).endpoint],
])('store clients resolve middleware once per command class, %s', (path, endpoint) => {
  let store: Store;
  // Data-plane requests on the direct path work out no endpoint; over the port each does.
  const endpoints = { resolved: 0 };
  const direct = path === 'on the direct path';
  beforeAll(async () => {
    const client = createDynamoClient({ endpoint: await endpoint() });
    const table = `t_${ulid()}`;
    await ensureTable(client, table);
    store = createStore(client, table);
    for (const config of [store.client.config, store.hot.config]) {
      const provider = config.endpointProvider;
      config.endpointProvider = (...args) => (endpoints.resolved++, provider(...args));
    }
  });
  const stacks = () => [store.client.middlewareStack, store.hot.middlewareStack] as unknown as [Stack, Stack];

  it('resolves each client once for many requests of a class, ElectroDB and the ping path alike', async () => {
    const seen = counter('countResolutions');
    for (const stack of stacks()) seen.add(stack);
    for (let i = 0; i < 5; i++) {
      await store.entities.incidentEvent.put(event(1, `e${i}`)).go();
      await store.entities.incidentEvent.get({ incidentId: 1, eventKey: `e${i}` }).go();
      await store.hot.send(new PutItemCommand({ TableName: store.table, Item: { ...rawKey(`r${i}`), n: { N: String(i) } } }));
    }
    // One resolution per command class and client; 15 requests seen.
    expect(seen.counts.resolutions).toBe(3);
    expect(seen.counts.requests).toHaveLength(15);
    expect(endpoints.resolved > 0).toBe(!direct);
    for (const stack of stacks()) stack.remove('countResolutions');
  });

  it('lets a middleware added, replaced or removed after the first request act on the next one', async () => {
    await store.entities.incidentEvent.get({ incidentId: 1, eventKey: 'e0' }).go();
    await store.hot.send(new GetItemCommand({ TableName: store.table, Key: rawKey('r0') }));
    const [documentStack, hotStack] = stacks();
    const failing = (message: string) => () => async () => {
      throw new Error(message);
    };
    documentStack.add(failing('injected: document'), { step: 'initialize', name: 'failLater', tags: ['FAULT'] });
    hotStack.use({
      applyToStack: (stack) => stack.addRelativeTo(failing('injected: hot'), { relation: 'before', toMiddleware: 'serializerMiddleware', name: 'failLater', tags: ['FAULT'] }),
    });
    await expect(store.entities.incidentEvent.get({ incidentId: 1, eventKey: 'e0' }).go()).rejects.toThrow('injected: document');
    await expect(store.hot.send(new GetItemCommand({ TableName: store.table, Key: rawKey('r0') }))).rejects.toThrow('injected: hot');
    documentStack.add(failing('injected: replaced'), { step: 'initialize', name: 'failLater', tags: ['FAULT'], override: true });
    await expect(store.entities.incidentEvent.get({ incidentId: 1, eventKey: 'e0' }).go()).rejects.toThrow('injected: replaced');
    expect(documentStack.removeByTag('FAULT')).toBe(true);
    expect(hotStack.remove('failLater')).toBe(true);
    expect((await store.entities.incidentEvent.get({ incidentId: 1, eventKey: 'e0' }).go()).data?.message).toBe('opened e0');
    expect((await store.hot.send(new GetItemCommand({ TableName: store.table, Key: rawKey('r0') }))).Item?.n).toEqual({ N: '0' });
  });

  it('sends each concurrent document request with its own input and answers it with its own output', async () => {
    // lib-dynamodb's own handler always sends the command it was resolved for: a reused one must not.
    const keys = Array.from({ length: 20 }, (_, i) => `c${i}`);
    await Promise.all(keys.map((key) => store.entities.incidentEvent.put(event(2, key)).go()));
    const read = await Promise.all(keys.map((key) => store.entities.incidentEvent.get({ incidentId: 2, eventKey: key }).go()));
    expect(read.map((answer) => answer.data?.message)).toEqual(keys.map((key) => `opened ${key}`));
    const page = await store.entities.incidentEvent.query.byIncident({ incidentId: 2 }).go();
    expect(page.data.map((item) => item.eventKey).sort()).toEqual([...keys].sort());
  });

  it('resolves a middleware placed beside one the direct path leaves out with the whole stack, and fails a refused write as the SDK does', async () => {
    const [, hotStack] = stacks();
    const seen: string[] = [];
    const beside = (next: (args: object) => Promise<unknown>, context: { commandName?: string }) => (args: object) => (seen.push(context.commandName ?? '?'), next(args));
    hotStack.addRelativeTo(beside as never, { relation: 'after', toMiddleware: 'endpointV2Middleware', name: 'besideEndpoint' });
    expect((await store.hot.send(new GetItemCommand({ TableName: store.table, Key: rawKey('r2') }))).Item?.n).toEqual({ N: '2' });
    expect(seen).toEqual(['GetItemCommand']);
    expect(hotStack.remove('besideEndpoint')).toBe(true);
    const refused = await store.hot
      .send(new PutItemCommand({ TableName: store.table, Item: rawKey('r2'), ConditionExpression: 'attribute_not_exists(pk)' }))
      .catch((err: unknown) => err);
    expect(refused).toMatchObject({ name: 'ConditionalCheckFailedException', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
  });

  it('still answers a request sent with options, resolved for it alone', async () => {
    const aborter = new AbortController();
    const answer = await store.client.send(new GetCommand({ TableName: store.table, Key: { pk: 'resolved-once', sk: 'r1' } }), { abortSignal: aborter.signal });
    expect(answer.Item).toEqual({ pk: 'resolved-once', sk: 'r1', n: 1 });
  });
});
