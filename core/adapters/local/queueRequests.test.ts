import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../clock.js';
import { MAX_RECEIVE_COUNT, type QueueMessage } from '../../ports/index.js';
import { createDynamoClient, ensureTable } from '../../store/client.js';
import { createStore, type Store } from '../../store/service.js';
import { startEmbeddedStore, type EmbeddedStore } from './embeddedStore.js';
import { LocalQueue } from './queue.js';
import { failOnce, meterStore } from '../../../test/support/meter.js';

/**
 * What the local queue costs in store requests. In the embedded runtime each request costs the one
 * busy thread most of a millisecond of CPU, and a mass outage moves thousands of messages: so a
 * batch is leased and acknowledged in one request, and concurrent publishes share theirs
 * (core/adapters/local/queueWrites.ts). A queue store of its own, in memory, as `npm start` has one.
 */
let lanesStore: EmbeddedStore;
let store: Store;
const clock = new ManualClock('2026-03-01T12:00:00.000Z');
beforeAll(async () => {
  lanesStore = await startEmbeddedStore(':memory:');
  const client = createDynamoClient({ endpoint: lanesStore.endpoint });
  await ensureTable(client, 'queue_requests');
  store = createStore(client, 'queue_requests');
});
afterAll(() => lanesStore.close());

const queueOf = (ownsStore: boolean) => new LocalQueue({ store, clock, autoDrain: false, batchSize: 25, random: () => 0, ownsStore });

/** The store requests made from now on, by command (`BatchWriteItem`, `UpdateItem`, ...), to either of its clients. */
function meter(): { count: (command: string) => number; stop(): void } {
  const metered = meterStore(store);
  return { count: (command) => metered.requests.filter((request) => request.command === command).length, stop: metered.stop };
}

const bodies = (count: number, marker: string) => Array.from({ length: count }, (_, i) => ({ marker, i }));
const handled = (seen: QueueMessage[]) => async (messages: QueueMessage[]) => {
  seen.push(...messages);
  return { failedIds: [] };
};
const leftIn = async (queue: LocalQueue) => [...(await queue.pending('incidents')), ...(await queue.pending('alerts'))];

