import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { checkOf, createJob } from '../../test/support/signals.js';
import { LocalQueue } from '../adapters/local/queue.js';
import type { QueueMessage } from '../ports/index.js';
import { consumeIncidentsAndAlerts, type LocalDeps } from '../runtime.js';
import { OUTBOX_FIELDS, type OutboxEntry } from '../store/outbox.js';
import { runSweep } from '../sweep/index.js';
import { OUTBOX_GRACE_MS, relayPendingOutboxes } from './sweep.js';

/**
 * The sweep's status changes are handed to the incidents consumer of the same process
 * (core/outbox/relay.ts handOffAfterWrite, LocalQueue.handOff) instead of going through the queue's
 * store: the check's outbox keeps each one until the consumer has handled it.
 */

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
// A table per test: the sweep reads every due check of the table.
beforeEach(async () => {
  t = await createTestContext();
  user = await t.signup('handoff');
  key = await t.apiKey(user);
});

const outboxOf = async (token: string): Promise<OutboxEntry[]> => {
  const raw = (await t.deps.store.entities.check.get({ token }).go({ data: 'raw' })).data as unknown as { Item: Record<string, unknown> };
  return (raw.Item[OUTBOX_FIELDS.entries] as OutboxEntry[] | undefined) ?? [];
};
const activeIncidents = async (): Promise<{ id: number; severity: string }[]> =>
  (await t.request<{ items: { id: number; severity: string }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}&state=ACTIVE`, { token: user.token })).body.items;
const storedMessages = async (queue: LocalQueue) => (await queue.pending('incidents')).map((item) => JSON.parse(item.body) as { to: string });

/** A job pinged once, then swept past its grace: LATE, handed off, not yet delivered. DOWN 2 x grace after its due time. */
async function lateJob(graceSeconds = 5): Promise<{ token: string; entry: OutboxEntry }> {
  const { token } = await createJob(t, user, key, { intervalSeconds: 10, graceSeconds });
  await t.request('GET', `/signals/ping/${token}`);
  await t.deps.queue.drain();
  t.clock.advanceSeconds(10 + graceSeconds + 1);
  await runSweep(t.deps);
  expect((await checkOf(t, token)).status).toBe('LATE');
  const [entry, ...more] = await outboxOf(token);
  expect(more).toEqual([]);
  if (!entry) throw new Error('the LATE owes no message');
  return { token, entry };
}

describe('a sweep hands its status changes to the consumer in its process', () => {
  it('writes nothing to the queue store; the outbox holds the message until the consumer handled it', async () => {
    const { token, entry } = await lateJob();
    expect(JSON.parse(entry.body)).toMatchObject({ type: 'check.status_changed', to: 'LATE', cause: 'SWEEP' });
    expect(t.deps.queue.holds(entry.id)).toBe(true);
    expect(await storedMessages(t.deps.queue)).toEqual([]);
    expect(await activeIncidents()).toEqual([]);

    await t.deps.queue.drain();
    expect(await activeIncidents()).toEqual([expect.objectContaining({ severity: 'P3' })]);
    expect(await outboxOf(token)).toEqual([]);
    expect(t.deps.queue.holds(entry.id)).toBe(false);
    expect(await storedMessages(t.deps.queue)).toEqual([]);
  });

  it("names the item in each hand-off: one check's changes share it, another check's is its own", async () => {
    const handOff = vi.spyOn(t.deps.queue, 'handOff');
    // Each job's first ping (NEW -> OK) and LATE; the first job's DOWN falls due by the second
    // job's sweep, while its LATE is still held.
    await lateJob();
    await lateJob();
    const changes = handOff.mock.calls.flatMap(([, handed]) => handed.messages.map((message) => ({ ...(message.body as { checkId: number; to: string }), item: handed.item })));
    expect(changes.map((change) => change.to).sort()).toEqual(['DOWN', 'LATE', 'LATE', 'OK', 'OK']);
    const itemsOf = new Map<number, Set<string | undefined>>();
    for (const change of changes) itemsOf.set(change.checkId, (itemsOf.get(change.checkId) ?? new Set()).add(change.item));
    const [first, second] = [...itemsOf.values()].map((items) => [...items]);
    expect(first).toEqual([expect.any(String)]);
    expect(second).toEqual([expect.any(String)]);
    expect(second?.[0]).not.toBe(first?.[0]);
  });

  it('leaves a held message to its hand-off when the outbox sweep comes by, and a DOWN behind it is handed once', async () => {
    const { token, entry } = await lateJob();
    // Past the outbox's grace, undelivered: the sweep's relay would publish it, were it not held.
    t.clock.advance(OUTBOX_GRACE_MS);
    const seen: QueueMessage[] = [];
    const consumer = t.deps.queue.consumerOf('incidents');
    if (!consumer) throw new Error('no incidents consumer');
    t.deps.queue.consume('incidents', async (messages) => {
      seen.push(...messages);
      return consumer(messages);
    });
    await runSweep(t.deps);
    // That sweep found the job DOWN too: its outbox holds both, the LATE still handed off.
    expect((await checkOf(t, token)).status).toBe('DOWN');
    const owed = await outboxOf(token);
    expect(owed.map((owes) => (JSON.parse(owes.body) as { to: string }).to)).toEqual(['LATE', 'DOWN']);
    expect(await storedMessages(t.deps.queue)).toEqual([]);

    await t.deps.queue.drain();
    // Each delivered once, in order, and both cleared; one incident, raised to the down severity.
    expect(seen.map((message) => [message.id, (message.body as { to: string }).to])).toEqual([
      [entry.id, 'LATE'],
      [owed[1]?.id, 'DOWN'],
    ]);
    expect(await outboxOf(token)).toEqual([]);
    expect(await activeIncidents()).toEqual([expect.objectContaining({ severity: 'P1' })]);
    expect(await storedMessages(t.deps.queue)).toEqual([]);
  });

  it('costs the outbox sweep no read of the item while everything it owes is held', async () => {
    const { token, entry } = await lateJob();
    t.clock.advance(OUTBOX_GRACE_MS);
    const send = vi.spyOn(t.deps.store.client, 'send');
    const report = await relayPendingOutboxes(t.deps, t.clock.now());
    const gets = send.mock.calls.filter(([command]) => command instanceof GetCommand).length;
    send.mockRestore();
    // Found in the index past its grace, and left to the hand-off without a consistent get.
    expect(report).toEqual({ read: 1, relayed: 0, failed: 0 });
    expect(gets).toBe(0);
    expect(await outboxOf(token)).toEqual([entry]);
    expect(await storedMessages(t.deps.queue)).toEqual([]);

    // Not held (the process died with it): read and published, as before.
    const restarted: LocalDeps = { ...t.deps, queue: new LocalQueue({ store: t.deps.queue.store, clock: t.clock, autoDrain: false, batchSize: 25 }) };
    const reread = vi.spyOn(t.deps.store.client, 'send');
    expect(await relayPendingOutboxes(restarted, t.clock.now())).toEqual({ read: 1, relayed: 1, failed: 0 });
    expect(reread.mock.calls.filter(([command]) => command instanceof GetCommand).length).toBe(1);
    reread.mockRestore();
    expect(await storedMessages(restarted.queue)).toEqual([expect.objectContaining({ to: 'LATE' })]);
  });

  it('publishes what the consumer failed, and the queue retries it from its store', async () => {
    const { token, entry } = await lateJob();
    const consumer = t.deps.queue.consumerOf('incidents');
    if (!consumer) throw new Error('no incidents consumer');
    const seen: QueueMessage[] = [];
    t.deps.queue.consume('incidents', async (messages) => {
      seen.push(...messages);
      // The first delivery fails (a store error, say); the retry goes through.
      return seen.length === 1 ? { failedIds: messages.map((message) => message.id) } : consumer(messages);
    });
    await t.deps.queue.drain();
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ id: entry.id, receiveCount: 1 });
    // The second came from the queue's store, as a message of its own.
    expect(seen[1]?.id).not.toBe(entry.id);
    expect(seen[1]?.body).toEqual(JSON.parse(entry.body));
    expect(await activeIncidents()).toEqual([expect.objectContaining({ severity: 'P3' })]);
    expect(await outboxOf(token)).toEqual([]);
    expect(await storedMessages(t.deps.queue)).toEqual([]);
  });

  it("loses nothing when the process dies holding it: the restarted runtime's sweep publishes it", async () => {
    // A grace long enough that the sweep after the restart finds the job still LATE.
    const { token, entry } = await lateJob(30);
    // The process dies: its queue, and what was handed to it, are gone. The next one starts on the store.
    const restarted: LocalDeps = { ...t.deps, queue: new LocalQueue({ store: t.deps.queue.store, clock: t.clock, autoDrain: false, batchSize: 25 }) };
    consumeIncidentsAndAlerts(restarted, { handOffAlerts: true });
    expect(restarted.queue.holds(entry.id)).toBe(false);
    // Within the grace the outbox waits for a relay of the write's own; after it, the sweep relays.
    t.clock.advance(OUTBOX_GRACE_MS);
    await runSweep(restarted);
    expect((await storedMessages(restarted.queue)).map((message) => message.to)).toContain('LATE');
    await restarted.queue.drain();
    expect(await activeIncidents()).toHaveLength(1);
    expect(await outboxOf(token)).toEqual([]);
  });
});

describe('LocalQueue.handOff', () => {
  const queue = () => new LocalQueue({ store: t.deps.store, clock: t.clock, autoDrain: false, batchSize: 3 });
  const handed = (ids: string[], settled: string[][]) => ({
    messages: ids.map((id) => ({ id, body: { type: 'test', id } })),
    settle: vi.fn(async (handled: ReadonlySet<string>) => {
      settled.push([...handled]);
    }),
  });

  it('declines without a consumer in this process: the caller publishes', () => {
    expect(queue().handOff('incidents', handed(['a'], []))).toBe(false);
  });

  it('delivers hand-offs whole in batches, oldest first, and settles each in order with what its consumer finished', async () => {
    const lane = queue();
    const batches: string[][] = [];
    lane.consume('incidents', async (messages) => {
      batches.push(messages.map((message) => message.id));
      return { failedIds: messages.filter((message) => message.id === 'c').map((message) => message.id) };
    });
    const settled: string[][] = [];
    const offs = [handed(['a', 'b'], settled), handed(['c'], settled), handed(['d', 'e'], settled), handed(['f'], settled)];
    for (const off of offs) expect(lane.handOff('incidents', off)).toBe(true);
    expect(lane.peek('incidents')).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ type: 'test', id })));
    expect(['a', 'f'].map((id) => lane.holds(id))).toEqual([true, true]);
    await lane.drain();
    // A batch takes whole hand-offs up to its size: a, b, c fill the first; d, e and f the next.
    expect(batches).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    expect(settled).toEqual([['a', 'b'], [], ['d', 'e'], ['f']]);
    expect(['a', 'c', 'f'].map((id) => lane.holds(id))).toEqual([false, false, false]);
    expect(lane.peek('incidents')).toEqual([]);
  });

  it('settles every hand-off of a batch whose consumer threw, with nothing finished', async () => {
    const lane = queue();
    lane.consume('incidents', async () => {
      throw new Error('consumer down');
    });
    const settled: string[][] = [];
    lane.handOff('incidents', handed(['a'], settled));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await lane.drain();
    } finally {
      logged.mockRestore();
    }
    expect(settled).toEqual([[]]);
    expect(lane.holds('a')).toBe(false);
  });

  it("settles different items' hand-offs at once, and one item's in the order they came", async () => {
    const lane = queue();
    lane.consume('incidents', async () => ({ failedIds: [] }));
    const events: string[] = [];
    let openGate = (): void => undefined;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let otherSettled = (): void => undefined;
    const other = new Promise<void>((resolve) => (otherSettled = resolve));
    const off = (id: string, item: string, wait: Promise<void> | undefined, done?: () => void) => ({
      messages: [{ id, body: { type: 'test', id } }],
      item,
      settle: async () => {
        events.push(`start ${id}`);
        await wait;
        events.push(`end ${id}`);
        done?.();
      },
    });
    // x1 and x2 are one item's (its LATE, then its DOWN), y1 another's, all in one batch of three.
    lane.handOff('incidents', off('x1', 'x', gate));
    lane.handOff('incidents', off('x2', 'x', undefined));
    lane.handOff('incidents', off('y1', 'y', undefined, otherSettled));
    const drained = lane.drain();
    // y1 settles while x1's settle is still waiting (one after another, it would wait behind it)...
    await other;
    expect(events).toEqual(['start x1', 'start y1', 'end y1']);
    // ...and x2 only once x1's is done.
    openGate();
    await drained;
    expect(events).toEqual(['start x1', 'start y1', 'end y1', 'end x1', 'start x2', 'end x2']);
    expect(['x1', 'x2', 'y1'].map((id) => lane.holds(id))).toEqual([false, false, false]);
  });
});
