import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { changeStatus, checkComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';
import type { PublicPage } from './view.js';

let t: TestContext;
let user: User;
let other: User;
let ip = 0;
/** Each request from its own address unless a test says otherwise: the per-address limits stay out of the way. */
const fresh = () => ({ 'x-test-ip': `203.0.113.${(++ip % 250) + 1}` });
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
  other = await t.signup('stranger');
});
beforeEach(() => freshRateWindow(t));

describe('public status JSON', () => {
  it('shows status, components and announcements, and nothing internal', async () => {
    const page = await createPage(t, user, { headerHtml: '<p>Hello</p>' });
    const { check, component } = await checkComponent(t, user, page.id, { name: 'Checkout', description: 'Pay here' });
    await changeStatus(t, check, user, 'NEW', 'OK');
    expectStatus(
      await t.request('POST', `/status-pages/${page.id}/announcements`, {
        token: user.token,
        body: { title: 'Slow payments', body: 'Investigating', impact: 'MAJOR', componentIds: [component.id] },
      }),
      201,
    );
    const view = expectStatus(await t.request<PublicPage>('GET', `/public/status/${page.slug}`, { headers: fresh() }), 200);
    expect(view.status).toEqual({ indicator: 'major', description: 'Partial System Outage' });
    expect(view.components).toEqual([{ id: component.id, name: 'Checkout', description: 'Pay here', groupName: null, position: 0, status: 'PARTIAL_OUTAGE', showUptimeBar: true }]);
    expect(view.activeAnnouncements[0]).toMatchObject({ title: 'Slow payments', updates: [{ bodyHtml: '<p>Investigating</p>' }] });
    const text = JSON.stringify(view);
    for (const secret of [check.name, check.token ?? 'no-token', 'workspaceId', 'checkId', 'projectId', 'passwordVersion']) expect(text).not.toContain(secret);
    // A check going DOWN reaches the page through the incidents worker.
    await changeStatus(t, check, user, 'OK', 'DOWN');
    const down = expectStatus(await t.request<PublicPage>('GET', `/public/status/${page.slug}`, { headers: fresh() }), 200);
    expect(down.components[0]?.status).toBe('MAJOR_OUTAGE');
    expect(down.status.indicator).toBe('critical');
  });

  it('a dependency reported down shows its component as a major outage', async () => {
    const page = await createPage(t, user);
    const { check } = await checkComponent(t, user, page.id);
    const report = async (status: 'ok' | 'down') => {
      await t.deps.queue.publish('incidents', [
        {
          type: 'dependencies.reported',
          checkId: check.id,
          workspaceId: user.workspaceId,
          projectId: user.projectId,
          dependencies: [{ name: 'Payments-DB', status }],
          at: t.clock.now().toISOString(),
        },
      ]);
      await t.deps.queue.drain();
    };
    await report('ok');
    const { lockOwner } = await import('../../store/locks.js');
    const dependencyId = Number(await lockOwner(t.deps.store, `dependency-name#${user.workspaceId}`, 'payments-db'));
    expect(dependencyId).toBeGreaterThan(0);
    const component = expectStatus(
      await t.request<{ id: number }>('POST', `/status-pages/${page.id}/components`, { token: user.token, body: { name: 'Payments', dependencyId } }),
      201,
    );
    await report('down');
    const view = expectStatus(await t.request<PublicPage>('GET', `/public/status/${page.slug}`, { headers: fresh() }), 200);
    expect(view.components.find((c) => c.id === component.id)?.status).toBe('MAJOR_OUTAGE');
    expect(JSON.stringify(view)).not.toContain('Payments-DB');
  });

  it('visibility: PUBLIC, PASSWORD_PROTECTED (401 without a session), PRIVATE (404 but to members), disabled (404)', async () => {
    const publicPage = await createPage(t, user);
    const protectedPage = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    const privatePage = await createPage(t, user, { visibility: 'PRIVATE' });
    const disabled = await createPage(t, user, { enabled: false });
    const get = (slug: string, token?: string) => t.request('GET', `/public/status/${slug}`, { headers: fresh(), ...(token ? { token } : {}) });
    expectStatus(await get(publicPage.slug), 200);
    expectError(await get(protectedPage.slug), 401);
    expectError(await get(privatePage.slug), 404);
    expectError(await get(disabled.slug), 404);
    expectError(await get('no-such-page'), 404);
    expectStatus(await get(privatePage.slug, user.token), 200);
    expectError(await get(privatePage.slug, other.token), 404);
    expectError(await get(privatePage.slug, await t.apiKey(user)), 404);
    expectError(await get(disabled.slug, user.token), 404);

    const auth = (slug: string, password: string) =>
      t.request<{ token: string; expiresIn: number }>('POST', `/public/status/${slug}/auth`, { headers: fresh(), body: { password } });
    const wrong = expectError(await auth(protectedPage.slug, 'not the password'), 401);
    const unknown = expectError(await auth('no-such-page', 'not the password'), 401);
    expect(unknown.message).toBe(wrong.message);
    expectError(await auth(publicPage.slug, 'anything at all'), 401);
    const session = expectStatus(await auth(protectedPage.slug, 'let me in please'), 200);
    expect(session.expiresIn).toBe(12 * 3600);
    expectStatus(await get(protectedPage.slug, session.token), 200);
    expectError(await get(publicPage.slug.length > 0 ? protectedPage.slug : '', 'garbage.token.here'), 401);
    // A session of one page opens no other.
    const second = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    expectError(await get(second.slug, session.token), 401);
    // Changing the password ends every session.
    expectStatus(await t.request('PATCH', `/status-pages/${protectedPage.id}`, { token: user.token, body: { password: 'a brand new one' } }), 200);
    expectError(await get(protectedPage.slug, session.token), 401);
    // Sessions last 12 hours.
    const again = expectStatus(await auth(protectedPage.slug, 'a brand new one'), 200);
    t.clock.advanceSeconds(12 * 3600 + 1);
    expectError(await get(protectedPage.slug, again.token), 401);
  });

  it('rate limits: 30 per 60 s per page and address on data, 5 per 5 min on auth; 429 with Retry-After', async () => {
    const page = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    const open = await createPage(t, user);
    const headers = { 'x-test-ip': '198.51.100.7' };
    for (let i = 0; i < 30; i++) expect((await t.request('GET', `/public/status/${open.slug}`, { headers })).status).toBe(200);
    const limited = await t.request('GET', `/public/status/${open.slug}`, { headers });
    expectError(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address, or another page, has its own budget.
    expectStatus(await t.request('GET', `/public/status/${open.slug}`, { headers: { 'x-test-ip': '198.51.100.8' } }), 200);
    for (let i = 0; i < 5; i++) expectError(await t.request('POST', `/public/status/${page.slug}/auth`, { headers, body: { password: `guess number ${i}` } }), 401);
    const blocked = await t.request('POST', `/public/status/${page.slug}/auth`, { headers, body: { password: 'let me in please' } });
    expectError(blocked, 429);
    expect(blocked.headers.get('retry-after')).not.toBeNull();
    t.clock.advanceSeconds(301);
    expectStatus(await t.request('POST', `/public/status/${page.slug}/auth`, { headers, body: { password: 'let me in please' } }), 200);
  });

  it('raises the data limit through VIGIL_PUBLIC_STATUS_RATE_LIMIT', async () => {
    const bench = await createTestContext({ ...LONG_SESSIONS, VIGIL_PUBLIC_STATUS_RATE_LIMIT: '40' });
    const owner = await bench.signup('bench');
    const page = await createPage(bench, owner);
    const headers = { 'x-test-ip': '198.51.100.9' };
    for (let i = 0; i < 40; i++) expect((await bench.request('GET', `/public/status/${page.slug}`, { headers })).status).toBe(200);
    expectError(await bench.request('GET', `/public/status/${page.slug}`, { headers }), 429);
  });

  it('uptime and history: bounds, unknown components, and the history switch', async () => {
    const page = await createPage(t, user);
    const { check, component } = await checkComponent(t, user, page.id);
    await changeStatus(t, check, user, 'NEW', 'OK');
    t.clock.advanceSeconds(3600);
    await changeStatus(t, check, user, 'OK', 'DOWN');
    t.clock.advanceSeconds(600);
    await changeStatus(t, check, user, 'DOWN', 'OK');
    const uptime = expectStatus(
      await t.request<{ componentId: number; days: { date: string; uptime: number | null; downSeconds: number }[]; uptime: number | null }>(
        'GET',
        `/public/status/${page.slug}/components/${component.id}/uptime?days=3`,
        { headers: fresh() },
      ),
      200,
    );
    expect(uptime.componentId).toBe(component.id);
    expect(uptime.days.map((d) => d.uptime === null)).toEqual([true, true, false]);
    expect(uptime.days[2]?.downSeconds).toBe(600);
    expect(uptime.uptime).toBeCloseTo(1 - 600 / 4200, 5);
    expectError(await t.request('GET', `/public/status/${page.slug}/components/${component.id}/uptime?days=366`, { headers: fresh() }), 400);
    expectError(await t.request('GET', `/public/status/${page.slug}/components/${component.id}/uptime?days=0`, { headers: fresh() }), 400);
    expectError(await t.request('GET', `/public/status/${page.slug}/components/999999/uptime`, { headers: fresh() }), 404);
    expectError(await t.request('GET', `/public/status/${page.slug}/history?months=13`, { headers: fresh() }), 400);
    const history = expectStatus(
      await t.request<{ months: { month: string; incidents: unknown[] }[] }>('GET', `/public/status/${page.slug}/history?months=2`, { headers: fresh() }),
      200,
    );
    expect(history.months.map((m) => m.month)).toEqual(['2026-03', '2026-02']);
    expectStatus(await t.request('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { showIncidentHistory: false } }), 200);
    expect(expectStatus(await t.request<{ months: unknown[] }>('GET', `/public/status/${page.slug}/history`, { headers: fresh() }), 200).months).toEqual([]);
    const privatePage = await createPage(t, user, { visibility: 'PRIVATE' });
    expectError(await t.request('GET', `/public/status/${privatePage.slug}/history`, { headers: fresh() }), 404);
  });
});
