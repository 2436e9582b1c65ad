import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { collectProblems, hasBrowser, launchBrowser, CHROMIUM } from './support/browser.js';
import { freshRateWindow } from './support/checks.js';
import { axeViolations, fill, serveDashboard, setColorScheme, tableRows, waitForRows } from './support/dashboard.js';
import { probeContext, runRound, targetServer } from './support/probes.js';
import type { TestContext } from './harness.js';

if (!hasBrowser) console.warn(`dashboard browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

/**
 * The dashboard end to end in Chromium against the real app and the built SPA: sign up, a
 * heartbeat job and its ping URL, an HTTP check probing a loopback server, filters, search,
 * bulk pause, a reload that keeps the session, sign-out. axe-core checks each screen in light
 * and dark. Every wait is for a DOM condition; the server's clock is the test's.
 */
describe.skipIf(!hasBrowser)('the dashboard in Chromium: checks', () => {
  let t: TestContext;
  let browser: Browser;
  let page: Page;
  let site: { origin: string; close: () => Promise<void> };
  let target: Awaited<ReturnType<typeof targetServer>>;
  let problems: string[];
  const responses: string[] = [];
  /** The API's answers as the server gave them ("<status> <method> <path>"). */
  const served: string[] = [];
  const tokenCalls = () => served.filter((r) => r.endsWith(' POST /api/oauth/token'));
  const email = `e2e-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const ids: Record<string, number> = {};
  let firstProject = 0;

  const go = async (path: string) => {
    await page.goto(`${site.origin}${path}`, { waitUntil: 'domcontentloaded' });
  };
  const expectAccessible = async (label: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(page, scheme);
      expect(await axeViolations(page), `${label} (${scheme})`).toEqual([]);
    }
    await setColorScheme(page, 'light');
  };
  const clickText = async (selector: string, text: string) => {
    const handle = await page.waitForSelector(`${selector}::-p-text(${text})`);
    await handle?.click();
  };
  /** Picks an option of the list's status or kind filter ('' is "any"). */
  const chooseFilter = async (label: 'Status' | 'Kind', value: string) => {
    await page.select(`.filters select[name=${label === 'Status' ? 'status' : 'kind'}]`, value);
  };
  /** The README's screenshots of a screen, light and dark (docs/screenshots/<name>-light.png, -dark.png). */
  const screenshot = async (name: string) => {
    mkdirSync('docs/screenshots', { recursive: true });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(page, scheme);
      await page.screenshot({ path: `docs/screenshots/${name}-${scheme}.png`, fullPage: true });
    }
    await setColorScheme(page, 'light');
  };
  /** A Bearer token of the test's user, to look at the API's side of things. */
  const bearer = async () => (await t.request<{ access_token: string }>('POST', '/oauth/token', { body: { grant_type: 'password', username: email, password } })).body.access_token;
  const toast = (text: string) => page.waitForSelector(`.toast ::-p-text(${text})`, { timeout: 15_000 });

  beforeAll(async () => {
    t = await probeContext();
    // The browser shows times relative to its own clock: start the server's at the same moment.
    t.clock.set(new Date());
    target = await targetServer();
    site = await serveDashboard(t, served);
    browser = await launchBrowser();
    await browser.defaultBrowserContext().overridePermissions(site.origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    problems = collectProblems(page);
    page.on('response', (r) => {
      if (r.status() >= 200 && new URL(r.url()).pathname.startsWith('/api/') && (r.status() >= 400 || r.status() === 204))
        responses.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await target?.close();
  });

  it('sign-in is accessible in light and dark', { timeout: 90_000 }, async () => {
    await go('/signin');
    await page.waitForSelector('form input[name=email]');
    await expectAccessible('sign-in');
    await go('/signup');
    await page.waitForSelector('form input[name=password]');
    await expectAccessible('sign-up');
  });

  it('signs up and lands on an empty checks list that says what to do', { timeout: 90_000 }, async () => {
    await go('/signup');
    await fill(page, 'input[name=name]', 'Ada');
    await fill(page, 'input[name=email]', email);
    await fill(page, 'input[name=password]', password);
    await clickText('button', 'Sign up');
    await page.waitForSelector('section.empty ::-p-text(No checks yet)');
    expect(new URL(page.url()).pathname).toBe('/checks');
    await expectAccessible('empty checks list');
  });

  it('creates a heartbeat job with a cron schedule previewed as typed, and copies its ping URL', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await clickText('a', 'New check');
    await page.waitForSelector('form[aria-label="New check"]');
    await expectAccessible('new check form');
    await fill(page, 'input[name=name]', 'nightly backup');
    await clickText('label', 'Cron schedule');
    await fill(page, 'input[name=schedule]', '30 2 * * *');
    await fill(page, 'input[name=timezone]', 'Europe/Berlin');
    // Five due times, each at 02:30 Berlin time.
    await page.waitForFunction(() => document.querySelectorAll('.due-times li').length === 5);
    await fill(page, 'input[name=schedule]', '61 2 * * *');
    await page.waitForSelector('.cron-preview ::-p-text(Not a usable schedule)');
    await fill(page, 'input[name=schedule]', '30 2 * * *');
    await page.waitForFunction(() => document.querySelectorAll('.due-times li').length === 5);
    await clickText('button', 'Create check');
    await page.waitForSelector('#ping-url');
    await toast('Created “nightly backup”');
    ids.job = Number(new URL(page.url()).pathname.split('/')[2]);
    const pingUrl = await page.$eval('#ping-url', (input) => (input as HTMLInputElement).value);
    expect(pingUrl).toMatch(/\/api\/signals\/ping\/[A-Za-z0-9_-]+$/);
    await page.click('button[aria-label="Copy the ping URL"]');
    await toast('Copied to the clipboard');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(pingUrl);
    // The copied URL is the job's: a ping to its path is taken.
    const ping = await t.request('GET', new URL(pingUrl).pathname);
    expect(ping.status).toBe(200);
    await expectAccessible('heartbeat detail');
  });

  it('shows the API validation details beside their fields', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks/new');
    await fill(page, 'input[name=name]', 'too fast');
    await fill(page, 'input[name=intervalSeconds]', '5');
    // The browser's own min check would stop the form: the API must be the one judging here.
    await page.$eval('form.check-form', (form) => form.setAttribute('novalidate', ''));
    await clickText('button', 'Create check');
    const error = await page.waitForSelector('input[name=intervalSeconds][aria-invalid=true]');
    const describedBy = await error?.evaluate((input) => input.getAttribute('aria-describedby') ?? '');
    const message = await page.$eval(`[id="${describedBy?.split(' ').pop()}"]`, (el) => el.textContent);
    expect(message).toMatch(/60|greater|least/i);
  });

  it('creates an HTTP check against a local server and shows its probes', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks/new');
    // A DOM click, not one at the label's coordinates: a toast of the test before may still lie
    // over them on a loaded machine, and the click would land on it (the URL field never showing).
    await (await page.waitForSelector('label::-p-text(HTTP: Vigil requests a URL)'))?.evaluate((label) => (label as HTMLLabelElement).click());
    await fill(page, 'input[name=name]', 'api health');
    await fill(page, 'input[name=url]', `${target.origin}/health`);
    await clickText('button', 'Create check');
    await page.waitForSelector('#probe-title');
    ids.http = Number(new URL(page.url()).pathname.split('/')[2]);
    await runRound(t, ids.http);
    await runRound(t, ids.http);
    freshRateWindow(t);
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.chart .uplot');
    await page.waitForSelector('.stats ::-p-text(100.00 %)');
    await expectAccessible('HTTP check detail');
    await screenshot('http-check-detail');
  });

  it('filters by kind and status, searches by name, and bulk-pauses', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'api health']);
    // The HTTP row's sparkline comes from the sparklines endpoint (two probe rounds ran).
    await page.waitForSelector(`tr[data-check-id="${ids.http}"] svg.sparkline`);
    await expectAccessible('checks list');
    await screenshot('checks-list-http');
    await chooseFilter('Kind', 'HTTP');
    await waitForRows(page, ['api health']);
    expect(new URL(page.url()).searchParams.get('kind')).toBe('HTTP');
    await chooseFilter('Kind', '');
    await waitForRows(page, ['nightly backup', 'api health']);
    // `/` focuses the search; the match is case-insensitive and on the server.
    await page.keyboard.press('/');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('search');
    await page.keyboard.type('NIGHT');
    await waitForRows(page, ['nightly backup']);
    expect(new URL(page.url()).searchParams.get('q')).toBe('NIGHT');
    await fill(page, 'input[type=search]', '');
    await waitForRows(page, ['nightly backup', 'api health']);
    await page.click('input[aria-label="Select all checks on this page"]');
    await clickText('.bulk-bar button', 'Pause');
    await toast('Paused 2 checks');
    await page.waitForFunction(() => [...document.querySelectorAll('.checks-table [data-status]')].every((el) => el.getAttribute('data-status') === 'PAUSED'));
    expect((await tableRows(page)).map(([, status]) => status)).toEqual(['PAUSED', 'PAUSED']);
    await chooseFilter('Status', 'OK');
    await page.waitForSelector('section.empty ::-p-text(No check matches)');
    await chooseFilter('Status', 'PAUSED');
    await waitForRows(page, ['nightly backup', 'api health']);
  });

  it('deletes in bulk only after the undo window: Undo keeps the check, letting the toast go deletes it', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'api health']);
    await page.click('input[aria-label="Select api health"]');
    await clickText('.bulk-bar button', 'Delete');
    await waitForRows(page, ['nightly backup']);
    await clickText('.toast button', 'Undo');
    await toast('Delete undone');
    await waitForRows(page, ['nightly backup', 'api health']);
    expect((await t.request('GET', `/checks/${ids.http}`, { token: await bearer() })).status).toBe(200);
    await page.click('input[aria-label="Select api health"]');
    await clickText('.bulk-bar button', 'Delete');
    await waitForRows(page, ['nightly backup']);
    // Dismissing the toast ends the undo window at once (as its timeout would).
    const undoToast = await page.waitForSelector('.toast:has(.toast-title) ::-p-text(Deleting 1 check)');
    await undoToast?.evaluate((title) => title.closest('.toast')?.querySelector<HTMLButtonElement>('button[aria-label="Dismiss"]')?.click());
    await toast('Deleted 1 check');
    expect((await t.request('GET', `/checks/${ids.http}`, { token: await bearer() })).status).toBe(404);
  });

  it('creates a project from the switcher and files a new check under it', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    firstProject = (await t.request<{ id: number }[]>('GET', '/projects', { token: await bearer() })).body[0]?.id ?? 0;
    await clickText('button', 'New project');
    await fill(page, 'form[aria-label="New project"] input', 'Payments');
    await clickText('form[aria-label="New project"] button', 'Create');
    await toast('Project “Payments” created');
    // The new project is selected: the list shows only its checks (none yet).
    await page.waitForSelector('section.empty ::-p-text(No check matches)');
    await clickText('a', 'New check');
    // The form files the check under the project chosen in the switcher.
    await page.waitForFunction(() => [...document.querySelectorAll('form.check-form select')].some((s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent === 'Payments'));
    await fill(page, 'input[name=name]', 'settlement export');
    await clickText('button', 'Create check');
    await page.waitForSelector('#ping-url');
    // Edit it, then move it back to the first project.
    await clickText('a', 'Edit');
    await page.waitForSelector('form[aria-label="Edit settlement export"]');
    await expectAccessible('edit form');
    await fill(page, 'input[name=graceSeconds]', '30');
    await clickText('button', 'Save');
    await toast('Saved “settlement export”');
    await page.waitForSelector('.facts ::-p-text(30 s)');
    await page.select('form[aria-label="Move to another project"] select', String(firstProject));
    await clickText('form[aria-label="Move to another project"] button', 'Move');
    await toast('Moved to Default');
    const moved = await t.request<{ projectId: number; graceSeconds: number }>('GET', `/checks/${new URL(page.url()).pathname.split('/')[2]}`, { token: await bearer() });
    expect(moved.body).toMatchObject({ projectId: firstProject, graceSeconds: 30 });
    await clickText('nav a', 'Checks');
    await page.waitForSelector('section.empty ::-p-text(No check matches)');
  });

  it("is usable at a phone's width: no sideways scrolling, no axe violation", { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    // Width only: isMobile would make puppeteer reload the page under the next navigation.
    await page.setViewport({ width: 375, height: 800 });
    try {
      for (const path of ['/checks', `/checks/${ids.job}`, '/checks/new']) {
        await go(path);
        await page.waitForSelector(path === '/checks' ? '.checks-table' : path === '/checks/new' ? 'form.check-form' : '#ping-url');
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(375);
        await expectAccessible(`${path} at 375 px`);
      }
    } finally {
      await page.setViewport({ width: 1280, height: 900 });
    }
  });

  it('refreshes an expired access token unseen, with one refresh for all the requests that failed', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'settlement export']);
    // Visit the job's page so its check, signals and incidents are cached, then come back.
    await clickText('.checks-table a', 'nightly backup');
    await page.waitForSelector('#signals-title');
    await page.waitForSelector('#incidents-title ~ p');
    await clickText('a', 'All checks');
    await waitForRows(page, ['nightly backup', 'settlement export']);
    // A write marks every cached check query stale (it is refetched when next shown).
    await page.click('input[aria-label="Select nightly backup"]');
    await clickText('.bulk-bar button', 'Resume');
    await toast('Resumed 1 check');
    const before = served.length;
    const refreshesBefore = tokenCalls().length;
    // Past the access token's lifetime; the refresh token lives far longer.
    t.clock.advanceSeconds(86_400 + 60);
    // Its page now refetches three queries at once, each answered 401 with the expired token.
    await clickText('.checks-table a', 'nightly backup');
    await page.waitForFunction(() => document.querySelector('[data-status]')?.getAttribute('data-status') !== 'PAUSED');
    await page.waitForSelector('#signals-title ~ .table-wrap, #signals-title ~ p.muted');
    const unauthorized = served.slice(before).filter((r) => r.startsWith('401 '));
    expect(unauthorized.length).toBeGreaterThanOrEqual(2);
    expect(tokenCalls().length - refreshesBefore).toBe(1);
    expect(await page.$('form input[name=email]')).toBeNull();
    // A write with a body is retried too, with the same body, after its 401.
    t.clock.advanceSeconds(86_400 + 60);
    await clickText('a', 'All checks');
    await waitForRows(page, ['nightly backup', 'settlement export']);
    await page.click('input[aria-label="Select nightly backup"]');
    await clickText('.bulk-bar button', 'Pause');
    await toast('Paused 1 check');
    expect(served.slice(before).filter((r) => r === '401 POST /api/checks/bulk')).toHaveLength(1);
    expect(tokenCalls().length - refreshesBefore).toBe(2);
    const job = await t.request<{ paused: boolean }>('GET', `/checks/${ids.job}`, { token: await bearer() });
    expect(job.body.paused).toBe(true);
  });

  it('switches the theme by hand, over the OS preference, and keeps it across a reload', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'settlement export']);
    await page.select('.theme-switch select', 'dark');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(15, 19, 24)');
    expect(await axeViolations(page)).toEqual([]);
    await page.reload({ waitUntil: 'domcontentloaded' });
    await waitForRows(page, ['nightly backup', 'settlement export']);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.select('.theme-switch select', 'system');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBeUndefined();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(247, 248, 250)');
  });

  it('works from the keyboard: / to search, Tab to the rows, Space to select, the bulk bar by Shift+Tab, focus always visible', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'settlement export']);
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return { label: el?.getAttribute('aria-label') ?? el?.textContent?.trim() ?? '', outline: el ? getComputedStyle(el).outlineStyle : 'none' };
      });
    await page.keyboard.press('/');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ label: 'Select all checks on this page', outline: 'solid' });
    await page.keyboard.press('Space');
    await page.waitForSelector('.bulk-bar');
    // The bar sits before the table: Shift+Tab walks back through Clear, Delete, Resume, Pause.
    for (let i = 0; i < 4; i++)
      await page.keyboard
        .down('Shift')
        .then(() => page.keyboard.press('Tab'))
        .then(() => page.keyboard.up('Shift'));
    expect(await focused()).toEqual({ label: 'Pause', outline: 'solid' });
    await page.keyboard.press('Enter');
    await toast('Paused 2 checks');
    await page.waitForFunction(() => [...document.querySelectorAll('.checks-table [data-status]')].every((el) => el.getAttribute('data-status') === 'PAUSED'));
  });

  it('stays signed in across a reload (cookie refresh), then signs out for good', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'settlement export']);
    await page.reload({ waitUntil: 'domcontentloaded' });
    await waitForRows(page, ['nightly backup', 'settlement export']);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toMatch(/eyJ|token/i);
    await clickText('button', 'Sign out');
    await page.waitForSelector('form input[name=email]');
    expect(new URL(page.url()).pathname).toBe('/signin');
    // The session is gone on the server too: a fresh load cannot refresh its way back in.
    await go('/checks');
    await page.waitForSelector('form input[name=email]');
    expect(new URL(page.url()).pathname).toBe('/signin');
  });

  it('logged no console error, page error, failed request or CSP violation', () => {
    // The validation test's 400 and the expired token's 401s are the expected failures (Chromium
    // logs every 4xx; both are asserted where they happen), and
    // openapi-fetch cancels a 204's empty body, which Chromium reports as an aborted request.
    expect(
      responses.filter((r) => r.startsWith('400 ')),
      'the 400s',
    ).toEqual(['400 POST /api/checks']);
    const aborted204 = new Set(responses.filter((r) => r.startsWith('204 ')).map((r) => r.split(' ')[2]));
    const unexpected = problems.filter(
      (p) => !/status of 40[01]/.test(p) && !(p.startsWith('requestfailed:') && p.endsWith('net::ERR_ABORTED') && aborted204.has(new URL(p.split(' ')[1] ?? '').pathname)),
    );
    expect(unexpected).toEqual([]);
  });
});
