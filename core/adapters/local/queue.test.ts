import { AsyncLocalStorage } from 'node:async_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { failOnce } from '../../../test/support/meter.js';
import { MAX_RECEIVE_COUNT, VISIBILITY_TIMEOUT_SECONDS, type QueueMessage } from '../../ports/index.js';
import { ensureTable } from '../../store/client.js';
import { createStore, type Store } from '../../store/service.js';
import { LocalQueue } from './queue.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

/** A runtime's queue on the test's table: a second one on the same table is the process after a restart. */
const runtime = () => new LocalQueue({ store: t.deps.store, clock: t.clock, autoDrain: false, random: () => 0 });

type Seen = QueueMessage & { receiveCount?: number };
/** Records what it receives and answers with `answer` (default: every message handled). */
function recorder(answer: (messages: QueueMessage[]) => { failedIds: string[]; retryAfterSeconds?: Record<string, number> } = () => ({ failedIds: [] })) {
  const seen: Seen[] = [];
  return {
    seen,
    consumer: async (messages: QueueMessage[]) => {
      seen.push(...messages);
      return answer(messages);
    },
  };
}

// Each test uses its own marker in the body and filters on it, since the queue lanes are shared by the file.
const mine = (seen: Seen[], marker: string) => seen.filter((m) => (m.body as { marker?: string }).marker === marker);

