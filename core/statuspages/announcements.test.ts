import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../test/support/checks.js';
import { runSweep } from '../sweep/index.js';
import type { AnnouncementEntry, AnnouncementV1, AnnouncementView } from './schema.js';
import { checkComponent, createPage, expectStatus, type User } from '../../test/support/statuspages.js';

let t: TestContext;
let user: User;
let other: User;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
  other = await t.signup('stranger');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

describe('announcements: one record behind the dashboard and /v1', () => {
  it('creates on the dashboard, reads on /v1, moves status per the table and keeps one timeline', async () => {
    const page = await createPage(t, user);
    const { component } = await checkComponent(t, user, page.id);
    const base = `/status-pages/${page.id}/announcements`;
    const created = expectStatus(
      await t.request<AnnouncementView>('POST', base, {
        token: user.token,
        body: { title: 'Checkout slow', body: 'We are **looking**', impact: 'MINOR', componentIds: [component.id] },
      }),
      201,
    );
    expect(created).toMatchObject({ status: 'INVESTIGATING', impact: 'MINOR', body: 'We are **looking**', resolvedAt: null, scheduledFor: null, componentIds: [component.id] });
    expect(created.publicId).toMatch(/^[0-9a-z]{26}$/);
    expect(created.updates).toHaveLength(1);

    const entry = expectStatus(await t.request<AnnouncementEntry>('POST', `/v1${base}/${created.id}/updates`, { token: key, body: { status: 'RESOLVED', message: 'Fixed' } }), 201);
    expect(entry).toMatchObject({ announcementId: created.id, status: 'RESOLVED', body: 'Fixed' });
    const v1 = expectStatus(await t.request<{ items: AnnouncementV1[]; total: number }>('GET', `/v1${base}?status=resolved`, { token: key }), 200);
    expect(v1.total).toBe(1);
    expect(v1.items[0]).toMatchObject({ id: created.id, status: 'RESOLVED' });
    expect(v1.items[0]?.resolvedAt).not.toBeNull();
    expect(v1.items[0]?.updates.map((u) => u.body)).toEqual(['We are **looking**', 'Fixed']);
    // Leaving RESOLVED clears resolvedAt (any status to any status).
    const reopened = expectStatus(
      await t.request<AnnouncementView>('PATCH', `${base}/${created.id}`, { token: user.token, body: { status: 'MONITORING', title: 'Still watching' } }),
      200,
    );
    expect(reopened).toMatchObject({ status: 'MONITORING', resolvedAt: null, title: 'Still watching' });
    const open = expectStatus(await t.request<AnnouncementView[]>('GET', `${base}?status=open`, { token: user.token }), 200);
    expect(open.map((a) => a.id)).toEqual([created.id]);
  });

  it('creates on /v1 with message as the first entry; bounds and foreign ids', async () => {
    const page = await createPage(t, user);
    const { component } = await checkComponent(t, user, page.id);
    const base = `/v1/status-pages/${page.id}/announcements`;
    const created = expectStatus(
      await t.request<AnnouncementV1>('POST', base, { token: key, body: { title: 'DB failover', message: 'Started', componentIds: [component.id] } }),
      201,
    );
    expect(created.updates.map((u) => u.body)).toEqual(['Started']);
    expectError(await t.request('POST', base, { token: key, body: { title: '' } }), 400);
    expectError(await t.request('POST', base, { token: key, body: { title: 'x'.repeat(256) } }), 400);
    expectError(await t.request('POST', base, { token: key, body: { title: 'x', componentIds: [999_999] } }), 404);
    expectError(await t.request('POST', `${base}/${created.id}/updates`, { token: key, body: { status: 'RESOLVED' } }), 400);
    expectError(await t.request('POST', `${base}/999999/updates`, { token: key, body: { status: 'RESOLVED', message: 'x' } }), 404);
    const foreignKey = await t.apiKey(other);
    expectError(await t.request('GET', base, { token: foreignKey }), 404);
    expectError(await t.request('POST', base, { token: foreignKey, body: { title: 'x' } }), 404);
    const readOnly = await t.apiKey(user, { permission: 'read_only' });
    expectError(await t.request('POST', base, { token: readOnly, body: { title: 'x' } }), 403);
    expectStatus(await t.request('GET', base, { token: readOnly }), 200);
    // A session token on /v1 and an API key on the dashboard are both 401.
    expectError(await t.request('GET', base, { token: user.token }), 401);
    expectError(await t.request('GET', `/status-pages/${page.id}/announcements`, { token: key }), 401);
  });

  it('scheduled maintenance: SCHEDULED before, started and resolved by the sweep once', async () => {
    const page = await createPage(t, user);
    const { component } = await checkComponent(t, user, page.id);
    const start = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const end = new Date(t.clock.now().getTime() + 7_200_000).toISOString();
    const base = `/status-pages/${page.id}/announcements`;
    expectError(await t.request('POST', base, { token: user.token, body: { title: 'x', body: 'y', scheduledFor: start } }), 400);
    expectError(await t.request('POST', base, { token: user.token, body: { title: 'x', body: 'y', scheduledFor: end, scheduledUntil: start } }), 400);
    const created = expectStatus(
      await t.request<AnnouncementView>('POST', base, {
        token: user.token,
        body: { title: 'DB upgrade', body: 'Planned', scheduledFor: start, scheduledUntil: end, componentIds: [component.id] },
      }),
      201,
    );
    expect(created).toMatchObject({ status: 'IDENTIFIED', scheduledFor: start, scheduledUntil: end });
    const publicView = async () =>
      (await t.request<{ components: { status: string }[]; scheduledMaintenance: unknown[]; activeAnnouncements: unknown[] }>('GET', `/public/status/${page.slug}`)).body;
    expect((await publicView()).scheduledMaintenance).toHaveLength(1);
    t.clock.advanceSeconds(3_700);
    await runSweep(t.deps);
    await runSweep(t.deps);
    let view = await publicView();
    expect(view.components[0]?.status).toBe('UNDER_MAINTENANCE');
    expect(view.activeAnnouncements).toHaveLength(1);
    t.clock.advanceSeconds(3_700);
    await runSweep(t.deps);
    await runSweep(t.deps);
    const after = expectStatus(await t.request<AnnouncementView>('GET', `${base}/${created.id}`, { token: user.token }), 200);
    expect(after).toMatchObject({ status: 'RESOLVED', resolvedAt: end });
    expect(after.updates.map((u) => u.body)).toEqual(['Planned', 'Scheduled maintenance is in progress.', 'Scheduled maintenance has been completed.']);
    view = await publicView();
    expect(view.components[0]?.status).toBe('OPERATIONAL');
    expect(view.activeAnnouncements).toHaveLength(0);
  });
});
