import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { collectProblems, hasBrowser, launchBrowser, CHROMIUM } from './support/browser.js';
import { freshRateWindow, LONG_SESSIONS } from './support/checks.js';
import { axeViolations, fill, serveDashboard, setColorScheme } from './support/dashboard.js';
import { hasFeedparser, parseFeeds } from './support/feedparser.js';
import { createPage, uniqueSlug } from './support/statuspages.js';
import { createTestContext, type TestContext } from './harness.js';

if (!hasBrowser) console.warn(`dashboard browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

type User = Awaited<ReturnType<TestContext['signup']>>;

/**
 * The status page editor and the settings screen in Chromium against the real app and the built
 * SPA: a page made with a live slug check, components reordered from the keyboard, an
 * announcement posted from the UI that the public page and its feed (read by feedparser) carry,
 * the custom domain's records, members, API keys, plan, password; a VIEWER sees no control it may
 * not use, and an admin demoted meanwhile is told why the API refused. axe-core on every screen,
 * light and dark; every wait is for a DOM condition.
 */
describe.skipIf(!hasBrowser || !hasFeedparser)('the dashboard in Chromium: status pages and settings', () => {
  let t: TestContext;
  let browser: Browser;
  let page: Page;
  let site: { origin: string; close: () => Promise<void> };
  let problems: string[];
  let owner: User;
  let other: User;
  let pageId = 0;
  let integrationId = 0;
  const slug = uniqueSlug('acme');

  const go = (path: string, tab: Page = page) => tab.goto(`${site.origin}${path}`, { waitUntil: 'domcontentloaded' });
  const expectAccessible = async (label: string, tab: Page = page) => {
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(tab, scheme);
      expect(await axeViolations(tab), `${label} (${scheme})`).toEqual([]);
    }
    await setColorScheme(tab, 'light');
  };
  const screenshot = async (name: string, tab: Page = page) => {
    mkdirSync('docs/screenshots', { recursive: true });
    await tab.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(tab, scheme);
      await tab.screenshot({ path: `docs/screenshots/${name}-${scheme}.png`, fullPage: true });
    }
    await setColorScheme(tab, 'light');
  };
  const clickText = async (selector: string, text: string, tab: Page = page) => (await tab.waitForSelector(`${selector}::-p-text(${text})`))?.click();
  const toast = (text: string, tab: Page = page) => tab.waitForSelector(`.toast ::-p-text(${text})`, { timeout: 15_000 });
  /** Signs in through the form, in `workspaceId` (the switcher's remembered choice). */
  const signIn = async (tab: Page, user: User, workspaceId: number) => {
    await go('/signin', tab);
    await tab.evaluate((id) => localStorage.setItem('vigil-workspace', String(id)), workspaceId);
    await fill(tab, 'input[name=email]', user.email);
    await fill(tab, 'input[name=password]', user.password);
    await clickText('button', 'Sign in', tab);
    await tab.waitForSelector('nav[aria-label=Main]');
  };
  const componentOrder = (tab: Page = page) => tab.$$eval('.component-list li', (rows) => rows.map((r) => r.getAttribute('data-component')));

  beforeAll(async () => {
    t = await createTestContext(LONG_SESSIONS);
    t.clock.set(new Date());
    site = await serveDashboard(t);
    browser = await launchBrowser();
    await browser.defaultBrowserContext().overridePermissions(site.origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    problems = collectProblems(page);
    owner = await t.signup('owner');
    other = await t.signup('other');
    // A component may follow an integration: the editor lists the workspace's integrations.
    const integration = await t.request<{ id: number }>('POST', '/integrations', {
      token: owner.token,
      body: { workspaceId: owner.workspaceId, name: 'Prometheus prod', kind: 'ALERTMANAGER' },
    });
    expect(integration.status, integration.text).toBe(201);
    integrationId = integration.body.id;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('creates a page, its slug checked as typed', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    const taken = uniqueSlug('taken');
    await createPage(t, other, { slug: taken });
    await signIn(page, owner, owner.workspaceId);
    await go('/status-pages');
    await page.waitForSelector('section.empty ::-p-text(No status pages yet)');
    await fill(page, 'form[aria-label="New status page"] input[name=name]', 'Acme status');
    await fill(page, 'form[aria-label="New status page"] input[name=slug]', taken);
    await page.waitForSelector('.slug-status[data-available=false]');
    await fill(page, 'form[aria-label="New status page"] input[name=slug]', slug);
    await page.waitForSelector('.slug-status[data-available=true]');
    await expectAccessible('status pages list with the new page form');
    await screenshot('statuspages-list');
    await clickText('button', 'Create page');
    await toast('Created “Acme status”');
    await page.waitForSelector('h1::-p-text(Acme status)');
    pageId = Number(new URL(page.url()).pathname.split('/')[2]);
    expect(pageId).toBeGreaterThan(0);
  });

  it('adds components and reorders them from the keyboard alone', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    for (const name of ['API', 'Website', 'Billing']) {
      if (name === 'Billing') await page.select('select[name=componentTarget]', `integration:${integrationId}`);
      await fill(page, 'input[name=componentName]', name);
      await page.keyboard.press('Enter');
      await page.waitForSelector(`.component-list li[data-component="${name}"]`);
    }
    // Whatever order the server gave them, move its first row to the end, then back up, from the keyboard.
    const targets = (await t.request<{ name: string; integrationId: number | null }[]>('GET', `/status-pages/${pageId}/components`, { token: owner.token })).body;
    expect(targets.find((c) => c.name === 'Billing')?.integrationId).toBe(integrationId);
    expect(targets.filter((c) => c.integrationId !== null).map((c) => c.name)).toEqual(['Billing']);
    const before = await componentOrder();
    const server = async () => (await t.request<{ name: string }[]>('GET', `/status-pages/${pageId}/components`, { token: owner.token })).body.map((c) => c.name);
    expect(before).toEqual(await server());
    const mover = before[0] ?? '';
    await page.focus(`button[aria-label^="Reorder ${mover}"]`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const expected = [...before.slice(1), mover];
    await page.waitForFunction(
      (want: string) => JSON.stringify([...document.querySelectorAll('.component-list li')].map((li) => li.getAttribute('data-component'))) === want,
      {},
      JSON.stringify(expected),
    );
    // Focus stays on the moved row's handle, and the live region says where it went.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(new RegExp(`^Reorder ${mover}, position 3 of 3`));
    await expect
      .poll(() => page.$eval('section[aria-labelledby=components-title] p[role=status]', (el) => el.textContent), { timeout: 15_000 })
      .toBe(`${mover} moved to position 3 of 3.`);
    await expect.poll(server, { timeout: 15_000 }).toEqual(expected);
    await page.keyboard.press('ArrowUp');
    await expect.poll(server, { timeout: 15_000 }).toEqual([expected[0], mover, expected[1]]);
  });

  it('posts an announcement from the UI, previewed with the public sanitising, that the public page and its feed carry', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    const title = 'Checkout errors';
    const body = 'We see **failed payments** in [checkout](https://example.com/help).\n\n<script>alert(1)</script><img src="x" onerror="alert(2)">';
    await fill(page, 'form[aria-label="New announcement"] input[name=title]', title);
    await page.type('form[aria-label="New announcement"] textarea[name=body]', body);
    const preview = await page.waitForSelector('section[aria-label="Preview of the message"] .md-body strong::-p-text(failed payments)');
    expect(preview).not.toBeNull();
    const previewHtml = await page.$eval('section[aria-label="Preview of the message"] .md-body', (el) => el.innerHTML);
    expect(previewHtml).toContain('rel="nofollow noopener noreferrer"');
    expect(previewHtml).not.toMatch(/script|onerror|<img/);
    await expectAccessible('status page editor with an announcement draft');
    await clickText('button', 'Post announcement');
    await toast(`Posted “${title}”`);
    await page.waitForSelector(`li[data-announcement="${title}"]`);

    // The public page shows it, its body rendered as the preview showed it.
    const publicHtml = await (await fetch(`${site.origin}/status/${slug}`)).text();
    expect(publicHtml).toContain(title);
    expect(publicHtml).toContain(previewHtml);
    // Its Atom feed, as a real reader reads it.
    const atom = await fetch(`${site.origin}/api/public/status/${slug}/feed.atom`);
    expect(atom.status).toBe(200);
    const [feed] = parseFeeds([await atom.text()]);
    expect(feed?.bozo).toBe(0);
    expect(feed?.entries.map((e) => e.title)).toEqual([title]);
    expect(feed?.entries[0]?.content.join('')).toContain('failed payments');
    expect(feed?.entries[0]?.content.join('')).not.toMatch(/<script|onerror/);

    // An update from the UI moves it to MONITORING, on the public page too.
    await page.type(`form[aria-label="Update “${title}”"] textarea[name=update]`, 'A fix is *deployed*.');
    await page.waitForSelector(`section[aria-label="Preview of the update to “${title}”"] em::-p-text(deployed)`);
    await page.select(`form[aria-label="Update “${title}”"] select[name=status]`, 'MONITORING');
    await clickText('button', 'Post update');
    await toast('Update posted');
    await page.waitForSelector(`li[data-announcement="${title}"] .badge::-p-text(Monitoring)`);
    await expect.poll(async () => (await (await fetch(`${site.origin}/status/${slug}`)).text()).includes('<em>deployed</em>'), { timeout: 15_000 }).toBe(true);
  });

  it('shows the custom domain’s DNS records and the verify button, the links and the subscriber count', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    await fill(page, 'input[name=customDomain]', 'status.example.com');
    await clickText('button', 'Save domain');
    await toast('Custom domain saved');
    await page.waitForSelector('table.dns-records ::-p-text(_vigil-challenge.status.example.com)');
    const txt = await page.$eval('table.dns-records tbody tr:first-child td:nth-child(3) code', (el) => el.textContent ?? '');
    expect(txt).toMatch(/^vigil-verify=/);
    await page.waitForSelector('button::-p-text(Verify domain)');
    expect(await page.$eval('[data-domain-status]', (el) => el.getAttribute('data-domain-status'))).toBe('PENDING');
    await page.waitForSelector('[data-subscribers="0"]');
    const hrefs = await page.$$eval('.link-list a', (links) => links.map((a) => (a as HTMLAnchorElement).href));
    expect(hrefs).toEqual([
      `${site.origin}/status/${slug}`,
      `${site.origin}/api/public/status/${slug}/feed.rss`,
      `${site.origin}/api/public/status/${slug}/feed.atom`,
      `${site.origin}/api/public/status/${slug}/badge.svg`,
    ]);
    for (const href of hrefs) expect((await fetch(href)).status, href).toBe(200);
    expect(await page.$eval('#widget-snippet', (el) => (el as HTMLTextAreaElement).value)).toContain(`/api/public/status/${slug}/widget.js`);
    await expectAccessible('status page editor');
    await screenshot('statuspage-editor');
  });

  it('settings: adds a member, changes the role, removes; an API key shown once, disabled, deleted; the plan and its use', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    await go('/settings');
    await page.waitForSelector(`tr[data-member="${owner.email}"]`);
    await expectAccessible('settings');
    await fill(page, 'input[name=memberEmail]', other.email);
    await page.select('select[name=memberRole]', 'ADMIN');
    await clickText('button', 'Add member');
    await page.waitForSelector(`tr[data-member="${other.email}"]`);
    await page.select(`select[aria-label="Role of ${other.email}"]`, 'MEMBER');
    await toast(`${other.email} is now MEMBER`);
    const roleOf = async () =>
      (await t.request<{ email: string; role: string }[]>('GET', `/workspaces/${owner.workspaceId}/members`, { token: owner.token })).body.find((m) => m.email === other.email)
        ?.role;
    expect(await roleOf()).toBe('MEMBER');
    await clickText('button', `Remove`);
    await page.waitForFunction((email: string) => !document.querySelector(`tr[data-member="${email}"]`), {}, other.email);
    expect(await roleOf()).toBeUndefined();

    await fill(page, 'input[name=keyName]', 'ci deploy');
    await clickText('button', 'Create key');
    const key = await page.$eval(await page.waitForSelector('#new-key').then(() => '#new-key'), (el) => (el as HTMLInputElement).value);
    expect(key.length).toBeGreaterThan(20);
    await page.waitForSelector('tr[data-key="ci deploy"][data-enabled=true]');
    await expectAccessible('settings with a new key');
    await clickText('button', 'Done');
    // Shown once: gone from the page, and the list shows its prefix and last four only.
    expect(await page.content()).not.toContain(key);
    await page.click('button[aria-label="Disable ci deploy"]');
    await page.waitForSelector('tr[data-key="ci deploy"][data-enabled=false]');
    // From the keyboard: the "disabled" toast may lie over the row's end, where a pointer would land.
    await page.focus('button[aria-label="Delete ci deploy"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('button[aria-label="Delete ci deploy for good"]');
    await page.focus('button[aria-label="Delete ci deploy for good"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => !document.querySelector('tr[data-key="ci deploy"]'));
    expect((await t.request<unknown[]>('GET', `/api-keys?workspaceId=${owner.workspaceId}`, { token: owner.token })).body).toEqual([]);

    const used = await page.$eval('tr[data-limit=checks] td', (el) => el.textContent);
    expect(used).toBe('0');
    await screenshot('settings');
  });

  it('a VIEWER sees no control it may not use; an admin demoted meanwhile is told why the API refused', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    const add = await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: other.email, role: 'ADMIN' } });
    expect(add.status).toBe(201);
    const context: BrowserContext = await browser.createBrowserContext();
    const tab = await context.newPage();
    await tab.setViewport({ width: 1280, height: 900 });
    try {
      await signIn(tab, other, owner.workspaceId);
      await go(`/status-pages/${pageId}`, tab);
      await tab.waitForSelector('select[name=componentTarget] option');
      // Demoted while the page is open: the next write is refused, and the page says why.
      expect((await t.request('PATCH', `/workspaces/${owner.workspaceId}/members/${other.userId}`, { token: owner.token, body: { role: 'VIEWER' } })).status).toBe(200);
      await fill(tab, 'input[name=componentName]', 'Sneaky');
      await tab.keyboard.press('Enter');
      await tab.waitForSelector('[role=alert]::-p-text(does not allow this)');
      expect(await tab.$eval('.card [role=alert]', (el) => el.textContent)).toMatch(
        /^Your role \(ADMIN\) in this workspace does not allow this: .+\. Ask a workspace admin or owner for access\.$/,
      );

      // Reloaded as the VIEWER it now is: nothing to press but links.
      await tab.reload({ waitUntil: 'domcontentloaded' });
      await tab.waitForSelector('li[data-announcement="Checkout errors"]');
      // Copy buttons (the widget snippet, the DNS records) change nothing; nothing else is there to press.
      const controls = await tab.$$eval('main form, main button, main textarea:not([readonly]), main select, main input:not([readonly])', (els) =>
        els.filter((e) => !(e.getAttribute('aria-label') ?? '').startsWith('Copy ')).map((e) => e.outerHTML.slice(0, 80)),
      );
      expect(controls).toEqual([]);
      expect(await tab.$$eval('main button', (els) => els.map((e) => e.getAttribute('aria-label')))).toEqual([
        'Copy the widget snippet',
        'Copy the TXT value',
        'Copy the CNAME target',
      ]);
      await expectAccessible('status page as a VIEWER', tab);
      await go('/settings', tab);
      await tab.waitForSelector(`tr[data-member="${owner.email}"]`);
      expect(await tab.$$('main select, form[aria-label="Add a member"], form[aria-label="New API key"], button[aria-label^="Remove"]')).toEqual([]);
      await tab.waitForSelector('::-p-text(Your role (VIEWER) cannot see API keys)');
      await expectAccessible('settings as a VIEWER', tab);
      await screenshot('settings-viewer', tab);
    } finally {
      await context.close();
    }
  });

  it('changes the password (signed straight back in), then signs out everywhere', { timeout: 120_000 }, async () => {
    freshRateWindow(t);
    await go('/settings');
    // Once the sections above have loaded, the form stops moving down the page.
    await page.waitForSelector(`tr[data-member="${owner.email}"]`);
    await page.waitForSelector('tr[data-limit=checks]');
    await fill(page, 'input[name=currentPassword]', owner.password);
    await fill(page, 'input[name=newPassword]', 'a brand new passphrase');
    await clickText('button', 'Change password');
    await toast('Password changed');
    // The old API session is over; this tab still works (it signed in again).
    expect((await t.request('GET', '/me', { token: owner.token })).status).toBe(401);
    await go('/settings');
    await page.waitForSelector(`tr[data-member="${owner.email}"]`);
    await clickText('button', 'Sign out everywhere');
    await page.waitForSelector('form input[name=email]');
    await go('/settings');
    await page.waitForSelector('form input[name=email]');
    expect(new URL(page.url()).pathname).toBe('/signin');
  });

  it('logged no page error or CSP violation', () => {
    // The demoted admin's 403 was in its own tab; this one expects only the sign-out's 401s and aborted 204 bodies.
    expect(problems.filter((p) => !/status of 40[01]/.test(p) && !(p.startsWith('requestfailed:') && p.endsWith('net::ERR_ABORTED')))).toEqual([]);
  });
});
