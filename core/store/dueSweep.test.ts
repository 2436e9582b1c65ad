import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { notYetDue, sweepDue, type DueSweep } from './dueSweep.js';
import type { DeploymentItem } from './entities/deployment.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

/** Deployments in a shard of the test's own, due at the given offsets (minutes) from now. */
async function dueDeployments(shard: string, offsets: number[]): Promise<number[]> {
  const now = t.clock.now().getTime();
  const ids: number[] = [];
  for (const minutes of offsets) {
    const deploymentId = await t.deps.store.nextId('deployment');
    const iso = new Date(now + minutes * 60_000).toISOString();
    await t.deps.store.entities.deployment
      .create({
        deploymentId,
        workspaceId: 1,
        projectId: 1,
        status: 'ACTIVE',
        autoPause: false,
        autoPausedCheckIds: [],
        startedAt: iso,
        dueShard: shard,
        dueAt: iso,
        createdAt: iso,
        updatedAt: iso,
      })
      .go();
    ids.push(deploymentId);
  }
  return ids;
}

/** A sweep over that shard whose handler records what it saw and fails on the ids in `failing`. */
function sweepOf(shard: string, now: Date, failing: ReadonlySet<number>, extra: Partial<DueSweep<DeploymentItem>> = {}) {
  const handled: number[] = [];
  const entity = t.deps.store.entities.deployment;
  const sweep: DueSweep<DeploymentItem> = {
    name: 'test sweep',
    shards: [shard],
    page: (dueShard, cursor, limit) => entity.query.byDue({ dueShard }).lte({ dueAt: now.toISOString() }).go({ cursor, limit }),
    reread: async (stale) => {
      const item = (await entity.get({ deploymentId: stale.deploymentId }).go({ consistent: true })).data;
      return item && !notYetDue(item.dueAt, now) ? item : null;
    },
    handle: async (item) => {
      if (failing.has(item.deploymentId)) throw new Error(`deployment ${item.deploymentId} is broken`);
      handled.push(item.deploymentId);
      await entity.patch({ deploymentId: item.deploymentId }).remove(['dueShard', 'dueAt']).go();
    },
    label: (item) => `deployment ${item.deploymentId}`,
    ...extra,
  };
  return { sweep, handled };
}

describe('sweepDue', () => {
  it('reads only what is due, handles each item, and counts read, handled and failed', async () => {
    const [a, b, broken, later] = await dueDeployments('due-test#1', [-3, -2, -1, 5]);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { sweep, handled } = sweepOf('due-test#1', t.clock.now(), new Set([broken ?? 0]));
    const report = await sweepDue(sweep);
    expect(error).toHaveBeenCalledWith(`test sweep: deployment ${broken} failed`, expect.any(Error));
    error.mockRestore();
    expect(report).toEqual({ read: 3, handled: 2, failed: 1 });
    expect(handled.sort()).toEqual([a, b].sort());
    expect(handled).not.toContain(later);
  });

  it('keeps going past a failing item on every page and at any concurrency, and the failed item stays due', async () => {
    const ids = await dueDeployments('due-test#2', [-9, -8, -7, -6, -5, -4, -3]);
    const failing = new Set([ids[1] ?? 0, ids[5] ?? 0]);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { sweep, handled } = sweepOf('due-test#2', t.clock.now(), failing, { pageSize: 2, concurrency: 3 });
    const first = await sweepDue(sweep);
    expect(first).toEqual({ read: 7, handled: 5, failed: 2 });
    expect(handled.sort()).toEqual(ids.filter((id) => !failing.has(id)).sort());
    // The next sweep finds only the two that failed, and handles them once they work.
    const again = sweepOf('due-test#2', t.clock.now(), new Set());
    expect(await sweepDue(again.sweep)).toEqual({ read: 2, handled: 2, failed: 0 });
    expect(again.handled.sort()).toEqual([...failing].sort());
    error.mockRestore();
  });

  it('skips an item that the consistent re-read finds no longer due (the index lagged)', async () => {
    const [moved, due] = await dueDeployments('due-test#3', [-2, -1]);
    const now = t.clock.now();
    // Moved ahead in the table; a sweep that reads the index before it catches up still finds the entry.
    const stale = (await t.deps.store.entities.deployment.get({ deploymentId: moved ?? 0 }).go()).data;
    await t.deps.store.entities.deployment
      .patch({ deploymentId: moved ?? 0 })
      .set({ dueAt: new Date(now.getTime() + 3_600_000).toISOString() })
      .go();
    const { sweep, handled } = sweepOf('due-test#3', now, new Set(), {
      page: async () => ({ data: [stale, (await t.deps.store.entities.deployment.get({ deploymentId: due ?? 0 }).go()).data].flatMap((d) => (d ? [d] : [])), cursor: null }),
    });
    expect(await sweepDue(sweep)).toEqual({ read: 2, handled: 1, failed: 0 });
    expect(handled).toEqual([due]);
  });

  it('reads every shard it is given', async () => {
    const [one] = await dueDeployments('due-test#4a', [-1]);
    const [two] = await dueDeployments('due-test#4b', [-1]);
    const { sweep, handled } = sweepOf('unused', t.clock.now(), new Set(), { shards: ['due-test#4a', 'due-test#4b'] });
    expect(await sweepDue(sweep)).toEqual({ read: 2, handled: 2, failed: 0 });
    expect(handled.sort()).toEqual([one, two].sort());
  });
});
