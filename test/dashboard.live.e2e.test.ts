import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { runSweep } from '../core/sweep/index.js';
import { createTestContext, type TestContext } from './harness.js';
import { collectProblems, hasBrowser, launchBrowser, CHROMIUM } from './support/browser.js';
import { createChannel } from './support/alerting.js';
import { createCheck, inboundBody, type User } from './support/checks.js';
import { axeViolations, fill, followServerClock, serveDashboard, setColorScheme } from './support/dashboard.js';

if (!hasBrowser) console.warn(`dashboard live browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

/** A user with a fixed address (each test table is new), so the screenshots are the same every run. */
async function signUpAda(t: TestContext): Promise<User> {
  const email = 'ada@example.com';
  const password = 'correct horse battery';
  const res = await t.request<{ access_token: string; refresh_token: string; user: { id: number }; workspace: { id: number } }>('POST', '/auth/signup', {
    body: { email, password, name: 'Ada' },
  });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  const projects = await t.request<{ id: number }[]>('GET', `/projects?workspaceId=${res.body.workspace.id}`, { token: res.body.access_token });
  const projectId = projects.body[0]?.id;
  if (projectId === undefined) throw new Error('signup made no default project');
  return { email, password, token: res.body.access_token, refreshToken: res.body.refresh_token, userId: res.body.user.id, workspaceId: res.body.workspace.id, projectId };
}

const SCREENSHOTS = new URL('../docs/screenshots/', import.meta.url);

/**
 * The dashboard's live side end to end in Chromium against the real app, the built SPA and the
 * local WebSocket stream: a ping turns a row OK without a reload; missed pings turn it LATE then
 * DOWN and the incident appears in another tab; acknowledge, a note, one made elsewhere shown
 * live, resolve; an access token
 * that expired on the server's clock is refreshed unseen; sign out. The server's clock and sweep
 * are the test's; every wait is for a DOM condition.
 */
describe.skipIf(!hasBrowser)('the dashboard in Chromium: live, incidents, session', () => {
  let t: TestContext;
  let browser: Browser;
  let page: Page;
  let incidentsTab: Page;
  let site: Awaited<ReturnType<typeof serveDashboard>>;
  let problems: string[];
  let user: User;
  let check: { id: number; token: string };
  let incidentId = 0;
  let stagingProjectId = 0;
  const clocks: (() => Promise<void>)[] = [];
  /** Every WebSocket URL the tabs opened (from the DevTools protocol), to check that no token travels in one. */
  const socketUrls: string[] = [];
  /** The API's answers as the server gave them ("<status> <method> <path>"). */
  const served: string[] = [];
  /** The server's clock moves, and every tab's clock with it. */
  const advance = async (seconds: number) => {
    t.clock.advanceSeconds(seconds);
    for (const sync of clocks) await sync().catch(() => undefined);
  };

  const go = (tab: Page, path: string) => tab.goto(`${site.origin}${path}`, { waitUntil: 'domcontentloaded' });
  const clickText = async (tab: Page, selector: string, text: string) => {
    const handle = await tab.waitForSelector(`${selector}::-p-text(${text})`);
    await handle?.click();
  };
  const toast = (tab: Page, text: string) => tab.waitForSelector(`.toast ::-p-text(${text})`, { timeout: 15_000 });
  /** The status a row of the checks table shows for `name` (its data-status), once it is `status`. */
  const rowStatus = (tab: Page, name: string, status: string) =>
    tab.waitForFunction(
      (wanted: string, expected: string) =>
        [...document.querySelectorAll('.checks-table tbody tr')].some(
          (row) => [...row.querySelectorAll('a')].some((a) => a.textContent === wanted) && row.querySelector('[data-status]')?.getAttribute('data-status') === expected,
        ),
      { timeout: 15_000 },
      name,
      status,
    );
  /** A marker in the page's memory: still there later means the page was never reloaded. */
  const mark = (tab: Page) => tab.evaluate(() => ((window as unknown as { vigilMark: number }).vigilMark = 42));
  const marked = (tab: Page) => tab.evaluate(() => (window as unknown as { vigilMark?: number }).vigilMark === 42);
  const expectAccessible = async (tab: Page, label: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(tab, scheme);
      expect(await axeViolations(tab), `${label} (${scheme})`).toEqual([]);
    }
    await setColorScheme(tab, 'light');
  };
  /** A light and a dark PNG of the screen as it stands, for the README. */
  const screenshot = async (tab: Page, name: string) => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // A tab in the background paints nothing, and its screenshot would wait for a frame.
    await tab.bringToFront();
    // Toasts of earlier steps would cover the screen; each is dismissed by its own button.
    for (const close of await tab.$$('.toast button[aria-label=Dismiss]')) await close.click();
    await tab.waitForFunction(() => document.querySelector('.toast') === null);
    await tab.evaluate(() => window.scrollTo(0, 0));
    // Everything on screen loaded: no skeleton left.
    await tab.waitForFunction(() => document.querySelector('.skeleton') === null, { timeout: 15_000 });
    for (const scheme of ['light', 'dark'] as const) {
      await setColorScheme(tab, scheme);
      // Focus rings and the mouse's hover would differ from run to run.
      await tab.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await tab.mouse.move(0, 0);
      await tab.screenshot({ path: new URL(`${name}-${scheme}.png`, SCREENSHOTS).pathname as `${string}.png` });
    }
    await setColorScheme(tab, 'light');
  };
  /** The server's clock moves and the sweep runs, as its schedule would; then the queue's consumers. */
  const sweepAfter = async (seconds: number) => {
    await advance(seconds);
    await runSweep(t.deps);
    await t.deps.queue.drain();
  };
  const newTab = async () => {
    const tab = await browser.newPage();
    await tab.setViewport({ width: 1280, height: 800 });
    // Dates render in one zone whatever the machine's, so the screenshots do not change.
    await tab.emulateTimezone('UTC');
    clocks.push((await followServerClock(tab, () => t.clock.now())).syncClock);
    const devtools = await tab.createCDPSession();
    await devtools.send('Network.enable');
    devtools.on('Network.webSocketCreated', (event) => socketUrls.push(event.url));
    problems.push(...collectProblems(tab));
    return tab;
  };

  beforeAll(async () => {
    t = await createTestContext();
    user = await signUpAda(t);
    site = await serveDashboard(t, served);
    browser = await launchBrowser();
    problems = [];
    page = await newTab();
    const staging = await t.request<{ id: number }>('POST', '/projects', { token: user.token, body: { name: 'Staging', workspaceId: user.workspaceId } });
    stagingProjectId = staging.body.id;
    // Someone to tell: the timeline's ALERT_SENT entries say who was told, and when.
    await createChannel(t, user, { type: 'EMAIL', config: { email: 'oncall@example.com' } });
    const created = await createCheck(t, user, inboundBody(user, { name: 'nightly backup', intervalSeconds: 300, graceSeconds: 30 }));
    check = { id: created.id, token: created.token ?? '' };
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('signs in with the password (the sign-in screen is accessible)', async () => {
    await go(page, '/signin');
    await page.waitForSelector('form input[name=email]');
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await fill(page, 'input[name=email]', user.email);
    await fill(page, 'input[name=password]', user.password);
    await clickText(page, 'button', 'Sign in');
    await rowStatus(page, 'nightly backup', 'NEW');
    expect(new URL(page.url()).pathname).toBe('/checks');
    await page.waitForSelector('.live ::-p-text(Live)');
    // The stream's URL carries a single-use ticket, never the access token.
    expect(socketUrls).toHaveLength(1);
    expect(socketUrls[0]).toMatch(/\/api\/ws\?stream=signals&ticket=[A-Za-z0-9_-]{43}$/);
  });

  it('a ping from outside turns the row OK without a reload', async () => {
    await mark(page);
    const ping = await t.request('GET', `/signals/ping/${check.token}`);
    expect(ping.status).toBe(200);
    await rowStatus(page, 'nightly backup', 'OK');
    await t.deps.queue.drain();
    expect(await marked(page)).toBe(true);
  });

  it('says "Reconnecting…" when the stream drops, then "Live" again (the next test sees rows change over the new connection)', async () => {
    // The server ends the user's stream connections (as a change of their access does): the page reconnects by itself.
    await t.deps.broadcaster.closeUserStreams(user.userId);
    await page.waitForSelector('.live ::-p-text(Reconnecting…)', { timeout: 15_000 });
    await page.waitForSelector('.live ::-p-text(Live)', { timeout: 15_000 });
    await t.deps.queue.drain();
    // A fresh ticket for the new connection (a ticket works once).
    expect(socketUrls).toHaveLength(2);
    expect(new Set(socketUrls).size).toBe(2);
    expect(await marked(page)).toBe(true);
  });

  it('missed pings turn the row LATE then DOWN, and the incident appears in another tab, live', async () => {
    incidentsTab = await newTab();
    await go(incidentsTab, '/incidents');
    await incidentsTab.waitForSelector('section.empty ::-p-text(No active incidents)');
    await incidentsTab.waitForSelector('.live ::-p-text(Live)');
    await expectAccessible(incidentsTab, 'empty incidents list');
    await mark(incidentsTab);
    // Interval 300 s, grace 30 s: LATE at 330 s after the ping, DOWN at 360 s.
    await sweepAfter(331);
    await rowStatus(page, 'nightly backup', 'LATE');
    const row = await incidentsTab.waitForSelector('.incidents-table tbody tr[data-incident]', { timeout: 15_000 });
    incidentId = Number(await row?.evaluate((tr) => tr.getAttribute('data-incident')));
    await sweepAfter(30);
    await rowStatus(page, 'nightly backup', 'DOWN');
    await incidentsTab.waitForSelector(`.incidents-table tr[data-incident="${incidentId}"] [data-severity="P1"]`, { timeout: 15_000 });
    expect(await marked(page)).toBe(true);
    expect(await marked(incidentsTab)).toBe(true);
    await expectAccessible(incidentsTab, 'incidents list');
    await screenshot(incidentsTab, 'incidents-list');
    await screenshot(page, 'checks-list');
    // The header's project narrows the list on the server: Staging has no incident, all projects have one.
    const projectSelect = (value: string) => incidentsTab.select('.switcher label:nth-of-type(2) select', value);
    await projectSelect(String(stagingProjectId));
    await incidentsTab.waitForSelector('section.empty ::-p-text(No active incidents)');
    await projectSelect('');
    await incidentsTab.waitForSelector(`.incidents-table tr[data-incident="${incidentId}"]`);
  }, 60_000);

  it('acknowledges the incident, adds and edits a note, and resolves it', async () => {
    await incidentsTab.close();
    await advance(61);
    await go(page, `/checks/${check.id}`);
    await page.waitForSelector('h1 ::-p-text(nightly backup)');
    await screenshot(page, 'check-detail');
    await go(page, '/incidents');
    await clickText(page, `.incidents-table tr[data-incident="${incidentId}"] a`, 'nightly backup');
    await page.waitForSelector('#incident-title');
    expect(new URL(page.url()).pathname).toBe(`/incidents/${incidentId}`);
    await page.waitForSelector('.timeline [data-event=OPENED]');
    // Who was told and when: the e-mail channel, at the incident's opening.
    const told = await page.waitForSelector('.timeline [data-event=ALERT_SENT]');
    expect(await told?.evaluate((li) => li.textContent)).toMatch(/^✉Alert sent .*Alert sent to EMAIL channel "email channel"/);
    await clickText(page, 'button', 'Acknowledge');
    await toast(page, 'Incident acknowledged');
    await page.waitForSelector('.timeline [data-event=ACKNOWLEDGED] ::-p-text(by you)');
    await fill(page, '.note-form textarea', 'Backup disk full; <b>cleared</b> old snapshots.');
    await clickText(page, 'button', 'Add note');
    await toast(page, 'Note added');
    // Text stays text: the angle brackets are shown, no element is made of them.
    const note = await page.waitForSelector('.note-body ::-p-text(<b>cleared</b>)');
    expect(await note?.evaluate((el) => el.querySelector('b'))).toBeNull();
    await clickText(page, '.note button', 'Edit');
    await advance(5);
    await fill(page, '.note textarea', 'Backup disk full; cleared old snapshots.');
    await clickText(page, '.note button', 'Save note');
    await toast(page, 'Note saved');
    await page.waitForSelector('.note-meta ::-p-text((edited))');
    await expectAccessible(page, 'incident detail');
    await screenshot(page, 'incident-detail');
    // A note made elsewhere (over the API, as by a colleague's tab) appears and goes without a reload.
    await mark(page);
    const elsewhere = await t.request<{ id: number }>('POST', `/incident-notes/${incidentId}`, { token: user.token, body: { body: 'Paged the storage team.' } });
    expect(elsewhere.status).toBe(201);
    await page.waitForSelector('.note-body ::-p-text(Paged the storage team.)', { timeout: 15_000 });
    expect((await t.request('DELETE', `/incident-notes/${incidentId}/${elsewhere.body.id}`, { token: user.token })).status).toBe(204);
    await page.waitForFunction(() => ![...document.querySelectorAll('.note-body')].some((el) => el.textContent?.includes('storage team')), { timeout: 15_000 });
    expect(await marked(page)).toBe(true);
    await clickText(page, 'button', 'Resolve');
    await toast(page, 'Incident resolved');
    await page.waitForSelector('.facts [data-state=RESOLVED]');
    await page.waitForSelector('.timeline [data-event=RESOLVED]');
    const state = await t.request<{ state: string; acknowledgedBy: number }>('GET', `/incidents/${incidentId}`, { token: user.token });
    expect(state.body).toMatchObject({ state: 'RESOLVED', acknowledgedBy: user.userId });
  }, 60_000);

  it('deletes its own note after confirming', async () => {
    await clickText(page, '.note button', 'Delete');
    await clickText(page, '[role=alertdialog] button', 'Delete note');
    await toast(page, 'Note deleted');
    await page.waitForSelector('section.empty ::-p-text(No notes yet)');
  });

  it('refreshes an access token that expired on the server unseen, then signs out for good', async () => {
    served.length = 0;
    await mark(page);
    // Past the access token's 15 minutes on the server's clock: the next request is a 401.
    await advance(t.config.accessTokenTtlSeconds + 1);
    await clickText(page, 'a', 'Incidents');
    await clickText(page, 'button', 'Resolved');
    await page.waitForSelector(`.incidents-table tr[data-incident="${incidentId}"] [data-state=RESOLVED]`, { timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/incidents');
    // One 401 (or a few, in flight together), one refresh by cookie, and the retries answered.
    expect(served.filter((line) => line.endsWith(' /api/oauth/token'))).toEqual(['200 POST /api/oauth/token']);
    expect(served.some((line) => line.startsWith('401 '))).toBe(true);
    expect(await marked(page)).toBe(true);
    await clickText(page, 'button', 'Sign out');
    await page.waitForSelector('form input[name=email]');
    expect(new URL(page.url()).pathname).toBe('/signin');
    await go(page, '/incidents');
    await page.waitForSelector('form input[name=email]');
    expect(new URL(page.url()).pathname).toBe('/signin');
  });

  it('logged no console error, page error or failed request but the expected 401s', () => {
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
  });
});
