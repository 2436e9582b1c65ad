import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ulid } from 'ulid';
import { parseExposition, valueOf } from '../../../test/support/metrics.js';
import { ManualClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { installMetrics } from '../../metrics/install.js';
import type { QueueName } from '../../ports/index.js';
import { createLocalDeps, type LocalDeps } from '../../runtime.js';
import type { Store } from '../../store/service.js';
import { startEmbeddedStore, type EmbeddedStore } from './embeddedStore.js';
import { deadLetterLane, LocalQueue } from './queue.js';
import { moveQueueLanes } from './queueMove.js';

/** The queue lanes in a store of their own (as `npm start` runs them), beside the suite's main store. */
let lanesStore: EmbeddedStore;
let deps: LocalDeps;
beforeAll(async () => {
  lanesStore = await startEmbeddedStore(':memory:');
  deps = await createLocalDeps({
    config: loadConfig({ VIGIL_TABLE_NAME: `t_${ulid()}` }),
    endpoint: inject('dynamoEndpoint'),
    queueEndpoint: lanesStore.endpoint,
    clock: new ManualClock('2026-03-01T12:00:00.000Z'),
    autoDrain: false,
  });
});
afterAll(() => lanesStore.close());

/** What a lane holds in `store`, whoever wrote it. */
const inLane = async (store: Store, lane: string) => (await store.entities.queueMessage.query.byId({ lane }).go({ pages: 'all', consistent: true })).data;
const markers = (items: { body: string }[]) => items.map((item) => (JSON.parse(item.body) as { marker?: string }).marker);

describe('queue lanes in a store of their own', () => {
  it('keeps published messages there, not in the main store, and the metrics count them there', async () => {
    expect(deps.queue.store).not.toBe(deps.store);
    await deps.queue.publish('incidents', [{ marker: 'own-store' }]);
    expect(markers(await inLane(deps.queue.store, 'incidents'))).toEqual(['own-store']);
    expect(await inLane(deps.store, 'incidents')).toEqual([]);

    const families = parseExposition((await installMetrics(deps)).body);
    expect(valueOf(families, 'vigil_queue_messages', { queue: 'incidents' })).toBe(1);

    const seen: unknown[] = [];
    deps.queue.consume('incidents', async (messages) => {
      seen.push(...messages.map((m) => m.body));
      return { failedIds: [] };
    });
    await deps.queue.drain();
    expect(seen).toEqual([{ marker: 'own-store' }]);
    expect(await deps.queue.pending('incidents')).toEqual([]);
  });

  it('takes over what a run before them left in the main store: pending, in flight and dead letters, once', async () => {
    // The layout before: the lanes in the main store.
    const before = new LocalQueue({ store: deps.store, clock: deps.clock, autoDrain: false, maxReceives: 1, random: () => 0 });
    await before.publish('alerts', [{ marker: 'poison' }]);
    before.consume('alerts', async (messages) => ({ failedIds: messages.map((m) => m.id) }));
    await before.deliverDue();
    await before.publish('incidents', [{ marker: 'in-flight' }]);
    before.consume('incidents', () => new Promise(() => undefined));
    void before.deliverDue();
    await expect.poll(async () => (await before.pending('incidents')).filter((m) => m.leased)).toHaveLength(1);
    // Published while that delivery hangs: nothing receives it before the restart.
    await before.publish('alerts', [{ marker: 'waiting' }]);
    expect(await before.deadLettered('alerts')).toHaveLength(1);

    expect(await moveQueueLanes(deps.store, deps.queue.store)).toBe(3);
    for (const lane of ['alerts', 'incidents', deadLetterLane('alerts')]) expect(await inLane(deps.store, lane)).toEqual([]);
    expect(markers(await inLane(deps.queue.store, deadLetterLane('alerts')))).toEqual(['poison']);
    expect(await moveQueueLanes(deps.store, deps.queue.store)).toBe(0);

    // The restarted runtime takes back the dead one's lease and delivers both.
    const seen: Partial<Record<QueueName, unknown[]>> = {};
    for (const queue of ['alerts', 'incidents'] as const) {
      deps.queue.consume(queue, async (messages) => {
        (seen[queue] ??= []).push(...messages.map((m) => m.body));
        return { failedIds: [] };
      });
    }
    expect(await deps.queue.reclaimLeases()).toBe(1);
    await deps.queue.deliverDue();
    expect(seen).toEqual({ alerts: [{ marker: 'waiting' }], incidents: [{ marker: 'in-flight' }] });
    expect((await deps.queue.deadLettered('alerts')).map((m) => ({ body: m.body, receiveCount: m.receiveCount }))).toEqual([{ body: { marker: 'poison' }, receiveCount: 1 }]);
  });
});
