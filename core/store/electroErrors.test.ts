import { ElectroError } from 'electrodb';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createDynamoClient, ensureTable } from './client.js';
import { isConditionalFailure } from './conditional.js';
import { createStore, type Store } from './service.js';

// Runs on dynalite and, in the fidelity pass, on DynamoDB Local (test/fidelity.sh).
let store: Store;

beforeAll(async () => {
  const client = createDynamoClient({ endpoint: inject('dynamoEndpoint') });
  const table = `t_${ulid()}`;
  await ensureTable(client, table);
  store = createStore(client, table);
});

/** The stacks ElectroDB captures for its own errors while `work` runs. */
async function electroStacks(work: () => Promise<unknown>): Promise<number> {
  const capture = vi.spyOn(Error, 'captureStackTrace');
  try {
    await work().catch(() => undefined);
    return capture.mock.calls.filter(([, ctor]) => ctor === ElectroError).length;
  } finally {
    capture.mockRestore();
  }
}

// patches/electrodb+3.9.3.patch: ElectroDB made its wrapper error, stack and all, before every
// request in case the request failed; now it makes it when one does.
describe('ElectroDB requests', () => {
  it('capture no error stack when they succeed', async () => {
    const value = `ok-${ulid()}`;
    const lock = store.entities.lock;
    expect(await electroStacks(() => lock.create({ scope: 'email', value, ownerId: 'u1', createdAt: new Date(0).toISOString() }).go())).toBe(0);
    expect(await electroStacks(() => lock.get({ scope: 'email', value }).go())).toBe(0);
  });

  it('still wrap a failed request, with the condition failure as its cause', async () => {
    const value = `dup-${ulid()}`;
    const lock = store.entities.lock;
    await lock.create({ scope: 'email', value, ownerId: 'u1', createdAt: new Date(0).toISOString() }).go();
    const failure = await lock
      .create({ scope: 'email', value, ownerId: 'u2', createdAt: new Date(0).toISOString() })
      .go()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(ElectroError);
    expect(isConditionalFailure(failure)).toBe(true);
    expect((failure as ElectroError).cause).toMatchObject({ name: 'ConditionalCheckFailedException' });
  });
});

/** The properties ElectroDB defines while `build` runs. */
function definedProperties(build: () => unknown): number {
  const define = vi.spyOn(Object, 'defineProperty');
  try {
    build();
    return define.mock.calls.length;
  } finally {
    define.mockRestore();
  }
}

// patches/electrodb+3.9.3.patch: every chain made its update clause's proxy, a getter per
// attribute and per operation, a get's and a query's included; now the proxy is made when an
// update clause first uses it.
describe('ElectroDB chains', () => {
  it('define no update getters for a get', () => {
    expect(definedProperties(() => store.entities.check.get({ token: 'x' }).params())).toBe(0);
  });

  it('still build an update from the attributes it names', () => {
    expect(definedProperties(() => store.entities.check.patch({ token: 'x' }).set({ name: 'renamed' }).params())).toBeGreaterThan(0);
    const params = store.entities.check.patch({ token: 'x' }).set({ name: 'renamed' }).params<{ UpdateExpression: string; ExpressionAttributeValues: Record<string, unknown> }>();
    expect(params.UpdateExpression).toContain('SET #name = :name_u0');
    expect(params.ExpressionAttributeValues[':name_u0']).toBe('renamed');
  });
});
