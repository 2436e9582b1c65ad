import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ulid } from 'ulid';
import { parseExposition, valueOf } from '../../../test/support/metrics.js';
import { ManualClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { installMetrics } from '../../metrics/install.js';
import { createLocalDeps, type LocalDeps } from '../../runtime.js';
import type { Store } from '../../store/service.js';
import { startEmbeddedStore, type EmbeddedStore } from './embeddedStore.js';

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
});
