import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createDynamoClient, ensureTable } from './client.js';
import { isConditionalFailure } from './conditional.js';
import { getItems, keyOf } from './batch.js';
import { assertEntitiesCompose, createStore, type Store } from './service.js';

// Runs on dynalite and, in the fidelity pass, on DynamoDB Local (test/fidelity.sh).
let store: Store;
const at = '2026-03-01T12:00:00.000Z';

beforeAll(async () => {
  const client = createDynamoClient({ endpoint: inject('dynamoEndpoint') });
  const table = `t_${ulid()}`;
  await ensureTable(client, table);
  // A second ensureTable finds the table and changes nothing.
  await ensureTable(client, table);
  store = createStore(client, table);
});

describe('entities', () => {
  it('are built on first use, once, and compose into one Service (no colliding indexes)', () => {
    expect(store.entities.check).toBe(store.entities.check);
    expect(Object.keys(store.entities)).toContain('queueMessage');
    expect(() => assertEntitiesCompose(store.entities)).not.toThrow();
  });
});

describe('counters', () => {
  it('counts from 1 per entity', async () => {
    const entity = `e-${ulid()}`;
    expect([await store.nextId(entity), await store.nextId(entity), await store.nextId(entity)]).toEqual([1, 2, 3]);
    expect(await store.nextId(`other-${ulid()}`)).toBe(1);
  });

  it('never hands out the same id twice under concurrency, and callers that ask at once share a counter update', async () => {
    const entity = `e-${ulid()}`;
    // Two stores on one table stand for two processes.
    const other = createStore(store.client, store.table);
    const send = vi.spyOn(store.client, 'send');
    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? store : other).nextId(entity)));
    const updates = send.mock.calls.length;
    send.mockRestore();
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Per process: the first caller's update, then one for the 24 who asked while it was in flight,
    // in the order they asked (an incident list sorts newest first by id).
    expect(updates).toBe(4);
    const ours = ids.filter((_, i) => i % 2 === 0);
    expect(ours).toEqual([...ours].sort((a, b) => a - b));
  });

  it('hands out ids from blocks: unique across two processes at once, one counter update per 64 ids', async () => {
    const entity = `e-${ulid()}`;
    // Two stores on one table stand for two processes, each with blocks of its own.
    const other = createStore(store.client, store.table);
    const send = vi.spyOn(store.client, 'send');
    const ids = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? store : other).nextIdFromBlock(entity)));
    const updates = send.mock.calls.length;
    send.mockRestore();
    expect(new Set(ids).size).toBe(100);
    expect(Math.min(...ids)).toBe(1);
    // 50 ids each: one block of 64 per process.
    expect(updates).toBe(2);
  });
});

describe('entities round-trip', () => {
  it('keeps every attribute of a check, including the free-form outbound config and lists', async () => {
    const token = ulid();
    const check = {
      token,
      checkId: await store.nextId('check'),
      workspaceId: 7,
      projectId: 3,
      dependencyIds: [4, 5],
      name: 'nightly backup',
      checkMode: 'OUTBOUND' as const,
      checkType: 'HTTP' as const,
      intervalSeconds: 300,
      graceSeconds: 60,
      muteNotifications: false,
      downSeverity: 'P1' as const,
      lateSeverity: 'P3' as const,
      status: 'NEW' as const,
      outbound: { url: 'https://example.com/health', customHeaders: { 'X-Token': 'a' }, regions: ['us-east-1'] },
      createdAt: at,
      updatedAt: at,
    };
    await store.entities.check.create(check).go();
    const read = await store.entities.check.get({ token }).go({ consistent: true });
    expect(read.data).toEqual(check);
  });

  it('reads memberships from both sides (table and gsi1)', async () => {
    const workspaceId = await store.nextId('workspace');
    const userId = await store.nextId('user-rt');
    await store.entities.membership.create({ workspaceId, userId, role: 'OWNER', createdAt: at, updatedAt: at }).go();
    const ofWorkspace = await store.entities.membership.query.byWorkspace({ workspaceId }).go();
    const ofUser = await store.entities.membership.query.byUser({ userId }).go();
    expect(ofWorkspace.data.map((m) => m.userId)).toEqual([userId]);
    expect(ofUser.data.map((m) => [m.workspaceId, m.role])).toEqual([[workspaceId, 'OWNER']]);
  });

  it('keeps signals in time order within their check, with TTL and map details', async () => {
    const checkId = await store.nextId('check');
    const times = ['2026-03-01T12:00:02.000Z', '2026-03-01T12:00:00.000Z', '2026-03-01T12:00:01.000Z'];
    for (const receivedAt of times) {
      await store.entities.signal
        .create({
          checkId,
          signalId: ulid(),
          receivedAt,
          workspaceId: 1,
          type: 'DEPLOYMENT',
          source: 'DEPLOYMENT',
          details: {},
          payload: '{"a":1}',
          payloadIsJson: true,
          expiresAt: 1_800_000_000,
        })
        .go();
    }
    const read = await store.entities.signal.query.byCheck({ checkId }).go();
    expect(read.data.map((s) => s.receivedAt)).toEqual([...times].sort());
    expect(read.data[0]?.expiresAt).toBe(1_800_000_000);
    const newestFirst = await store.entities.signal.query.byCheck({ checkId }).go({ order: 'desc', limit: 1 });
    expect(newestFirst.data.map((s) => s.receivedAt)).toEqual(['2026-03-01T12:00:02.000Z']);
  });

  it('flips state only from the expected previous state (the at-least-once guard)', async () => {
    const workspaceId = await store.nextId('workspace');
    await store.entities.workspace.create({ workspaceId, name: 'w', plan: 'FREE', createdAt: at, updatedAt: at }).go();
    const upgrade = () =>
      store.entities.workspace
        .patch({ workspaceId })
        .set({ plan: 'TEAM' })
        .where((attr, op) => op.eq(attr.plan, 'FREE'))
        .go();
    await upgrade();
    const second = await upgrade().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isConditionalFailure(second)).toBe(true);
    expect((await store.entities.workspace.get({ workspaceId }).go({ consistent: true })).data?.plan).toBe('TEAM');
  });

  it('patch of a missing item fails as a condition failure instead of creating it', async () => {
    const err = await store.entities.workspace
      .patch({ workspaceId: 999_999_999 })
      .set({ name: 'ghost' })
      .go()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isConditionalFailure(err)).toBe(true);
  });

  it('batch-writes and batch-reads', async () => {
    const ids = await Promise.all(Array.from({ length: 30 }, () => store.nextId('user-batch')));
    const users = ids.map((userId) => ({ userId, email: `u${userId}@example.com`, passwordHash: 'h', sessionEpoch: 0, createdAt: at, updatedAt: at }));
    const put = await store.entities.user.put(users).go();
    expect(put.unprocessed).toEqual([]);
    const got = await store.entities.user.get(ids.map((userId) => ({ userId }))).go();
    expect(got.data.map((u) => u.userId).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(got.unprocessed).toEqual([]);
  });
});

