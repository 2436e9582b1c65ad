import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './harness.js';
import { createCheck, expectStatus, inboundBody, LONG_SESSIONS, type User } from './support/checks.js';
import { sweep } from './support/windows.js';
import type { DashboardCheck } from '../core/checks/schema.js';
import { sinceOf, type SinceIncident } from '../web/src/checks/detail/since.js';

/**
 * The detail page's "since when" (web/src/checks/detail/since.ts), fed what the page reads over
 * HTTP (GET /checks/:id and the check's incidents) as a real job goes OK, DOWN, OK, paused, OK.
 */
let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('since');
});

async function pageSince(check: DashboardCheck) {
  const now = expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: user.token }), 200);
  const query = `checkId=${check.id}&workspaceId=${user.workspaceId}&limit=10`;
  const incidents = expectStatus(await t.request<{ items: SinceIncident[] }>('GET', `/incidents?${query}`, { token: user.token }), 200);
  return { check: now, incidents: incidents.items, since: sinceOf(now, incidents.items) };
}

async function ping(check: DashboardCheck): Promise<void> {
  expectStatus(await t.request('GET', `/signals/ping/${check.token}`), 200);
  await t.deps.queue.drain();
}

describe('since when, on the check detail page', () => {
  it('says only what the check and its incidents show', async () => {
    const check = await createCheck(t, user, inboundBody(user, { intervalSeconds: 300, graceSeconds: 30 }));
    expect((await pageSince(check)).since).toBeNull(); // NEW: nothing to claim

    t.clock.advanceSeconds(120);
    await ping(check);
    expect((await pageSince(check)).since).toEqual({ lead: 'no incident since it was created', at: check.createdAt });

    for (let i = 0; i < 4; i++) {
      t.clock.advanceSeconds(200);
      await sweep(t);
    }
    const down = await pageSince(check);
    expect(down.check.status).toBe('DOWN');
    expect(down.since).toEqual({ lead: 'since', at: down.incidents[0]?.startedAt });

    t.clock.advanceSeconds(60);
    const recoveredAt = t.clock.now().toISOString();
    await ping(check);
    const up = await pageSince(check);
    expect(up.check.status).toBe('OK');
    expect(up.incidents[0]).toMatchObject({ state: 'RESOLVED', recoveredAt });
    expect(up.since).toEqual({ lead: 'up since', at: recoveredAt });

    // After a pause the recovery no longer dates the current run of OK: only the resolution is claimed.
    t.clock.advanceSeconds(60);
    expectStatus(await t.request('PUT', `/checks/${check.id}/pause`, { token: user.token }), 200);
    const paused = await pageSince(check);
    expect(paused.since).toEqual({ lead: 'since', at: paused.check.updatedAt });
    t.clock.advanceSeconds(60);
    expectStatus(await t.request('PUT', `/checks/${check.id}/resume`, { token: user.token }), 200);
    expect((await pageSince(check)).since).toBeNull(); // RESUMED
    t.clock.advanceSeconds(60);
    await ping(check);
    const again = await pageSince(check);
    expect(again.check.status).toBe('OK');
    expect(again.since).toEqual({ lead: 'last incident resolved', at: again.incidents[0]?.resolvedAt });
  });
});
