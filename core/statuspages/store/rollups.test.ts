import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { LONG_SESSIONS } from '../../../test/support/checks.js';
import { componentUptime } from '../public/view.js';
import { DAY_MS, utcDate } from '../uptime.js';
import { recordStatusInterval } from './rollups.js';
import { refreshSnapshot } from './snapshot.js';
import { checkComponent, createPage, type User } from '../../../test/support/statuspages.js';

let t: TestContext;
let user: User;
const counts = { on: false, requests: 0 };
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
  // As bench/run.ts `meter`: every SDK request of the store's client, while on.
  t.deps.store.client.middlewareStack.add(
    (next) => async (args) => {
      if (counts.on) counts.requests++;
      return next(args);
    },
    { step: 'initialize', name: 'uptimeMeter' },
  );
});

async function rollupsOf(checkId: number) {
  return (await t.deps.store.entities.uptimeRollup.query.byCheck({ checkId }).go({ pages: 'all' })).data;
}

describe('uptime rollups in the store', () => {
  it('reads 365 days of a component with at most 2 requests', async () => {
    const page = await createPage(t, user, { uptimeHistoryDays: 365 });
    const { check, component } = await checkComponent(t, user, page.id);
    // The component existed for the whole year: backdate it, and a year of closed days.
    await t.deps.store.entities.statusComponent
      .patch({ statusPageId: page.id, componentId: component.id })
      .set({ createdAt: new Date(t.clock.now().getTime() - 400 * DAY_MS).toISOString() })
      .go();
    const today = Math.floor(t.clock.now().getTime() / DAY_MS);
    const items = Array.from({ length: 365 }, (_, i) => ({
      checkId: check.id,
      date: utcDate((today - 364 + i) * DAY_MS),
      observedSeconds: 86_400,
      downSeconds: i % 10 === 0 ? 864 : 0,
      maintenanceSeconds: 0,
      maintenanceDownSeconds: 0,
    }));
    await t.deps.store.entities.uptimeRollup.put(items).go();
    const snapshot = await refreshSnapshot(t.deps, page.id);
    const shown = snapshot?.components.find((c) => c.id === component.id);
    if (!snapshot || !shown) throw new Error('no snapshot');
    counts.requests = 0;
    counts.on = true;
    const read = await componentUptime(t.deps, snapshot, shown, 365, 0, t.clock.now());
    counts.on = false;
    expect(counts.requests).toBeLessThanOrEqual(2);
    expect(read.days).toHaveLength(365);
    expect(read.days.filter((d) => d.uptime === null)).toHaveLength(0);
    expect(read.days[0]?.uptime).toBeCloseTo(0.99, 5);
    expect(read.uptime).toBeGreaterThan(0.99);
  });

  it('adds a closed interval once, whatever is redelivered', async () => {
    const page = await createPage(t, user);
    const { check } = await checkComponent(t, user, page.id);
    const at = (seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000).toISOString();
    const base = { checkId: check.id, projectId: user.projectId };
    await recordStatusInterval(t.deps, { ...base, from: 'NEW', to: 'OK', at: at(0) });
    const down = { ...base, from: 'OK' as const, to: 'DOWN' as const, at: at(600) };
    await recordStatusInterval(t.deps, down);
    const up = { ...base, from: 'DOWN' as const, to: 'OK' as const, at: at(900) };
    await recordStatusInterval(t.deps, up);
    const once = await rollupsOf(check.id);
    // The same messages again, and a replay from before the cursor moved (a crash between the ADDs and the cursor).
    await recordStatusInterval(t.deps, down);
    await recordStatusInterval(t.deps, up);
    await t.deps.store.entities.uptimeCursor
      .patch({ checkId: check.id })
      .set({ state: 'DOWN', since: at(600) })
      .go();
    await recordStatusInterval(t.deps, up);
    const again = await rollupsOf(check.id);
    const counters = (items: typeof once) => items.map(({ date, observedSeconds, downSeconds }) => ({ date, observedSeconds, downSeconds }));
    expect(counters(again)).toEqual(counters(once));
    expect(counters(once)).toEqual([{ date: '2026-03-01', observedSeconds: 900, downSeconds: 300 }]);
  });

  it('adds a late stretch to the up time it belongs to, closing nothing at LATE', async () => {
    const page = await createPage(t, user);
    const { check } = await checkComponent(t, user, page.id);
    const at = (seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000).toISOString();
    const base = { checkId: check.id, projectId: user.projectId };
    await recordStatusInterval(t.deps, { ...base, from: 'NEW', to: 'OK', at: at(0) });
    // Still observed up: no interval closes, and the cursor stays where the up time began.
    expect(await recordStatusInterval(t.deps, { ...base, from: 'OK', to: 'LATE', at: at(300) })).toBe(false);
    expect(await recordStatusInterval(t.deps, { ...base, from: 'LATE', to: 'OK', at: at(400) })).toBe(false);
    expect(await recordStatusInterval(t.deps, { ...base, from: 'OK', to: 'LATE', at: at(500) })).toBe(false);
    expect((await t.deps.store.entities.uptimeCursor.get({ checkId: check.id }).go()).data).toMatchObject({ state: 'UP', since: at(0) });
    await recordStatusInterval(t.deps, { ...base, from: 'LATE', to: 'DOWN', at: at(600) });
    await recordStatusInterval(t.deps, { ...base, from: 'DOWN', to: 'OK', at: at(900) });
    const counters = (await rollupsOf(check.id)).map(({ date, observedSeconds, downSeconds }) => ({ date, observedSeconds, downSeconds }));
    expect(counters).toEqual([{ date: '2026-03-01', observedSeconds: 900, downSeconds: 300 }]);
  });

  it('maintenance on the project excuses down time and never lowers the day', async () => {
    const page = await createPage(t, user);
    const { check } = await checkComponent(t, user, page.id);
    const now = t.clock.now().getTime();
    const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();
    await t.deps.store.entities.windowHold
      .create({
        projectId: user.projectId,
        kind: 'MAINTENANCE',
        windowId: 424242,
        workspaceId: user.workspaceId,
        startsAt: at(0),
        endsAt: at(3600),
        suppressAlerts: true,
        suppressIncidents: true,
      })
      .go();
    const base = { checkId: check.id, projectId: user.projectId };
    await recordStatusInterval(t.deps, { ...base, from: 'NEW', to: 'DOWN', at: at(0) });
    await recordStatusInterval(t.deps, { ...base, from: 'DOWN', to: 'OK', at: at(1800) });
    const [day] = await rollupsOf(check.id);
    expect(day).toMatchObject({ observedSeconds: 1800, downSeconds: 0, maintenanceSeconds: 1800, maintenanceDownSeconds: 1800 });
    await t.deps.store.entities.windowHold.delete({ projectId: user.projectId, kind: 'MAINTENANCE', windowId: 424242 }).go();
  });
});
