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
  const email = `e2e-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const ids: Record<string, number> = {};

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
  const toast = (text: string) => page.waitForSelector(`.toast ::-p-text(${text})`, { timeout: 15_000 });

  beforeAll(async () => {
    t = await probeContext();
    target = await targetServer();
    site = await serveDashboard(t);
    browser = await launchBrowser();
    await browser.defaultBrowserContext().overridePermissions(site.origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    problems = collectProblems(page);
    page.on('response', (r) => {
      if (r.status() >= 200 && new URL(r.url()).pathname.startsWith('/api/') && (r.status() >= 400 || r.status() === 204)) responses.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
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
    await clickText('label', 'HTTP: Vigil requests a URL');
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
  });

  it('filters by kind and status, searches by name, and bulk-pauses', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'api health']);
    // The HTTP row's sparkline comes from the sparklines endpoint (two probe rounds ran).
    await page.waitForSelector(`tr[data-check-id="${ids.http}"] svg.sparkline`);
    await expectAccessible('checks list');
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

  it('stays signed in across a reload (cookie refresh), then signs out for good', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await go('/checks');
    await waitForRows(page, ['nightly backup', 'api health']);
    await page.reload({ waitUntil: 'domcontentloaded' });
    await waitForRows(page, ['nightly backup', 'api health']);
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
    // The validation test's 400 is the one expected failure (Chromium logs every 4xx), and
    // openapi-fetch cancels a 204's empty body, which Chromium reports as an aborted request.
    expect(responses.filter((r) => r.startsWith('400 ')), 'the 400s').toEqual(['400 POST /api/checks']);
    const aborted204 = new Set(responses.filter((r) => r.startsWith('204 ')).map((r) => r.split(' ')[2]));
    const unexpected = problems.filter((p) => !/status of 400/.test(p) && !(p.startsWith('requestfailed:') && p.endsWith('net::ERR_ABORTED') && aborted204.has(new URL(p.split(' ')[1] ?? '').pathname)));
    expect(unexpected).toEqual([]);
  });
});
