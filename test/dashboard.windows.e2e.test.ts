import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'puppeteer-core';
import { runSweep } from '../core/sweep/index.js';
import type { Page as Envelope } from '../core/http/pagination.js';
import { createTestContext, type TestContext } from './harness.js';
import { CHROMIUM, hasBrowser, launchBrowser } from './support/browser.js';
import { createChannel } from './support/alerting.js';
import { addMember, createCheck, freshRateWindow, inboundBody, LONG_SESSIONS, type User } from './support/checks.js';
import { fill, serveDashboard } from './support/dashboard.js';
import { clickText, expectAccessible, screenshot, setValue, signedInTab, toast, type Tab } from './support/dashboardTabs.js';

if (!hasBrowser) console.warn(`dashboard windows browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

type Incident = { id: number; state: string };
type IncidentEvent = { type: string };

/**
 * Maintenance windows and deployments end to end in Chromium against the real app and the built
 * SPA: a recurring window made in the form with its occurrences previewed (across a DST change),
 * shown on the list and the month calendar; a window made in the form that holds the alert of a
 * check going DOWN inside it while the same failure elsewhere alerts; cancelling it; ending a
 * deployment; a VIEWER without controls. The server's clock and sweep are the test's.
 */
describe.skipIf(!hasBrowser)('the dashboard in Chromium: maintenance windows and deployments', () => {
  let t: TestContext;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof serveDashboard>>;
  let ada: User;
  let vic: User;
  let admin: Tab;
  let paymentsId = 0;
  const served: string[] = [];
  const checks = { held: { id: 0, token: '' }, elsewhere: { id: 0, token: '' } };

  const incidentOf = async (checkId: number): Promise<Incident | undefined> =>
    (await t.request<Envelope<Incident>>('GET', `/incidents?workspaceId=${ada.workspaceId}&checkId=${checkId}&state=ACTIVE`, { token: ada.token })).body.items[0];
  const eventsOf = async (incidentId: number): Promise<string[]> =>
    (await t.request<IncidentEvent[]>('GET', `/incident-events/${incidentId}`, { token: ada.token })).body.map((e) => e.type);

  beforeAll(async () => {
    t = await createTestContext(LONG_SESSIONS);
    t.clock.set(new Date('2026-03-02T08:00:00.000Z'));
    ada = await t.signup('Ada');
    vic = await t.signup('Vic');
    await addMember(t, ada, vic, 'VIEWER');
    const payments = await t.request<{ id: number }>('POST', '/projects', { token: ada.token, body: { name: 'Payments', workspaceId: ada.workspaceId } });
    paymentsId = payments.body.id;
    // Someone to tell: without a window, a DOWN sends an e-mail (ALERT_SENT on the incident).
    await createChannel(t, ada, { type: 'EMAIL', config: { email: 'oncall@example.com' } });
    const held = await createCheck(t, ada, inboundBody(ada, { name: 'db backup' }));
    const elsewhere = await createCheck(t, ada, inboundBody(ada, { name: 'card sync', projectId: paymentsId }));
    checks.held = { id: held.id, token: held.token ?? '' };
    checks.elsewhere = { id: elsewhere.id, token: elsewhere.token ?? '' };
    site = await serveDashboard(t, served);
    browser = await launchBrowser();
    admin = await signedInTab(browser, site.origin, t, ada, ada.workspaceId);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('creates a recurring window with its next occurrences previewed, and shows it on the list and the calendar', { timeout: 90_000 }, async () => {
    const { page } = admin;
    await page.goto(`${site.origin}/windows`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('section.empty ::-p-text(No maintenance windows)');
    await expectAccessible(page, 'empty windows list');
    await clickText(page, 'button', 'New maintenance window');
    const form = 'form[aria-label="New maintenance window"]';
    await fill(page, `${form} input[name=name]`, 'Weekly DB upgrade');
    await fill(page, `${form} input[name=timezone]`, 'Europe/Berlin');
    await setValue(page, `${form} input[name=startAt]`, '2026-03-03T02:00');
    await setValue(page, `${form} input[name=endAt]`, '2026-03-03T03:00');
    await page.click(`${form} input[name=repeats]`);
    await fill(page, `${form} input[name=recurringCron]`, '0 2 * * 2');
    // Tuesdays 02:00 Berlin: 01:00Z in winter, 00:00Z after the change on 29 March.
    await page.waitForFunction(() => document.querySelectorAll('.window-preview li').length === 5);
    expect(await page.$$eval('.window-preview li', (items) => items.map((li) => li.getAttribute('data-occurrence')))).toEqual([
      '2026-03-03T01:00:00.000Z',
      '2026-03-10T01:00:00.000Z',
      '2026-03-17T01:00:00.000Z',
      '2026-03-24T01:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
    await fill(page, `${form} input[name=recurringCron]`, '0 2 * *');
    await page.waitForSelector('.window-preview ::-p-text(Not a usable repeat)');
    await fill(page, `${form} input[name=recurringCron]`, '0 2 * * 2');
    await page.waitForFunction(() => document.querySelectorAll('.window-preview li').length === 5);
    await expectAccessible(page, 'new window form');
    await screenshot(page, 'window-form');
    await clickText(page, 'button', 'Create window');
    await toast(page, 'Created “Weekly DB upgrade”');
    const row = await page.waitForSelector('.windows-table tr[data-window] [data-state=SCHEDULED]');
    expect(await row?.evaluate((el) => el.closest('tr')?.textContent)).toContain('0 2 * * 2');
    const created = await t.request<{ recurringCron: string; timezone: string; startAt: string; projectIds: number[] }[]>(
      'GET',
      `/maintenance-windows?workspaceId=${ada.workspaceId}`,
      { token: ada.token },
    );
    expect(created.body).toMatchObject([{ recurringCron: '0 2 * * 2', timezone: 'Europe/Berlin', startAt: '2026-03-03T01:00:00.000Z' }]);
    expect([...(created.body[0]?.projectIds ?? [])].sort()).toEqual([ada.projectId, paymentsId].sort());

    await clickText(page, 'button', 'Calendar');
    await page.waitForSelector('.window-calendar caption ::-p-text(March 2026)');
    const days = await page.$$eval('.window-calendar td:has(li[data-kind=window])', (cells) => cells.map((td) => td.getAttribute('data-date')));
    expect(days).toEqual(['2026-03-03', '2026-03-10', '2026-03-17', '2026-03-24', '2026-03-31']);
    expect(new URL(page.url()).searchParams.get('view')).toBe('calendar');
    await expectAccessible(page, 'windows calendar');
    await screenshot(page, 'windows-calendar');
  });

  it('a maintenance window that suppresses an alert: the check going DOWN inside it opens its incident but tells nobody, while the same failure outside alerts', {
    timeout: 90_000,
  }, async () => {
    freshRateWindow(t);
    await admin.sync();
    const { page } = admin;
    await page.goto(`${site.origin}/windows`, { waitUntil: 'domcontentloaded' });
    await clickText(page, 'button', 'New maintenance window');
    const form = 'form[aria-label="New maintenance window"]';
    await fill(page, `${form} input[name=name]`, 'Backup disk swap');
    await fill(page, `${form} input[name=timezone]`, 'UTC');
    const now = t.clock.now();
    const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    await setValue(page, `${form} input[name=startAt]`, minute(now.getTime()));
    await setValue(page, `${form} input[name=endAt]`, minute(now.getTime() + 3_600_000));
    // Only the default project, and alerts held while incidents still open.
    await page.click(`${form} input[name=projectIds][value="${paymentsId}"]`);
    await page.click(`${form} input[name=suppressIncidents]`);
    await clickText(page, 'button', 'Create window');
    await toast(page, 'Created “Backup disk swap”');
    const active = await page.waitForSelector('.windows-table tr:has([data-state=ACTIVE])');
    expect(await active?.evaluate((tr) => tr.textContent)).toContain('Backup disk swap');

    // Both checks ping, then miss: interval 300 s, grace 30 s, DOWN after 360 s.
    for (const check of [checks.held, checks.elsewhere]) expect((await t.request('GET', `/signals/ping/${check.token}`)).status).toBe(200);
    await t.deps.queue.drain();
    for (const seconds of [331, 30]) {
      t.clock.advanceSeconds(seconds);
      await runSweep(t.deps);
      await t.deps.queue.drain();
    }
    const held = await incidentOf(checks.held.id);
    const elsewhere = await incidentOf(checks.elsewhere.id);
    expect(held).toBeDefined();
    expect(elsewhere).toBeDefined();
    expect(await eventsOf(elsewhere?.id ?? 0)).toContain('ALERT_SENT');
    const heldEvents = await eventsOf(held?.id ?? 0);
    expect(heldEvents).toContain('OPENED');
    expect(heldEvents).not.toContain('ALERT_SENT');
    // The incident page says the same: opened, nobody told.
    await admin.sync();
    await page.goto(`${site.origin}/incidents/${held?.id}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.timeline [data-event=OPENED]');
    expect(await page.$$('.timeline [data-event=ALERT_SENT]')).toEqual([]);

    // Cancelled from the list (after confirming): suppression stops at once.
    freshRateWindow(t);
    await page.goto(`${site.origin}/windows`, { waitUntil: 'domcontentloaded' });
    // A locator, not a handle: the list may draw again (a live update) between finding and clicking.
    await page.locator('.windows-table tr:has([data-state=ACTIVE]) button::-p-text(Cancel window)').click();
    await clickText(page, '.windows-table button', 'Cancel “Backup disk swap” now');
    await toast(page, 'Cancelled “Backup disk swap”');
    await page.waitForSelector('.windows-table tr:has([data-state=CANCELLED])');
  });

  it('ends an active deployment from the list', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    const opened = await t.request<{ id: number; status: string }>('POST', '/deployments', {
      token: ada.token,
      body: { projectId: ada.projectId, name: 'api', version: 'v42', author: 'ci' },
    });
    expect(opened.body.status).toBe('ACTIVE');
    const { page } = admin;
    await page.goto(`${site.origin}/windows`, { waitUntil: 'domcontentloaded' });
    await clickText(page, `.deployments-table tr[data-deployment="${opened.body.id}"] button`, 'End now');
    await toast(page, 'Ended api');
    await page.waitForSelector(`.deployments-table tr[data-deployment="${opened.body.id}"] [data-state=ENDED]`);
    await expectAccessible(page, 'windows list');
    await screenshot(page, 'windows-list');
    await clickText(page, 'button', 'Calendar');
    await page.waitForSelector('.window-calendar li[data-kind=deployment]');
  });

  it('a VIEWER sees windows and deployments but no control it may not use', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    const viewer = await signedInTab(browser, site.origin, t, vic, ada.workspaceId);
    const { page } = viewer;
    await page.goto(`${site.origin}/windows`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.windows-table tr[data-window]');
    await page.waitForSelector('.deployments-table tr[data-deployment]');
    expect(await page.$$('.page-head button')).toEqual([]);
    expect(await page.$$('.windows-table button, .deployments-table button')).toEqual([]);
    expect(await page.$$('::-p-text(Actions)')).toEqual([]);
    await expectAccessible(page, 'windows as a viewer');
    expect(viewer.problems).toEqual([]);
    await page.browserContext().close();
  });

  it('logged no console error, page error, failed request or refused API call in the admin tab', () => {
    expect(served.filter((line) => /^4\d\d /.test(line))).toEqual([]);
    expect(admin.problems).toEqual([]);
  });
});
