import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoClient, ensureTable } from './client.js';
import { isConditionalFailure } from './conditional.js';
import { acquireLock, lockOwner, releaseLock } from './locks.js';
import { createStore, type Store } from './service.js';

// Runs on dynalite and, in the fidelity pass, on DynamoDB Local (test/fidelity.sh).
let store: Store;
const now = new Date('2026-03-01T12:00:00.000Z');
const alive = async () => true;

beforeAll(async () => {
  const client = createDynamoClient({ endpoint: inject('dynamoEndpoint') });
  const table = `t_${ulid()}`;
  await ensureTable(client, table);
  store = createStore(client, table);
});

describe('locks', () => {
  it('gives a free value to the first owner, and again to the same owner', async () => {
    const value = `a-${ulid()}@example.com`;
    expect(await acquireLock(store, 'email', value, 'u1', now, alive)).toBe(true);
    expect(await acquireLock(store, 'email', value, 'u1', now, alive)).toBe(true);
    expect(await lockOwner(store, 'email', value)).toBe('u1');
  });

  it('refuses another owner while the holder is alive', async () => {
    const value = `b-${ulid()}`;
    await acquireLock(store, 'slug', value, 'u1', now, alive);
    expect(await acquireLock(store, 'slug', value, 'u2', now, alive)).toBe(false);
    expect(await lockOwner(store, 'slug', value)).toBe('u1');
  });

  it('lets another owner take over an orphan whose holder is gone', async () => {
    const value = `c-${ulid()}`;
    await acquireLock(store, 'slug', value, 'crashed', now, alive);
    const asked: string[] = [];
    const taken = await acquireLock(store, 'slug', value, 'u2', now, async (owner) => {
      asked.push(owner);
      return false;
    });
    expect(taken).toBe(true);
    expect(asked).toEqual(['crashed']);
    expect(await lockOwner(store, 'slug', value)).toBe('u2');
  });

  it('scopes values: the same value in two scopes is two locks', async () => {
    const value = `d-${ulid()}`;
    expect(await acquireLock(store, 'scope-a', value, 'u1', now, alive)).toBe(true);
    expect(await acquireLock(store, 'scope-b', value, 'u2', now, alive)).toBe(true);
  });

  it('releases only for its owner', async () => {
    const value = `e-${ulid()}`;
    await acquireLock(store, 'slug', value, 'u1', now, alive);
    await releaseLock(store, 'slug', value, 'u2');
    expect(await lockOwner(store, 'slug', value)).toBe('u1');
    await releaseLock(store, 'slug', value, 'u1');
    expect(await lockOwner(store, 'slug', value)).toBeUndefined();
    await expect(releaseLock(store, 'slug', value, 'u1')).resolves.toBeUndefined();
    expect(await acquireLock(store, 'slug', value, 'u3', now, alive)).toBe(true);
  });

  it('admits exactly one of many concurrent claimants', async () => {
    const value = `f-${ulid()}`;
    const owners = Array.from({ length: 12 }, (_, i) => `owner-${i}`);
    const results = await Promise.all(owners.map((owner) => acquireLock(store, 'race', value, owner, now, alive)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await lockOwner(store, 'race', value)).toBe(owners[results.indexOf(true)]);
  });

  it('admits exactly one of many concurrent takeovers of the same orphan', async () => {
    const value = `g-${ulid()}`;
    await acquireLock(store, 'race', value, 'crashed', now, alive);
    const owners = Array.from({ length: 8 }, (_, i) => `heir-${i}`);
    const results = await Promise.all(owners.map((owner) => acquireLock(store, 'race', value, owner, now, async (o) => o !== 'crashed')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe('isConditionalFailure', () => {
  it('recognises a failed ElectroDB create (attribute_not_exists)', async () => {
    const item = { scope: 'x', value: ulid(), ownerId: 'u1', createdAt: now.toISOString() };
    await store.entities.lock.create(item).go();
    const err = await store.entities.lock
      .create(item)
      .go()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeDefined();
    expect(isConditionalFailure(err)).toBe(true);
  });

  it('recognises a failed conditional write from the SDK directly', async () => {
    const key = { pk: `raw#${ulid()}`, sk: 'raw' };
    await store.client.send(new PutCommand({ TableName: store.table, Item: { ...key, state: 'OK' } }));
    const flip = (from: string, to: string) =>
      store.client.send(
        new UpdateCommand({
          TableName: store.table,
          Key: key,
          UpdateExpression: 'SET #s = :to',
          ConditionExpression: '#s = :from',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':from': from, ':to': to },
        }),
      );
    await flip('OK', 'DOWN');
    const err = await flip('OK', 'DOWN').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isConditionalFailure(err)).toBe(true);
  });

  it('does not mistake other failures for a condition failure', async () => {
    const err = await store.entities.lock
      .get({ scope: 'x', value: 'y' })
      .go({ table: `missing_${ulid()}` })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeDefined();
    expect(isConditionalFailure(err)).toBe(false);
    expect(isConditionalFailure(new Error('boom'))).toBe(false);
    expect(isConditionalFailure(undefined)).toBe(false);
  });

  it('finds the failure inside a cause chain', () => {
    const inner = Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
    expect(isConditionalFailure(new Error('wrapped', { cause: new Error('again', { cause: inner }) }))).toBe(true);
  });
});
