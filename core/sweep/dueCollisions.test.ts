import { createHash } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { DUE_SHARDS } from '../checks/timing.js';
import { checkKey } from '../store/checkKeys.js';
import { signalKey } from '../signals/rawItems.js';
import { sweepHeartbeats } from './heartbeats.js';
import { dueWakes } from './wakes.js';

/**
 * The embedded store (dynalite) keyed an index entry by the entry's index key plus the first six
 * hex digits of an MD5 of the item's table key ("Outliers", then the hash key, then the range key:
 * `hashPrefix` in dynalite/db/index.js). Two items whose index keys were equal and whose table keys
 * shared those 24 bits got one index entry between them. Jobs on one cron schedule share a wake
 * instant, and checks that went LATE in one sweep share the instant they go DOWN, so the sweep
 * missed a job now and then. The store now keeps the whole hash (patches/dynalite+4.0.0.patch,
 * tested on its own in core/adapters/local/indexKeys.test.ts). Found by search, deterministically:
 * pairs of items whose table keys do share those 24 bits.
 */
const dynaliteSuffix = (key: { pk: string; sk: string }): string => createHash('md5').update('Outliers').update(key.pk).update(key.sk).digest('hex').slice(0, 6);

function collidingSignals(checkA: number, checkB: number, receivedAt: string): [string, string] {
  const seen = new Map<string, string>();
  for (let n = 0; ; n++) {
    const id = `01JSIGNAL${String(n).padStart(17, '0')}`;
    seen.set(dynaliteSuffix(signalKey(checkA, receivedAt, id)), id);
    const other = seen.get(dynaliteSuffix(signalKey(checkB, receivedAt, id)));
    if (other !== undefined) return [other, id];
  }
}

/** Two check tokens whose table keys share those 24 bits. */
function collidingTokens(): [string, string] {
  const seen = new Map<string, string>();
  for (let n = 0; ; n++) {
    const token = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const suffix = dynaliteSuffix(checkKey(token));
    const other = seen.get(suffix);
    if (other !== undefined) return [other, token];
    seen.set(suffix, token);
  }
}

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

describe('wake entries of one instant', () => {
  it('are all found, even for two signals whose table keys the embedded store hashes alike', async () => {
    const [shard] = DUE_SHARDS;
    if (shard === undefined) throw new Error('no due shard');
    const wakeAt = '2026-03-01T13:00:00.000Z';
    const receivedAt = '2026-03-01T12:00:00.000Z';
    const [idA, idB] = collidingSignals(1_001, 1_002, receivedAt);
    expect(dynaliteSuffix(signalKey(1_001, receivedAt, idA))).toBe(dynaliteSuffix(signalKey(1_002, receivedAt, idB)));
    const signal = (checkId: number, signalId: string) => ({
      checkId,
      signalId,
      receivedAt,
      workspaceId: 1,
      type: 'SUCCESS' as const,
      source: 'PING',
      expiresAt: 1_900_000_000,
      wakeShard: shard,
      wakeAt,
    });
    await t.deps.store.entities.signal.put(signal(1_001, idA)).go();
    await t.deps.store.entities.signal.put(signal(1_002, idB)).go();

    // At the wake instant itself, and a second later: both checks are looked at.
    for (const now of [wakeAt, '2026-03-01T13:00:01.000Z']) {
      const due = await dueWakes(t.deps, shard, new Date(now));
      expect(due.checkIds.sort()).toEqual([1_001, 1_002]);
    }
  });

  it('still finds an entry keyed by its instant and then its signal id (as wakes were written for a while), at that instant', async () => {
    const [shard] = DUE_SHARDS;
    if (shard === undefined) throw new Error('no due shard');
    const wakeAt = '2026-03-02T13:00:00.000Z';
    const receivedAt = '2026-03-02T12:00:00.000Z';
    const signalId = '01JOLDFORMAT0000000000000';
    const item = { checkId: 2_001, signalId, receivedAt, workspaceId: 1, type: 'SUCCESS', source: 'PING', expiresAt: 1_900_000_000, wakeShard: shard, wakeAt };
    const old = {
      ...item,
      ...signalKey(2_001, receivedAt, signalId),
      gsi2pk: `$vigil#wakeshard_${shard}`,
      gsi2sk: `$signal_1#wakeat_${wakeAt.toLowerCase()}#wakeid_${signalId.toLowerCase()}`,
      wakeId: signalId,
      __edb_e__: 'signal',
      __edb_v__: '1',
    };
    await t.deps.store.hot.send(new PutItemCommand({ TableName: t.deps.store.table, Item: marshall(old) }));
    expect((await dueWakes(t.deps, shard, new Date(wakeAt))).checkIds).toContain(2_001);
  });
});

describe('checks due at one instant', () => {
  it('all move, even two whose table keys the embedded store hashed alike', async () => {
    const [shard] = DUE_SHARDS;
    if (shard === undefined) throw new Error('no due shard');
    const [tokenA, tokenB] = collidingTokens();
    expect(dynaliteSuffix(checkKey(tokenA))).toBe(dynaliteSuffix(checkKey(tokenB)));
    // Both went LATE in one sweep with the same grace: they share the instant they go DOWN.
    const dueAt = '2026-03-03T13:00:00.000Z';
    const check = (checkId: number, token: string) => ({
      token,
      checkId,
      workspaceId: 3,
      projectId: 3,
      name: `late ${checkId}`,
      checkMode: 'INBOUND' as const,
      checkType: 'HEARTBEAT' as const,
      intervalSeconds: 3600,
      graceSeconds: 300,
      muteNotifications: true,
      downSeverity: 'P1' as const,
      lateSeverity: 'P3' as const,
      status: 'LATE' as const,
      // LATE since 12:55 (due 12:50, 300 s of grace): DOWN at 13:00, twice the grace past due.
      lastPingAt: '2026-03-03T11:50:00.000Z',
      nextDueAt: '2026-03-03T12:50:00.000Z',
      dueAt,
      dueShard: shard,
      createdAt: '2026-03-03T10:00:00.000Z',
      updatedAt: '2026-03-03T12:55:00.000Z',
    });
    await t.deps.store.entities.check.put(check(3_001, tokenA)).go();
    await t.deps.store.entities.check.put(check(3_002, tokenB)).go();

    await sweepHeartbeats(t.deps, new Date('2026-03-03T13:00:01.000Z'));
    const after = await Promise.all([tokenA, tokenB].map(async (token) => (await t.deps.store.entities.check.get({ token }).go()).data?.status));
    expect(after).toEqual(['DOWN', 'DOWN']);
  });
});
