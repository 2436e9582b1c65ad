import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { hasFeedparser, parseFeeds } from '../../../test/support/feedparser.js';
import { changeStatus, checkComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';
import type { AnnouncementView } from '../announcementSchema.js';
import type { StatuspageSummary, WidgetSummary } from './summary.js';
import { BADGE_RULE, WIDGET_RULE } from './surfaceRoutes.js';

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

const announce = async (pageId: number, body: Record<string, unknown>) =>
  expectStatus(await t.request<AnnouncementView>('POST', `/status-pages/${pageId}/announcements`, { token: user.token, body }), 201);
const get = <T = Record<string, unknown>>(path: string, headers: Record<string, string> = fresh()) => t.request<T>('GET', path, { headers });

describe('feeds', () => {
  it.skipIf(!hasFeedparser)('RSS and Atom parse in feedparser: one entry per announcement, guid its publicId, the timeline as content, links back to the page', async () => {
    const page = await createPage(t, user, { name: 'Acme <Cloud> & "friends"' });
    const { component } = await checkComponent(t, user, page.id);
    const first = await announce(page.id, {
      title: 'Slow <b>payments</b> ]]> & more',
      body: 'We are **investigating**.\n\n<script>alert(1)</script><img src=x onerror=alert(2)>',
      impact: 'MAJOR',
      componentIds: [component.id],
    });
    t.clock.advanceSeconds(60);
    expectStatus(
      await t.request('POST', `/status-pages/${page.id}/announcements/${first.id}/updates`, {
        token: user.token,
        body: { body: 'Fixed by [a rollback](https://example.com/x) ]]> done', status: 'RESOLVED' },
      }),
      201,
    );
    t.clock.advanceSeconds(60);
    const second = await announce(page.id, { title: 'Database upgrade', body: 'Read-only for a while.' });

    const rss = await get(`/public/status/${page.slug}/feed.rss`);
    const atom = await get(`/public/status/${page.slug}/feed.atom`);
    expect(rss.status).toBe(200);
    expect(atom.status).toBe(200);
    expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    expect(atom.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(rss.headers.get('cache-control')).toBe('public, max-age=60');
    const [r, a] = parseFeeds([rss.text, atom.text]);
    if (!r || !a) throw new Error('feedparser returned too little');
    const home = `${t.config.publicUrl}/status/${page.slug}`;
    for (const [feed, version] of [
      [r, 'rss20'],
      [a, 'atom10'],
    ] as const) {
      expect(feed.bozo, feed.bozoException ?? '').toBe(0);
      expect(feed.version).toBe(version);
      expect(feed.feed.link).toBe(home);
      // Newest activity first; a resolved announcement stays in the feed.
      // RSS guid is the publicId; Atom ids must be IRIs, so there it is the publicId as a URN.
      const ids = [second.publicId, first.publicId];
      expect(feed.entries.map((e) => e.id)).toEqual(version === 'rss20' ? ids : ids.map((id) => `urn:vigil:announcement:${id}`));
      expect(feed.entries.map((e) => e.link)).toEqual([home, home]);
      const [latest, resolved] = feed.entries;
      // What the reader shows is the title as typed: the markup is text, not rendered.
      expect(resolved?.titleShown).toBe('Slow <b>payments</b> ]]> & more');
      expect(latest?.titleShown).toBe('Database upgrade');
      const content = resolved?.content.join('') ?? '';
      // The timeline, newest entry first, Markdown rendered, hostile markup gone.
      expect(content.indexOf('rollback')).toBeLessThan(content.indexOf('investigating'));
      expect(content).toContain('<strong>investigating</strong>');
      expect(content).toContain('href="https://example.com/x"');
      expect(content).toContain(']]&gt; done');
      expect(content).not.toMatch(/<script|onerror|alert\(/i);
    }
    // The raw XML carries no live markup from the title either.
    expect(atom.text).not.toContain('<b>payments');
    expect(rss.text).not.toContain('<b>payments');
    expect(a.feed.links.some((l) => l.rel === 'self' && l.href.endsWith(`/public/status/${page.slug}/feed.atom`))).toBe(true);
    // Readers that poll with the ETag get 304 while nothing changed.
    const tag = rss.headers.get('etag');
    expect(tag).toBeTruthy();
    expect((await get(`/public/status/${page.slug}/feed.rss`, { ...fresh(), 'if-none-match': tag ?? '' })).status).toBe(304);
    // A public feed is shared from the view cache, but a new announcement shows at once.
    t.clock.advanceSeconds(1);
    const third = await announce(page.id, { title: 'Third', body: 'More' });
    const changed = await get(`/public/status/${page.slug}/feed.rss`, { ...fresh(), 'if-none-match': tag ?? '' });
    expect(changed.status).toBe(200);
    const again = parseFeeds([changed.text])[0];
    expect(again?.entries.map((e) => e.id)).toEqual([third.publicId, second.publicId, first.publicId]);
  });

  it.skipIf(!hasFeedparser)('a password page: 401 without a session, the feed with ?token=', async () => {
    const page = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    const made = await announce(page.id, { title: 'Behind the password', body: 'Only for you' });
    expectError(await get(`/public/status/${page.slug}/feed.rss`), 401);
    expectError(await get(`/public/status/${page.slug}/feed.atom?token=garbage`), 401);
    const session = expectStatus(await t.request<{ token: string }>('POST', `/public/status/${page.slug}/auth`, { headers: fresh(), body: { password: 'let me in please' } }), 200);
    const rss = await get(`/public/status/${page.slug}/feed.rss?token=${encodeURIComponent(session.token)}`);
    const atom = await get(`/public/status/${page.slug}/feed.atom?token=${encodeURIComponent(session.token)}`);
    expect(rss.headers.get('cache-control')).toBe('private, no-store');
    const parsed = parseFeeds([rss.text, atom.text]);
    for (const feed of parsed) {
      expect(feed.bozo).toBe(0);
      expect(feed.entries.map((e) => e.id.replace('urn:vigil:announcement:', ''))).toEqual([made.publicId]);
      // The session never appears inside the feed.
      expect(JSON.stringify(feed)).not.toContain(session.token);
    }
    // ?token= is for feeds only: the page JSON and the badge refuse it.
    expectError(await get(`/public/status/${page.slug}?token=${encodeURIComponent(session.token)}`), 401);
    expectError(await get(`/public/status/${page.slug}/badge.svg?token=${encodeURIComponent(session.token)}`), 401);
    // A session of another page opens nothing here.
    const second = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    expectError(await get(`/public/status/${second.slug}/feed.rss?token=${encodeURIComponent(session.token)}`), 401);
  });
});

describe('feeds without incident history', () => {
  it.skipIf(!hasFeedparser)('list only what the page shows: open announcements, not resolved ones', async () => {
    const page = await createPage(t, user, { showIncidentHistory: false });
    const old = await announce(page.id, { title: 'Old trouble', body: 'Over' });
    expectStatus(await t.request('POST', `/status-pages/${page.id}/announcements/${old.id}/updates`, { token: user.token, body: { body: 'Resolved', status: 'RESOLVED' } }), 201);
    const open = await announce(page.id, { title: 'Current trouble', body: 'Ongoing' });
    const [feed] = parseFeeds([(await get(`/public/status/${page.slug}/feed.rss`)).text]);
    expect(feed?.bozo).toBe(0);
    expect(feed?.entries.map((e) => e.id)).toEqual([open.publicId]);
  });
});

describe('badge', () => {
  it('draws the overall status with badge-maker, ?style=, a short cache; bad style is 400', async () => {
    const page = await createPage(t, user);
    const { check } = await checkComponent(t, user, page.id);
    await changeStatus(t, check, user, 'NEW', 'OK');
    const ok = await get(`/public/status/${page.slug}/badge.svg`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(ok.headers.get('cache-control')).toBe('public, max-age=60');
    expect(ok.text).toMatch(/^<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(ok.text).toContain('<title>status: operational</title>');
    await changeStatus(t, check, user, 'OK', 'DOWN');
    const down = await get(`/public/status/${page.slug}/badge.svg?style=for-the-badge`);
    expect(down.text).toContain('<title>STATUS: MAJOR OUTAGE</title>');
    const square = await get(`/public/status/${page.slug}/badge.svg?style=flat-square`);
    expect(square.text).not.toBe(ok.text.replace('operational', 'major outage'));
    expect(square.text).toContain('major outage');
    expectError(await get(`/public/status/${page.slug}/badge.svg?style=<script>`), 400);
    // The page's name never reaches the SVG.
    const named = await createPage(t, user, { name: '<script>alert(1)</script>' });
    expect((await get(`/public/status/${named.slug}/badge.svg`)).text).not.toContain('script');
  });
});

describe('summaries', () => {
  it('summary.json has the Statuspage shape: page, status, components (with groups), incidents, scheduled_maintenances', async () => {
    const page = await createPage(t, user, { name: 'Acme' });
    const { check, component } = await checkComponent(t, user, page.id, { name: 'API', groupName: 'Core' });
    const { check: webCheck, component: web } = await checkComponent(t, user, page.id, { name: 'Web', groupName: 'Core' });
    await changeStatus(t, check, user, 'NEW', 'OK');
    await changeStatus(t, webCheck, user, 'NEW', 'OK');
    const incident = await announce(page.id, { title: 'Slow API', body: 'Looking into **it**', impact: 'MINOR', componentIds: [component.id] });
    const start = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const end = new Date(t.clock.now().getTime() + 7_200_000).toISOString();
    const maintenance = await announce(page.id, { title: 'Upgrade', body: 'Planned', scheduledFor: start, scheduledUntil: end, componentIds: [web.id] });
    const res = await get<StatuspageSummary>(`/public/status/${page.slug}/summary.json`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const summary = expectStatus(res, 200);
    expect(Object.keys(summary).sort()).toEqual(['components', 'incidents', 'page', 'scheduled_maintenances', 'status']);
    expect(summary.page).toEqual({ id: page.slug, name: 'Acme', url: `${t.config.publicUrl}/status/${page.slug}`, time_zone: 'Etc/UTC', updated_at: expect.any(String) });
    expect(summary.status).toEqual({ indicator: 'minor', description: 'Degraded Performance' });
    const group = summary.components.find((c) => c.group);
    expect(group).toMatchObject({ name: 'Core', status: 'degraded_performance', components: [String(component.id), String(web.id)] });
    expect(summary.components.find((c) => c.id === String(component.id))).toMatchObject({
      name: 'API',
      status: 'degraded_performance',
      group: false,
      group_id: group?.id,
      page_id: page.slug,
    });
    expect(summary.components.find((c) => c.id === String(web.id))?.status).toBe('operational');
    expect(summary.incidents).toHaveLength(1);
    expect(summary.incidents[0]).toMatchObject({
      id: incident.publicId,
      name: 'Slow API',
      status: 'investigating',
      impact: 'minor',
      resolved_at: null,
      incident_updates: [{ body: 'Looking into it', status: 'investigating' }],
    });
    expect(summary.incidents[0]?.components.map((c) => c.id)).toEqual([String(component.id)]);
    expect(summary.scheduled_maintenances).toHaveLength(1);
    expect(summary.scheduled_maintenances[0]).toMatchObject({ id: maintenance.publicId, status: 'scheduled', scheduled_for: start, scheduled_until: end });
    const text = JSON.stringify(summary);
    for (const secret of ['checkId', 'projectId', 'workspaceId', check.token ?? 'no-token', check.name]) expect(text).not.toContain(secret);
    // During the window it is in progress, and the page reads as maintenance.
    t.clock.advanceSeconds(3600 + 60);
    const during = expectStatus(await get<StatuspageSummary>(`/public/status/${page.slug}/summary.json`), 200);
    expect(during.scheduled_maintenances[0]?.status).toBe('in_progress');
    expect(during.components.find((c) => c.id === String(web.id))?.status).toBe('under_maintenance');
  });

  it('the widget summary: name, link, status; CORS only for PUBLIC pages', async () => {
    const page = await createPage(t, user, { name: 'Acme\n<b>Cloud</b>' });
    const res = await get<WidgetSummary>(`/public/status/${page.slug}/summary`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(expectStatus(res, 200)).toEqual({
      page: { name: 'Acme <b>Cloud</b>', url: `${t.config.publicUrl}/status/${page.slug}` },
      status: { indicator: 'none', description: 'All Systems Operational' },
      updatedAt: expect.any(String),
    });
    const privatePage = await createPage(t, user, { visibility: 'PRIVATE' });
    const member = await t.request('GET', `/public/status/${privatePage.slug}/summary`, { token: user.token, headers: fresh() });
    expect(member.status).toBe(200);
    expect(member.headers.get('access-control-allow-origin')).toBeNull();
    const protectedPage = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    const session = expectStatus(
      await t.request<{ token: string }>('POST', `/public/status/${protectedPage.slug}/auth`, { headers: fresh(), body: { password: 'let me in please' } }),
      200,
    );
    for (const path of ['summary', 'summary.json']) {
      const withSession = await t.request('GET', `/public/status/${protectedPage.slug}/${path}`, { token: session.token, headers: fresh() });
      expect(withSession.status).toBe(200);
      expect(withSession.headers.get('access-control-allow-origin')).toBeNull();
      expect(withSession.headers.get('cache-control')).toBe('private, no-store');
    }
  });
});

describe('visibility of every surface', () => {
  const SURFACES = ['feed.rss', 'feed.atom', 'badge.svg', 'widget.js', 'summary', 'summary.json'];

  it('PASSWORD 401 and PRIVATE 404 without a session, disabled and unknown 404, members of another workspace 404', async () => {
    const protectedPage = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    const privatePage = await createPage(t, user, { visibility: 'PRIVATE' });
    const disabled = await createPage(t, user, { enabled: false });
    const open = await createPage(t, user);
    for (const surface of SURFACES) {
      expect((await get(`/public/status/${open.slug}/${surface}`)).status, surface).toBe(200);
      const locked = expectError(await get(`/public/status/${protectedPage.slug}/${surface}`), 401);
      expect(locked.message).toBe('This status page is password protected');
      expectError(await get(`/public/status/${privatePage.slug}/${surface}`), 404);
      expectError(await get(`/public/status/${disabled.slug}/${surface}`), 404);
      expectError(await get(`/public/status/no-such-page/${surface}`), 404);
      expectError(await get(`/public/status/NOT_A_SLUG/${surface}`), 404);
      // A member of another workspace, or an API key, sees no private page.
      expectError(await t.request('GET', `/public/status/${privatePage.slug}/${surface}`, { token: other.token, headers: fresh() }), 404);
      expectError(await t.request('GET', `/public/status/${privatePage.slug}/${surface}`, { token: await t.apiKey(user), headers: fresh() }), 404);
      expect((await t.request('GET', `/public/status/${privatePage.slug}/${surface}`, { token: user.token, headers: fresh() })).status, surface).toBe(200);
    }
  });

  it('widget.js is one static script: no tenant string in it, served as JavaScript', async () => {
    const page = await createPage(t, user, { name: '</script><script>alert(1)</script>' });
    const res = await get(`/public/status/${page.slug}/widget.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.text).not.toContain('alert');
    expect(res.text).not.toContain(page.slug);
    expect(res.text).toContain('attachShadow');
    expect(res.text).not.toMatch(/innerHTML|insertAdjacentHTML|document\.write/);
  });
});

describe('rate limits, exact under concurrency (per page and address; 429 with Retry-After)', () => {
  const burst = async (path: string, n: number, address: string): Promise<number[]> =>
    (await Promise.all(Array.from({ length: n }, () => t.request('GET', path, { headers: { 'x-test-ip': address } })))).map((res) => res.status);
  const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

  it('feeds: 10 per 60 s each', async () => {
    const page = await createPage(t, user);
    for (const format of ['rss', 'atom']) {
      const statuses = await burst(`/public/status/${page.slug}/feed.${format}`, 14, '198.51.100.20');
      expect([count(statuses, 200), count(statuses, 429)], format).toEqual([10, 4]);
    }
    const limited = await get(`/public/status/${page.slug}/feed.rss`, { 'x-test-ip': '198.51.100.20' });
    expectError(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address, another page, or the next window has its own budget.
    expect((await get(`/public/status/${page.slug}/feed.rss`, { 'x-test-ip': '198.51.100.21' })).status).toBe(200);
    const second = await createPage(t, user);
    expect((await get(`/public/status/${second.slug}/feed.rss`, { 'x-test-ip': '198.51.100.20' })).status).toBe(200);
    t.clock.advanceSeconds(60);
    expect((await get(`/public/status/${page.slug}/feed.rss`, { 'x-test-ip': '198.51.100.20' })).status).toBe(200);
  });

  it('summary and summary.json: the page-data limit, 30 per 60 s each', async () => {
    const page = await createPage(t, user);
    for (const path of ['summary', 'summary.json']) {
      const statuses = await burst(`/public/status/${page.slug}/${path}`, 35, '198.51.100.22');
      expect([count(statuses, 200), count(statuses, 429)], path).toEqual([30, 5]);
    }
  });

  it('badge and widget.js: 600 per 60 s each (the window filled to 590 first, then a burst)', async () => {
    const page = await createPage(t, user);
    const address = '198.51.100.23';
    for (const [path, rule] of [
      ['badge.svg', BADGE_RULE],
      ['widget.js', WIDGET_RULE],
    ] as const) {
      expect(rule).toMatchObject({ limit: 600, windowSeconds: 60 });
      // 590 requests' worth written straight into this window's counter (the table's RL# item), so
      // the test pays for 15 requests, not 605, and still crosses the limit under concurrency.
      const windowStartMs = Math.floor(t.clock.now().getTime() / 60_000) * 60_000;
      await t.deps.store.client.send(
        new UpdateCommand({
          TableName: t.deps.store.table,
          Key: { pk: `RL#${rule.name}#${page.slug}:${address}#${windowStartMs}`, sk: 'rl' },
          UpdateExpression: 'ADD #count :n',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':n': 590 },
        }),
      );
      const statuses = await burst(`/public/status/${page.slug}/${path}`, 15, address);
      expect([count(statuses, 200), count(statuses, 429)], path).toEqual([10, 5]);
    }
  });
});