describe('the store requests of the local queue', () => {
  it('acknowledges a handled batch of 25 in one request, on a store another runtime may share', async () => {
    const queue = queueOf(false);
    const seen: QueueMessage[] = [];
    queue.consume('incidents', handled(seen));
    await queue.publish('incidents', bodies(25, 'shared'));
    const requests = meter();
    try {
      await queue.deliverDue();
    } finally {
      requests.stop();
    }
    expect(seen).toHaveLength(25);
    expect(await leftIn(queue)).toEqual([]);
    // Leases stay conditional, one each, since another runtime may race for the message.
    expect(requests.count('UpdateItem')).toBe(25);
    expect(requests.count('DeleteItem')).toBe(0);
    expect(requests.count('BatchWriteItem')).toBe(1);
  });

  it('leases and acknowledges a batch of 25 in one request each when it owns its store', async () => {
    const queue = queueOf(true);
    const seen: QueueMessage[] = [];
    queue.consume('incidents', handled(seen));
    await queue.publish('incidents', bodies(25, 'owned'));
    const requests = meter();
    try {
      await queue.deliverDue();
    } finally {
      requests.stop();
    }
    expect(seen.map((m) => m.receiveCount)).toEqual(Array.from({ length: 25 }, () => 1));
    expect(seen.map((m) => (m.body as { i: number }).i)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(await leftIn(queue)).toEqual([]);
    expect(requests.count('UpdateItem') + requests.count('DeleteItem')).toBe(0);
    expect(requests.count('BatchWriteItem')).toBe(2);
  });

  it('lets concurrent publishes share their requests, each resolving once its message is stored', async () => {
    const queue = queueOf(true);
    const requests = meter();
    try {
      // A consumer's batch publishes one message a call, all at once: the first call goes alone, the rest share the next request.
      await Promise.all(bodies(25, 'grouped').map((body) => queue.publish('alerts', [body])));
    } finally {
      requests.stop();
    }
    expect(requests.count('BatchWriteItem')).toBe(2);
    expect((await queue.pending('alerts')).map((m) => (JSON.parse(m.body) as { i: number }).i).sort((a, b) => a - b)).toEqual(bodies(25, '').map((b) => b.i));
    const seen: QueueMessage[] = [];
    queue.consume('alerts', handled(seen));
    await queue.drain();
    expect(seen).toHaveLength(25);
  });

  it('rejects only the publishes whose shared request failed; the others are stored', async () => {
    const queue = queueOf(true);
    // The first publish finds the writer idle and goes alone; the rest wait and share the request that fails.
    const failure = failOnce(store, (command, input) => command === 'BatchWriteItemCommand' && input.includes('\\"i\\":1}'));
    let outcomes: PromiseSettledResult<void>[];
    try {
      outcomes = await Promise.allSettled(bodies(4, 'rejected').map((body) => queue.publish('alerts', [body])));
    } finally {
      failure.remove();
    }
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect((await queue.pending('alerts')).map((m) => JSON.parse(m.body) as unknown)).toEqual([{ marker: 'rejected', i: 0 }]);
    expect(queue.peek('alerts')).toEqual([{ marker: 'rejected', i: 0 }]);
    queue.consume('alerts', handled([]));
    await queue.drain();
  });

  it('leaves nothing leased when a batch lease fails: the next pass takes every message', async () => {
    const queue = queueOf(true);
    const seen: QueueMessage[] = [];
    queue.consume('incidents', handled(seen));
    await queue.publish('incidents', bodies(3, 'lease'));
    const failure = failOnce(store, (command, input) => command === 'BatchWriteItemCommand' && input.includes('"leased":{"BOOL":true}'));
    try {
      await expect(queue.drain()).rejects.toThrow('injected store failure');
    } finally {
      failure.remove();
    }
    expect(seen).toEqual([]);
    await queue.drain();
    expect(seen.map((m) => m.receiveCount)).toEqual([1, 1, 1]);
    expect(await leftIn(queue)).toEqual([]);
  });

  it(`still dead-letters a message that kills the process, after ${MAX_RECEIVE_COUNT} receives, when leases are batched`, async () => {
    const first = queueOf(true);
    await first.publish('incidents', [{ marker: 'killer' }]);
    for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++) {
      // Each boot takes back the dead process's lease (as core/localServer.ts does), then dies in the consumer.
      const dying = queueOf(true);
      await dying.reclaimLeases();
      dying.consume('incidents', () => new Promise(() => undefined));
      void dying.deliverDue();
      await expect.poll(async () => (await dying.pending('incidents')).find((m) => m.leased)?.receiveCount).toBe(receive);
    }
    await first.publish('incidents', [{ marker: 'behind' }]);
    const survivor = queueOf(true);
    expect(await survivor.reclaimLeases()).toBe(1);
    const seen: QueueMessage[] = [];
    survivor.consume('incidents', handled(seen));
    await survivor.deliverDue();
    expect(seen.map((m) => m.body)).toEqual([{ marker: 'behind' }]);
    expect((await survivor.deadLettered('incidents')).map((m) => m.body)).toEqual([{ marker: 'killer' }]);
    expect(await leftIn(survivor)).toEqual([]);
  });

  it('asks for a lane found empty again only after a publish to it, or at the poll', async () => {
    // The poll's interval is the one timer moved by hand; the store's own timers run.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const queue = new LocalQueue({ store, clock, autoDrain: true, batchSize: 25, random: () => 0, ownsStore: true, pollMs: 1000 });
    const seen: QueueMessage[] = [];
    let failNext = false;
    queue.consume('incidents', handled(seen));
    queue.consume('alerts', async (messages) => {
      seen.push(...messages);
      if (!failNext) return { failedIds: [] };
      failNext = false;
      return { failedIds: messages.map((m) => m.id), retryAfterSeconds: Object.fromEntries(messages.map((m) => [m.id, 60])) };
    });
    const requests = meter();
    const handOff = async (i: number) => {
      expect(queue.handOff('incidents', { messages: [{ id: `handed-${i}`, body: { marker: 'handed', i } }], settle: async () => {} })).toBe(true);
      await queue.idle();
    };
    try {
      queue.start();
      await queue.idle();
      for (let i = 0; i < 10; i++) await handOff(i);
      expect(seen.map((m) => m.id)).toEqual(Array.from({ length: 10 }, (_, i) => `handed-${i}`));
      // The start's pass found both lanes empty: the ten passes the hand-offs started asked nothing.
      expect(requests.count('Query')).toBe(2);

      // A publish: its lane is asked (one answer with the message, one empty), the other is not.
      failNext = true;
      await queue.publish('alerts', [{ marker: 'retried' }]);
      await queue.idle();
      expect(requests.count('Query')).toBe(4);
      expect(seen.filter((m) => (m.body as { marker: string }).marker === 'retried')).toHaveLength(1);

      // Its retry falls due with the clock; a pass a hand-off starts does not look, the poll does.
      clock.advanceSeconds(61);
      await handOff(10);
      expect(requests.count('Query')).toBe(4);
      vi.advanceTimersByTime(1000);
      await queue.idle();
      expect(seen.filter((m) => (m.body as { marker: string }).marker === 'retried').map((m) => m.receiveCount)).toEqual([1, 2]);
      expect(await leftIn(queue)).toEqual([]);
    } finally {
      requests.stop();
      await queue.stop();
      vi.useRealTimers();
    }
  });
});
