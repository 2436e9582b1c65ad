import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import type { WindowHoldItem } from '../store/entities/windowHold.js';
import { deleteHolds, putHolds } from './holdStore.js';
import { effectsOf, holdCovers, NO_WINDOW, windowEffects } from './holds.js';

const hold = (over: Partial<WindowHoldItem>): WindowHoldItem => ({
  projectId: 1,
  kind: 'MAINTENANCE',
  windowId: 1,
  workspaceId: 7,
  startsAt: '2026-03-01T10:00:00.000Z',
  endsAt: '2026-03-01T11:00:00.000Z',
  suppressIncidents: true,
  suppressAlerts: false,
  ...over,
});
const at = (iso: string) => new Date(iso);

describe('effectsOf', () => {
  it('covers [startsAt, endsAt): inclusive start, exclusive end, open-ended without endsAt', () => {
    expect(holdCovers(hold({}), at('2026-03-01T09:59:59.999Z'))).toBe(false);
    expect(holdCovers(hold({}), at('2026-03-01T10:00:00.000Z'))).toBe(true);
    expect(holdCovers(hold({}), at('2026-03-01T10:59:59.999Z'))).toBe(true);
    expect(holdCovers(hold({}), at('2026-03-01T11:00:00.000Z'))).toBe(false);
    expect(holdCovers(hold({ endsAt: undefined }), at('2030-01-01T00:00:00.000Z'))).toBe(true);
  });

  it('ORs the flags of covering holds, maps deployments to deploymentActive, ignores other workspaces', () => {
    const now = at('2026-03-01T10:30:00.000Z');
    const holds = [
      hold({ windowId: 1, suppressIncidents: true, suppressAlerts: false }),
      hold({ windowId: 2, suppressIncidents: false, suppressAlerts: true }),
      hold({ windowId: 3, kind: 'DEPLOYMENT', suppressIncidents: false, endsAt: undefined }),
    ];
    expect(effectsOf(holds, 7, now)).toEqual({ deploymentActive: true, suppressIncidents: true, suppressAlerts: true });
    expect(effectsOf(holds, 8, now)).toEqual(NO_WINDOW);
    expect(effectsOf(holds.slice(1), 7, now)).toEqual({ deploymentActive: true, suppressIncidents: false, suppressAlerts: true });
    expect(effectsOf(holds, 7, at('2026-03-01T12:00:00.000Z'))).toEqual({ deploymentActive: true, suppressIncidents: false, suppressAlerts: false });
  });
});

describe('windowEffects over the store', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });

  it('reads one project partition; no project means no window; deleted holds stop at once', async () => {
    const now = at('2026-03-01T10:30:00.000Z');
    await putHolds(t.deps, [501, 502], {
      kind: 'MAINTENANCE',
      windowId: 9,
      workspaceId: 7,
      startsAt: '2026-03-01T10:00:00.000Z',
      endsAt: '2026-03-01T11:00:00.000Z',
      suppressIncidents: true,
      suppressAlerts: true,
    });
    await putHolds(t.deps, [502], { kind: 'DEPLOYMENT', windowId: 9, workspaceId: 7, startsAt: '2026-03-01T10:00:00.000Z', suppressIncidents: false, suppressAlerts: false });
    expect(await windowEffects(t.deps, { workspaceId: 7, projectId: 501 }, now)).toEqual({ deploymentActive: false, suppressIncidents: true, suppressAlerts: true });
    expect(await windowEffects(t.deps, { workspaceId: 7, projectId: 502 }, now)).toEqual({ deploymentActive: true, suppressIncidents: true, suppressAlerts: true });
    expect(await windowEffects(t.deps, { workspaceId: 8, projectId: 501 }, now)).toEqual(NO_WINDOW);
    expect(await windowEffects(t.deps, { workspaceId: 7, projectId: null }, now)).toEqual(NO_WINDOW);
    expect(await windowEffects(t.deps, { workspaceId: 7, projectId: 503 }, now)).toEqual(NO_WINDOW);

    await deleteHolds(t.deps, [501, 502], { kind: 'MAINTENANCE', windowId: 9 });
    expect(await windowEffects(t.deps, { workspaceId: 7, projectId: 501 }, now)).toEqual(NO_WINDOW);
    expect(await windowEffects(t.deps, { workspaceId: 7, projectId: 502 }, now)).toEqual({ deploymentActive: true, suppressIncidents: false, suppressAlerts: false });
    // Writing many projects at once goes through in batches.
    const many = Array.from({ length: 60 }, (_, i) => 1000 + i);
    await putHolds(t.deps, many, {
      kind: 'MAINTENANCE',
      windowId: 10,
      workspaceId: 7,
      startsAt: '2026-03-01T10:00:00.000Z',
      endsAt: '2026-03-01T11:00:00.000Z',
      suppressIncidents: true,
      suppressAlerts: false,
    });
    expect((await windowEffects(t.deps, { workspaceId: 7, projectId: 1059 }, now)).suppressIncidents).toBe(true);
    await deleteHolds(t.deps, many, { kind: 'MAINTENANCE', windowId: 10 });
    expect((await windowEffects(t.deps, { workspaceId: 7, projectId: 1059 }, now)).suppressIncidents).toBe(false);
  });
});