describe('the local queue keeps its messages in the store', () => {
  it('delivers what a dropped runtime published, and once its lease lapses what it had in flight', async () => {
    const before = runtime();
    await before.publish('alerts', [{ marker: 'published' }]);
    // "Crash": the instance is dropped without delivering anything.
    const after = runtime();
    const { seen, consumer } = recorder();
    after.consume('alerts', consumer);
    await after.deliverDue();
    expect(mine(seen, 'published')).toEqual([expect.objectContaining({ body: { marker: 'published' }, receiveCount: 1 })]);
    expect(await after.pending('alerts')).toEqual([]);

    // Received by a runtime that dies mid-delivery: its consumer never answers.
    const dying = runtime();
    dying.consume('alerts', () => new Promise(() => undefined));
    await dying.publish('alerts', [{ marker: 'in-flight' }]);
    void dying.deliverDue();
    await expect.poll(async () => (await dying.pending('alerts')).filter((m) => m.leased)).toHaveLength(1);

    const restarted = runtime();
    const second = recorder();
    restarted.consume('alerts', second.consumer);
    await restarted.deliverDue();
    await restarted.drain();
    expect(mine(second.seen, 'in-flight')).toEqual([]);
    t.clock.advanceSeconds(VISIBILITY_TIMEOUT_SECONDS);
    await restarted.deliverDue();
    expect(mine(second.seen, 'in-flight')).toEqual([expect.objectContaining({ receiveCount: 2 })]);
    expect(await restarted.pending('alerts')).toEqual([]);
  });

  it("lets a runtime that owns its store alone take back a dead runtime's leases at boot, without waiting out the timeout", async () => {
    const dying = runtime();
    dying.consume('alerts', () => new Promise(() => undefined));
    await dying.publish('alerts', [{ marker: 'leased-at-crash' }]);
    void dying.deliverDue();
    await expect.poll(async () => (await dying.pending('alerts')).filter((m) => m.leased)).toHaveLength(1);

    const restarted = runtime();
    const seen = recorder();
    restarted.consume('alerts', seen.consumer);
    expect(await restarted.reclaimLeases()).toBe(1);
    await restarted.deliverDue();
    expect(mine(seen.seen, 'leased-at-crash')).toEqual([expect.objectContaining({ receiveCount: 2 })]);
    expect(await restarted.pending('alerts')).toEqual([]);
    expect(await restarted.reclaimLeases()).toBe(0);
  });

  it(`dead-letters a poison message after ${MAX_RECEIVE_COUNT} receives, across restarts`, async () => {
    const { seen, consumer } = recorder((messages) => ({ failedIds: messages.map((m) => m.id) }));
    let queue = runtime();
    await queue.publish('incidents', [{ marker: 'poison' }]);
    for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++) {
      queue = runtime();
      queue.consume('incidents', consumer);
      await queue.deliverDue();
      t.clock.advanceSeconds(60 * 60);
    }
    expect(mine(seen, 'poison').map((m) => m.receiveCount)).toEqual([1, 2, 3, 4, 5]);
    expect(await queue.pending('incidents')).toEqual([]);
    expect((await queue.deadLettered('incidents')).filter((m) => (m.body as { marker?: string }).marker === 'poison')).toEqual([
      expect.objectContaining({ body: { marker: 'poison' }, receiveCount: MAX_RECEIVE_COUNT }),
    ]);
    expect(queue.deadLetters.incidents).toEqual([expect.objectContaining({ body: { marker: 'poison' } })]);
    await queue.deliverDue();
    expect(mine(seen, 'poison')).toHaveLength(MAX_RECEIVE_COUNT);
  });

  it('parks a message whose receivers all died, without delivering it again, and goes on to the next', async () => {
    const first = runtime();
    await first.publish('incidents', [{ marker: 'killer' }]);
    for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++) {
      const dying = runtime();
      dying.consume('incidents', () => new Promise(() => undefined));
      void dying.deliverDue();
      await expect.poll(async () => (await dying.pending('incidents')).find((m) => m.leased)?.receiveCount).toBe(receive);
      t.clock.advanceSeconds(VISIBILITY_TIMEOUT_SECONDS);
    }
    await first.publish('incidents', [{ marker: 'behind' }]);
    const survivor = runtime();
    const { seen, consumer } = recorder();
    survivor.consume('incidents', consumer);
    await survivor.deliverDue();
    expect(mine(seen, 'killer')).toEqual([]);
    expect(mine(seen, 'behind')).toHaveLength(1);
    expect((await survivor.deadLettered('incidents')).map((m) => m.body)).toContainEqual({ marker: 'killer' });
    expect(await survivor.pending('incidents')).toEqual([]);
  });

  it('holds a failed message back for its backoff, or the Retry-After its consumer reports, on the injected clock', async () => {
    let calls = 0;
    const { seen, consumer } = recorder((messages) => {
      calls++;
      return calls === 1
        ? { failedIds: messages.map((m) => m.id), retryAfterSeconds: Object.fromEntries(messages.map((m) => [m.id, 120])) }
        : calls === 2
          ? { failedIds: messages.map((m) => m.id) }
          : { failedIds: [] };
    });
    const queue = runtime();
    queue.consume('alerts', consumer);
    await queue.publish('alerts', [{ marker: 'delayed' }]);
    await queue.deliverDue();
    t.clock.advanceSeconds(119);
    await queue.deliverDue();
    expect(mine(seen, 'delayed')).toHaveLength(1);
    t.clock.advanceSeconds(1);
    await queue.deliverDue();
    expect(mine(seen, 'delayed')).toHaveLength(2);
    // The second failure has no Retry-After: backoff for a second receive, 30-60 s (jitter pinned to its low end).
    t.clock.advanceSeconds(29);
    await queue.deliverDue();
    expect(mine(seen, 'delayed')).toHaveLength(2);
    t.clock.advanceSeconds(1);
    await queue.deliverDue();
    expect(mine(seen, 'delayed').map((m) => m.receiveCount)).toEqual([1, 2, 3]);
    expect(queue.peek('alerts')).toEqual([]);
  });

  it('lets only one of two runtimes on one table receive a message', async () => {
    const a = runtime();
    const b = runtime();
    const first = recorder();
    const second = recorder();
    a.consume('incidents', first.consumer);
    b.consume('incidents', second.consumer);
    await a.publish(
      'incidents',
      Array.from({ length: 12 }, (_, i) => ({ marker: 'race', i })),
    );
    await Promise.all([a.deliverDue(), b.deliverDue(), a.deliverDue(), b.deliverDue()]);
    const received = [...mine(first.seen, 'race'), ...mine(second.seen, 'race')].map((m) => (m.body as { i: number }).i);
    expect(received.sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('keeps the test hooks: drain delivers retries at once, peek shows what waits', async () => {
    const queue = runtime();
    let failures = 2;
    const { seen, consumer } = recorder((messages) =>
      failures-- > 0 ? { failedIds: messages.map((m) => m.id), retryAfterSeconds: { [messages[0]!.id]: 600 } } : { failedIds: [] },
    );
    await queue.publish('alerts', [{ marker: 'hooks' }]);
    expect(queue.peek('alerts')).toEqual([{ marker: 'hooks' }]);
    queue.consume('alerts', consumer);
    await queue.drain();
    expect(mine(seen, 'hooks')).toHaveLength(3);
    expect(queue.peek('alerts')).toEqual([]);
  });

  it('delivers in its own async context, not in that of the request whose publish kicked it', async () => {
    const request = new AsyncLocalStorage<string>();
    const queue = new LocalQueue({ store: t.deps.store, clock: t.clock, autoDrain: true, random: () => 0 });
    let resolveSeen: (context: string | undefined) => void = () => undefined;
    const seenIn = new Promise<string | undefined>((resolve) => (resolveSeen = resolve));
    queue.consume('alerts', async (messages) => {
      if (messages.some((m) => (m.body as { marker?: string }).marker === 'kicked')) resolveSeen(request.getStore());
      return { failedIds: [] };
    });
    await request.run('a ping request', () => queue.publish('alerts', [{ marker: 'kicked' }]));
    // Run by the kick alone (autoDrain), and outside the publisher's context.
    expect(await seenIn).toBeUndefined();
  });
});

describe('a store failure in one part of a delivery pass', () => {
  // Lanes of their own: what earlier tests left in the shared ones (lapsed leases, a runtime still
  // delivering) would join or take these passes' messages.
  let lanes: Store;
  beforeAll(async () => {
    const table = `${t.deps.store.table}_failures`;
    await ensureTable(t.deps.store.client, table);
    lanes = createStore(t.deps.store.client, table);
  });
  const isolated = () => new LocalQueue({ store: lanes, clock: t.clock, autoDrain: false, random: () => 0 });

  it("ends the pass only once the other queue's consumer is done, so the next pass never runs beside it", async () => {
    const queue = isolated();
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let alertsDone = false;
    queue.consume('alerts', async (messages) => {
      if (mine(messages, 'held').length > 0) {
        await gate;
        alertsDone = true;
      }
      return { failedIds: [] };
    });
    queue.consume('incidents', recorder().consumer);
    await queue.publish('alerts', [{ marker: 'held' }]);
    await queue.publish('incidents', [{ marker: 'acked' }]);
    // The incidents part's acknowledgement fails while the alerts consumer is still at work; it finishes a moment later.
    const failure = failOnce(lanes, (command, input) => command === 'BatchWriteItemCommand' && input.includes('DeleteRequest') && input.includes('incidents'), openGate);
    try {
      await expect(queue.drain()).rejects.toThrow('injected store failure');
    } finally {
      failure.remove();
    }
    expect(failure.fired()).toBe(true);
    // Promise.all rejected here with the alerts consumer still holding its message's lease.
    expect(alertsDone).toBe(true);
    expect((await queue.pending('alerts')).filter((m) => m.body.includes('"held"'))).toEqual([]);
  });

  it('still handles the messages it leased when another lease of the batch failed', async () => {
    const queue = isolated();
    const { seen, consumer } = recorder();
    queue.consume('incidents', consumer);
    await queue.publish('incidents', [{ marker: 'lease' }, { marker: 'lease' }]);
    const failure = failOnce(lanes, (command, input) => command === 'UpdateItemCommand' && input.includes('incidents') && input.includes('leased'));
    try {
      await expect(queue.drain()).rejects.toThrow('injected store failure');
    } finally {
      failure.remove();
    }
    expect(mine(seen, 'lease')).toHaveLength(1);
    // The message whose lease failed was never leased: the next pass takes it, and nothing stays leased.
    await queue.drain();
    expect(mine(seen, 'lease')).toHaveLength(2);
    expect((await queue.pending('incidents')).filter((m) => m.body.includes('"lease"'))).toEqual([]);
  });
});
