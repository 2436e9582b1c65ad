import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../test/support/checks.js';
import { runSweep } from '../sweep/index.js';
import type { AnnouncementView } from './schema.js';
import type { PublicPage } from './public/view.js';
import { checkComponent, createComponent, createPage, expectStatus, type User } from '../../test/support/statuspages.js';

let t: TestContext;
let user: User;
let ip = 0;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
});
beforeEach(() => freshRateWindow(t));

const inHours = (hours: number) => new Date(t.clock.now().getTime() + hours * 3_600_000).toISOString();
const publicView = async (slug: string) =>
  expectStatus(await t.request<PublicPage>('GET', `/public/status/${slug}`, { headers: { 'x-test-ip': `198.18.9.${(++ip % 250) + 1}` } }), 200);
const announcements = async (pageId: number) => expectStatus(await t.request<AnnouncementView[]>('GET', `/status-pages/${pageId}/announcements`, { token: user.token }), 200);

describe('maintenance windows with autoPublishToStatusPage', () => {
  it('publish one scheduled maintenance per page showing their projects, keep it in step, resolve it on cancel', async () => {
    const byCheck = await createPage(t, user);
    const { component: checkComp } = await checkComponent(t, user, byCheck.id);
    const byProject = await createPage(t, user);
    const projectComp = await createComponent(t, user, byProject.id, { name: 'Everything', projectId: user.projectId });
    const unrelated = await createPage(t, user);

    const window = expectStatus(
      await t.request<{ id: number }>('POST', '/maintenance-windows', {
        token: user.token,
        body: {
          workspaceId: user.workspaceId,
          name: 'internal: rotate db creds',
          description: 'secret runbook',
          startAt: inHours(1),
          endAt: inHours(2),
          projectIds: [user.projectId],
          autoPublishToStatusPage: true,
        },
      }),
      201,
    );
    const [onCheckPage] = await announcements(byCheck.id);
    expect(onCheckPage).toMatchObject({ title: 'Scheduled maintenance', scheduledFor: inHours(1), scheduledUntil: inHours(2), componentIds: [checkComp.id], status: 'IDENTIFIED' });
    expect((await announcements(byProject.id))[0]?.componentIds).toEqual([projectComp.id]);
    expect(await announcements(unrelated.id)).toEqual([]);
    const scheduled = await publicView(byCheck.slug);
    expect(scheduled.scheduledMaintenance).toHaveLength(1);
    expect(JSON.stringify(scheduled)).not.toContain('rotate db creds');
    expect(JSON.stringify(scheduled)).not.toContain('secret runbook');

    // Moved: the same announcement follows; reconciling again changes nothing.
    expectStatus(await t.request('PUT', `/maintenance-windows/${window.id}`, { token: user.token, body: { startAt: inHours(3), endAt: inHours(4) } }), 200);
    await runSweep(t.deps);
    const moved = await announcements(byCheck.id);
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({ scheduledFor: inHours(3), scheduledUntil: inHours(4) });

    // In the window the components are under maintenance.
    t.clock.advanceSeconds(3 * 3600 + 60);
    await runSweep(t.deps);
    expect((await publicView(byProject.slug)).components[0]?.status).toBe('UNDER_MAINTENANCE');

    // Cancelled: resolved with a note saying so, and the hold is gone.
    expectStatus(await t.request('POST', `/maintenance-windows/${window.id}/cancel`, { token: user.token }), 200);
    const [cancelled] = await announcements(byCheck.id);
    expect(cancelled?.status).toBe('RESOLVED');
    expect(cancelled?.updates.at(-1)?.body).toBe('This maintenance has been cancelled.');
    expect((await publicView(byProject.slug)).components[0]?.status).toBe('OPERATIONAL');
  });

  it('publish nothing without the flag', async () => {
    const page = await createPage(t, user);
    await checkComponent(t, user, page.id);
    expectStatus(
      await t.request('POST', '/maintenance-windows', {
        token: user.token,
        body: { workspaceId: user.workspaceId, name: 'quiet', startAt: inHours(1), endAt: inHours(2), projectIds: [user.projectId] },
      }),
      201,
    );
    expect(await announcements(page.id)).toEqual([]);
  });
});