describe('pagination of a query', () => {
  it('walks every page with the cursor, each item exactly once', async () => {
    const workspaceId = await store.nextId('workspace');
    const projectIds: number[] = [];
    for (let i = 0; i < 23; i++) {
      const projectId = await store.nextId('project-pages');
      projectIds.push(projectId);
      await store.entities.project.create({ projectId, workspaceId, name: `p${i}`, createdAt: at, updatedAt: at }).go();
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { data: { projectId: number }[]; cursor: string | null } = await store.entities.project.query
        .byWorkspace({ workspaceId })
        .go({ limit: 5, ...(cursor ? { cursor } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(5);
      seen.push(...page.data.map((p) => p.projectId));
      cursor = page.cursor;
      pages++;
    } while (cursor && pages < 20);
    expect(seen).toHaveLength(23);
    expect(new Set(seen)).toEqual(new Set(projectIds));
    expect(pages).toBeGreaterThanOrEqual(5);

    const all = await store.entities.project.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
    expect(all.data).toHaveLength(23);
  });

  it('filters with a where clause across pages (TTL-style reads)', async () => {
    const checkId = await store.nextId('check');
    for (let i = 0; i < 10; i++) {
      await store.entities.signal
        .create({ checkId, signalId: ulid(), receivedAt: `2026-03-01T12:00:0${i}.000Z`, workspaceId: 1, type: 'SUCCESS', source: 'PING', expiresAt: 1000 + i })
        .go();
    }
    const live = await store.entities.signal.query
      .byCheck({ checkId })
      .where((attr, op) => op.gt(attr.expiresAt, 1004))
      .go({ pages: 'all' });
    expect(live.data.map((s) => s.expiresAt)).toEqual([1005, 1006, 1007, 1008, 1009]);
  });
});

describe('getItems (items of different entities in one request)', () => {
  it('answers in the order asked, undefined for missing items, duplicates once each', async () => {
    const workspaceId = await store.nextId('workspace');
    await store.entities.workspace.create({ workspaceId, name: 'batched', plan: 'TEAM', createdAt: at, updatedAt: at }).go();
    const space = keyOf(store.entities.workspace.get({ workspaceId }));
    const missing = keyOf(store.entities.project.get({ projectId: 999_999_999 }));
    const [first, none, again] = await getItems(store, [space, missing, space]);
    expect(store.entities.workspace.parse({ Item: first ?? {} }).data?.plan).toBe('TEAM');
    expect(none).toBeUndefined();
    expect(again).toEqual(first);
    expect(await getItems(store, [missing])).toEqual([undefined]);
  });

  it('reads more keys than one BatchGetItem takes (100), in order', async () => {
    const names = Array.from({ length: 130 }, (_, i) => `batched-${Math.random().toString(36).slice(2)}-${i}`);
    for (const name of names) await store.entities.setting.put({ name, value: name, createdAt: at }).go();
    const items = await getItems(
      store,
      names.map((name) => keyOf(store.entities.setting.get({ name }))),
    );
    expect(items.map((item) => item?.value)).toEqual(names);
  });
});
