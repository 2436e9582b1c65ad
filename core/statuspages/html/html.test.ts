import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { changeStatus, checkComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';
import { clientAddresses } from '../../../test/support/users.js';

let t: TestContext;
let user: User;
const fresh = clientAddresses('192.0.2');
const html = (path: string, headers: Record<string, string> = {}) => t.request('GET', `http://localhost${path}`, { headers: { ...fresh(), ...headers } });
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
});
beforeEach(() => freshRateWindow(t));

const XSS = [
  '<script>alert(1)</script>',
  '<img src="https://x.example/a.png" onerror="alert(2)">',
  '<a href="javascript:alert(3)">click</a>',
  '<p style="background:url(javascript:alert(4))">styled</p>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload="alert(5)"></svg>',
  '<form action="https://evil.example"><input name="x"></form>',
  '<a href="JaVaScRiPt:alert(6)">mixed</a>',
].join('\n');
const MARKDOWN_XSS = `[click](javascript:alert(7)) and <img src=x onerror=alert(8)>\n\n<script>alert(9)</script>\n\n<div style="color:red" onclick="alert(10)">x</div><iframe src="https://evil.example"></iframe>`;

/** Nothing in `text` may run: no script elements, handlers, javascript: URLs, style attributes or frames. */
function expectInert(text: string): void {
  const lower = text.toLowerCase();
  // Quoted attribute values are text (escaped by construction); what is left are the tags and attribute names.
  const tags = lower.replace(/"[^"]*"/g, '""');
  expect(lower).not.toContain('<script');
  expect(tags).not.toMatch(/<[^>]*\son[a-z]+\s*=/);
  expect(lower).not.toContain('javascript:');
  expect(tags).not.toMatch(/<[^>]*\sstyle\s*=/);
  expect(lower).not.toContain('<iframe');
  expect(lower).not.toContain('<svg');
  expect(lower).not.toContain('<form action="https://evil');
}

describe('the HTML status page', () => {
  it('renders name, components, bars with a text equivalent per day, without script, under a strict CSP', async () => {
    const page = await createPage(t, user, { uptimeHistoryDays: 30, primaryColor: '#0a7' });
    const { check } = await checkComponent(t, user, page.id, { name: 'Checkout API', groupName: 'Shop' });
    await changeStatus(t, check, user, 'NEW', 'OK');
    t.clock.advanceSeconds(1800);
    await changeStatus(t, check, user, 'OK', 'DOWN');
    t.clock.advanceSeconds(660);
    const res = await html(`/status/${page.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.text).toContain(`<style nonce="${nonce}">`);
    expect(res.text).not.toContain('<script');
    expect(res.text).not.toMatch(/\sstyle=/);
    expect(res.text).toContain('Acme status');
    expect(res.text).toContain('Checkout API');
    expect(res.text).toContain('Major outage');
    expect(res.text).not.toContain(check.name);
    const days = res.text.match(/<li class="d-[a-z]+" tabindex="0"/g) ?? [];
    expect(days).toHaveLength(30);
    expect(res.text).toMatch(/1 Mar: \d+\.\d\d% uptime, 11 min down/);
    expect(res.text).toContain('28 Feb: no data');
    expect(res.text).toContain('prefers-color-scheme:dark');
    expect(res.text).toContain('--primary:#0a7');
    expect(res.text).toContain(`href="/status/${page.slug}/history"`);
    // Served from memory now, and still current the moment the check recovers (the rebuild drops the cached page).
    const again = await html(`/status/${page.slug}`);
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
    expect(again.text).toContain(`<style nonce="${/'nonce-([^']+)'/.exec(again.headers.get('content-security-policy') ?? '')?.[1]}">`);
    await changeStatus(t, check, user, 'DOWN', 'OK');
    expect((await html(`/status/${page.slug}`)).text).not.toContain('Major outage');
    const history = await html(`/status/${page.slug}/history`);
    expect(history.status).toBe(200);
    expect(history.text).toContain('Incident history');
  });

  it('answers unknown, disabled and private pages with a real 404 page', async () => {
    const disabled = await createPage(t, user, { enabled: false });
    const privatePage = await createPage(t, user, { visibility: 'PRIVATE' });
    for (const path of ['/status/no-such-page', `/status/${disabled.slug}`, `/status/${privatePage.slug}`, '/status/UPPER', '/status/a/b/c']) {
      const res = await html(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.text).toContain('Page not found');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  });

  it('password pages: a form, an HttpOnly SameSite=Lax cookie on the right password, the page with it', async () => {
    const page = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please', name: 'Secret status' });
    const locked = await html(`/status/${page.slug}`);
    expect(locked.status).toBe(401);
    expect(locked.text).toContain(`action="/status/${page.slug}/auth"`);
    expect(locked.text).not.toContain('Secret status');
    const post = (password: string) =>
      t.request('POST', `http://localhost/status/${page.slug}/auth`, {
        rawBody: `password=${encodeURIComponent(password)}`,
        headers: { ...fresh(), 'content-type': 'application/x-www-form-urlencoded' },
      });
    const wrong = await post('nope nope nope');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('Wrong password');
    const right = await post('let me in please');
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(`/status/${page.slug}`);
    const cookie = right.headers.get('set-cookie') ?? '';
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    const opened = await html(`/status/${page.slug}`, { cookie: cookie.split(';')[0] ?? '' });
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('Secret status');
    // The cookie opens the HTML page only for the current password.
    expectStatus(await t.request('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { password: 'another password' } }), 200);
    expect((await html(`/status/${page.slug}`, { cookie: cookie.split(';')[0] ?? '' })).status).toBe(401);
  });

  it('tenant HTML and Markdown never reach the HTML or JSON as executable markup', async () => {
    const page = await createPage(t, user, { name: '<script>alert("name")</script>', headerHtml: XSS, footerHtml: XSS });
    const stored = expectStatus(await t.request<{ headerHtml: string; footerHtml: string }>('GET', `/status-pages/${page.id}`, { token: user.token }), 200);
    expectInert(stored.headerHtml);
    expectInert(stored.footerHtml);
    expect(stored.headerHtml).toContain('click');
    const { component } = await checkComponent(t, user, page.id, { name: '<img src=x onerror=alert(1)>' });
    expectStatus(
      await t.request('POST', `/status-pages/${page.id}/announcements`, {
        token: user.token,
        body: { title: '<script>alert("t")</script>', body: MARKDOWN_XSS, componentIds: [component.id] },
      }),
      201,
    );
    // A row written before sanitising existed is cleaned on render too.
    await t.deps.store.entities.statusPage.patch({ statusPageId: page.id }).set({ footerHtml: XSS }).go();
    const { refreshSnapshot } = await import('../store/snapshot.js');
    await refreshSnapshot(t.deps, page.id);
    const res = await html(`/status/${page.slug}`);
    expect(res.status).toBe(200);
    expectInert(res.text);
    expect(res.text).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
    expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const json = await t.request('GET', `/public/status/${page.slug}`, { headers: fresh() });
    expect(json.status).toBe(200);
    const body = json.body as { page: { headerHtml: string; footerHtml: string }; activeAnnouncements: { updates: { bodyHtml: string }[] }[] };
    expectInert(body.page.headerHtml);
    expectInert(body.page.footerHtml);
    expectInert(body.activeAnnouncements[0]?.updates[0]?.bodyHtml ?? '');
    expectError(await t.request('POST', `/status-pages/${page.id}/announcements`, { token: user.token, body: { title: 'x', body: 'y'.repeat(5001) } }), 400);
  });
});
