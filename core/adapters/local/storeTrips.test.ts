import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetCommand, BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { startLocalServer, type LocalServer } from '../../localServer.js';

/**
 * How a steady ping reaches LevelDB in the embedded store (patches/dynalite+4.0.0.patch). Each
 * asynchronous LevelDB call is a trip to a thread-pool thread and back, two thread wake-ups that,
 * with pings arriving one at a time, cost more CPU than the read or write itself. The patched
 * store reads on the event loop's thread (LevelDB answers from its memtable and block cache) and
 * writes an item with its index entries as one batch; before the patch a ping's update alone
 * made two reads and four writes through the pool. Each LevelDB entry a batch writes is also
 * logged, flushed and compacted by LevelDB's own threads, so a batch holds only what must change.
 */

type Proto = Record<'_get' | '_getSync' | '_put' | '_del' | '_batch', (...args: unknown[]) => unknown>;
const dynaliteRequire = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const levelRequire = createRequire(dynaliteRequire.resolve('level'));
/** The LevelDB binding dynalite stores through on disk. */
const { ClassicLevel } = levelRequire('classic-level') as { ClassicLevel: { prototype: Proto } };

const calls = { _get: 0, _getSync: 0, _put: 0, _del: 0, _batch: 0 };
/** Each batch's operations: the index entries and items it puts and deletes, by key space. */
let batches: string[][] = [];
const originals = new Map<keyof typeof calls, (...args: unknown[]) => unknown>();

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-trips-'));
let server: LocalServer;
let token = '';

async function call(path: string, body: unknown, auth?: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  for (const name of Object.keys(calls) as (keyof typeof calls)[]) {
    const original = ClassicLevel.prototype[name];
    originals.set(name, original);
    ClassicLevel.prototype[name] = function (this: unknown, ...args: unknown[]) {
      calls[name]++;
      if (name === '_batch') batches.push((args[0] as { type: string; key: string }[]).map((op) => `${op.type} ${op.key.split('~').slice(0, -1).join('~')}`));
      return original.apply(this, args);
    };
  }
  server = await startLocalServer(loadConfig({ PORT: '0', VIGIL_DATA_DIR: dataDir, VIGIL_SWEEP_SECONDS: '3600' }), { log: false });
  const signup = await call('/auth/signup', { email: 'trips@example.com', password: 'correct horse battery' });
  const job = await call('/checks', { name: 'nightly', projectId: 1, intervalSeconds: 300, graceSeconds: 60 }, String(signup.access_token));
  token = String(job.token);
  // The first ping moves the check NEW -> UP (its own cold path); the one measured is a steady one.
  expect((await fetch(`${server.baseUrl}/signals/ping/${token}`)).status).toBe(200);
  await server.deps.queue.drain();
});

afterAll(async () => {
  for (const [name, original] of originals) ClassicLevel.prototype[name] = original;
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the embedded store under a steady ping', () => {
  it('reads on the event loop and writes the check with its moved due entry, and the signal, one batch each', async () => {
    // A minute on (past the first ping's 1-second dedup window), without waiting for it.
    const later: Clock = { now: () => new Date(Date.now() + 60_000) };
    (server.deps as { clock: Clock }).clock = later;
    for (const name of Object.keys(calls) as (keyof typeof calls)[]) calls[name] = 0;
    batches = [];
    const res = await fetch(`${server.baseUrl}/signals/ping/${token}`);
    expect(res.status).toBe(200);
    // The update and the signal's put: each reads its item and writes once. Their tables'
    // definitions were read by earlier requests and are kept (getTable in the patch).
    expect(calls).toEqual({ _get: 0, _getSync: 2, _put: 0, _del: 0, _batch: 2 });
    // The update moves the check's due entry and rewrites the check; the signal is an item of no
    // index. No delete of a pre-patch short key: the store moved those entries when it was opened.
    expect(batches).toEqual([['del index-global~vigil~gsi2', 'put index-global~vigil~gsi2', 'put item-vigil'], ['put item-vigil']]);
  });
});

describe('writes started together', () => {
  const table = () => server.deps.config.tableName;
  const reset = () => {
    for (const name of Object.keys(calls) as (keyof typeof calls)[]) calls[name] = 0;
    batches = [];
  };

  it('reach LevelDB as one batch: a BatchWriteItem of 25 items is one native call, and each item is there when it answers', async () => {
    const keys = Array.from({ length: 25 }, (_, i) => ({ pk: `trips#batch#${i}`, sk: 'item' }));
    reset();
    await server.deps.store.client.send(new BatchWriteCommand({ RequestItems: { [table()]: keys.map((key, i) => ({ PutRequest: { Item: { ...key, n: i } } })) } }));
    expect(calls._batch).toBe(1);
    expect(batches).toEqual([keys.map(() => 'put item-vigil')]);
    const read = await server.deps.store.client.send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: keys } } }));
    expect((read.Responses?.[table()] ?? []).map((item) => item.n).sort((a, b) => a - b)).toEqual(keys.map((_, i) => i));
  });

  it('are each still answered on their own: a failed condition refuses its write only', async () => {
    const put = (pk: string, condition?: string) =>
      server.deps.store.client.send(new PutCommand({ TableName: table(), Item: { pk, sk: 'item', v: 1 }, ...(condition ? { ConditionExpression: condition } : {}) }));
    await put('trips#taken');
    reset();
    const results = await Promise.allSettled([put('trips#a'), put('trips#taken', 'attribute_not_exists(pk)'), put('trips#b')]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(batches).toEqual([['put item-vigil', 'put item-vigil']]);
  });
});
