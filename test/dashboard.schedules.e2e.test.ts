import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { createTestContext, type TestContext } from './harness.js';
import { CHROMIUM, hasBrowser, launchBrowser } from './support/browser.js';
import { addMember, freshRateWindow, LONG_SESSIONS, type User } from './support/checks.js';
import { fill, serveDashboard } from './support/dashboard.js';
import { clickText, expectAccessible, screenshot, setValue, signedInTab, toast, type Tab } from './support/dashboardTabs.js';

if (!hasBrowser) console.warn(`dashboard on-call browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

/** Final shifts of the timeline as the page draws them (data attributes of the final row). */
type Drawn = { user: number; start: string; end: string; localStart: string; localEnd: string; source: string };
const finalRow = (page: Page): Promise<Drawn[]> =>
  page.$$eval('.tl-final li.tl-shift', (items) =>
    items.map((li) => {
      const d = (li as HTMLElement).dataset;
      return { user: Number(d.user), start: d.start ?? '', end: d.end ?? '', localStart: d.localStart ?? '', localEnd: d.localEnd ?? '', source: d.source ?? '' };
    }),
  );

/**
 * The on-call screens end to end in Chromium against the real app and the built SPA. The server's
 * clock is set inside the week Europe/Berlin springs forward (Sunday 29 March 2026) and the pages'
 * clocks follow it; the viewed fortnight is chosen in the URL, so nothing depends on today's date.
 */
describe.skipIf(!hasBrowser)('the dashboard in Chromium: on-call schedules', () => {
  let t: TestContext;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof serveDashboard>>;
  let ada: User;
  let bob: User;
  let cy: User;
  let vic: User;
  let admin: Tab;
  let scheduleId = 0;
  /** The API's answers as the server gave them ("<status> <method> <path>"). */
  const served: string[] = [];
  const fortnight = () => `/schedules/${scheduleId}?from=2026-03-23`;

  beforeAll(async () => {
    t = await createTestContext(LONG_SESSIONS);
    t.clock.set(new Date('2026-03-25T10:00:00.000Z'));
    ada = await t.signup('Ada');
    bob = await t.signup('Bob');
    cy = await t.signup('Cy');
    vic = await t.signup('Vic');
    await addMember(t, ada, bob, 'MEMBER');
    await addMember(t, ada, cy, 'MEMBER');
    await addMember(t, ada, vic, 'VIEWER');
    site = await serveDashboard(t, served);
    browser = await launchBrowser();
    admin = await signedInTab(browser, site.origin, t, ada, ada.workspaceId);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('creates a schedule in Europe/Berlin and a daily 09:00 rotation whose handoff preview stays at 09:00 across the DST change', { timeout: 90_000 }, async () => {
    const { page } = admin;
    await page.goto(`${site.origin}/schedules`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('section.empty ::-p-text(No schedules yet)');
    await clickText(page, 'button', 'New schedule');
    await fill(page, 'form[aria-label="New schedule"] input[name=name]', 'Platform');
    await fill(page, 'form[aria-label="New schedule"] input[name=timezone]', 'Europe/Berlin');
    await expectAccessible(page, 'new schedule form');
    await clickText(page, 'button', 'Create schedule');
    await toast(page, 'Created “Platform”');
    await page.waitForSelector('h1 ::-p-text(Platform)');
    scheduleId = Number(new URL(page.url()).pathname.split('/')[2]);

    await clickText(page, 'button', 'Edit rotations');
    await clickText(page, 'button', 'Add a rotation');
    await fill(page, 'fieldset.rotation input[name=rotationName]', 'Primary');
    await page.select('fieldset.rotation select[name=type]', 'daily');
    await setValue(page, 'fieldset.rotation input[name=handoffTime]', '09:00');
    await setValue(page, 'fieldset.rotation input[name=effectiveFrom]', '2026-03-23T09:00');
    await page.select('fieldset.rotation select[name=addParticipant]', String(ada.userId));
    await page.select('fieldset.rotation select[name=addParticipant]', String(bob.userId));
    // Six handoffs from now (Wed 25 March 11:00 Berlin): 09:00 local each day, 08:00Z before the change and 07:00Z after.
    await page.waitForFunction(() => document.querySelectorAll('.handoffs li').length === 6);
    const handoffs = await page.$$eval('.handoffs li', (items) => items.map((li) => [li.getAttribute('data-handoff'), li.textContent ?? '']));
    expect(handoffs.map(([at]) => at)).toEqual([
      '2026-03-26T08:00:00.000Z',
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
    for (const [, text] of handoffs) expect(text).toContain('09:00');
    await expectAccessible(page, 'rotation editor');
    await screenshot(page, 'schedule-rotation-editor');
    await clickText(page, 'button', 'Save rotations');
    await toast(page, 'Rotations saved');
    const saved = await t.request<{ rotations: { effectiveFrom: string; handoffTime: string; participants: { userId: number }[] }[] }>('GET', `/on-call-schedules/${scheduleId}`, {
      token: ada.token,
    });
    expect(saved.body.rotations).toMatchObject([
      { effectiveFrom: '2026-03-23T08:00:00.000Z', handoffTime: '09:00', participants: [{ userId: ada.userId }, { userId: bob.userId }] },
    ]);
  });

  it('a schedule whose timeline shows a DST week in Europe/Berlin with 09:00 handoffs on both sides', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    await admin.sync();
    const { page } = admin;
    await page.goto(`${site.origin}${fortnight()}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.tl-final li.tl-shift');
    const shifts = await finalRow(page);
    // Every handoff at 09:00 Berlin time, before and after Sunday's change.
    expect(shifts.every((s) => s.localStart === '09:00')).toBe(true);
    expect(shifts.slice(0, -1).every((s) => s.localEnd === '09:00')).toBe(true);
    const byStart = new Map(shifts.map((s) => [s.start, s]));
    expect(byStart.get('2026-03-28T08:00:00.000Z')?.end).toBe('2026-03-29T07:00:00.000Z'); // the 23-hour day
    expect(byStart.get('2026-03-29T07:00:00.000Z')?.end).toBe('2026-03-30T07:00:00.000Z');
    expect(shifts.map((s) => s.user).slice(0, 4)).toEqual([ada.userId, bob.userId, ada.userId, bob.userId]);
    // Monday before 09:00 nobody is on call: the gap is drawn and said.
    expect(await page.$eval('.tl-final .tl-gap', (li) => li.getAttribute('data-gap-start'))).toBe('2026-03-22T23:00:00.000Z');
    expect(await page.$eval('.coverage', (p) => p.textContent)).toMatch(/^1 coverage gap: Mon.*23.*00:00 to Mon.*23.*09:00\.$/);
    // The layer's own turns are drawn apart from the final row; now (Wed 11:00 Berlin) is Ada's turn.
    expect(await page.$$eval('[role=group][aria-label^="Layer 1"] li', (items) => items.length)).toBe(shifts.length);
    await page.waitForSelector(`.on-call-now[data-on-call="${ada.userId}"]`);
    expect(await page.$eval('.on-call-now', (p) => p.textContent)).toMatch(/^On call now: Ada until Thu.*26.*09:00$/);
    await expectAccessible(page, 'schedule timeline');
  });

  it('creates an override from the keyboard alone: a shift of the final row, "Take this shift", Enter', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    const { page } = admin;
    await page.goto(`${site.origin}${fortnight()}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.tl-final li.tl-shift button');
    // Tab from the top of the page to the shift that starts Monday 30 March, 09:00 Berlin.
    const target = '2026-03-30T07:00:00.000Z';
    let reached = false;
    for (let presses = 0; presses < 150 && !reached; presses++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(
        (start: string) => document.activeElement?.closest('li')?.getAttribute('data-start') === start && document.activeElement.tagName === 'BUTTON',
        target,
      );
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForSelector('form.take-shift');
    // Focus went to the form: the person is chosen by typing, the reason typed, Enter submits. The
    // shift was Bob's, so the override applies while Bob would be on call (the box is ticked).
    expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.name)).toBe('overrideUserId');
    await page.keyboard.type('Cy');
    expect(await page.$eval('select[name=overrideUserId]', (s) => Number((s as HTMLSelectElement).value))).toBe(cy.userId);
    expect(await page.$eval('input[name=startAt]', (i) => (i as HTMLInputElement).value)).toBe('2026-03-30T09:00');
    expect(await page.$eval('input[name=endAt]', (i) => (i as HTMLInputElement).value)).toBe('2026-03-31T09:00');
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name === 'reason')) break;
    }
    await page.keyboard.type('swap with Bob');
    await page.keyboard.press('Enter');
    await toast(page, 'Cy takes the shift');
    const overridden = await page.waitForSelector(`.tl-final li[data-source=override][data-start="${target}"]`);
    expect(await overridden?.evaluate((li) => Number(li.getAttribute('data-user')))).toBe(cy.userId);
    await page.waitForSelector('.tl-override[data-override]');
    const overrides = await t.request<{ items: { overrideUserId: number; replacedUserId: number | null; reason: string }[] }>(
      'GET',
      `/on-call-schedules/${scheduleId}/overrides?from=2026-03-23T00:00:00Z&to=2026-04-06T00:00:00Z`,
      { token: ada.token },
    );
    expect(overrides.body.items).toMatchObject([{ overrideUserId: cy.userId, replacedUserId: bob.userId, reason: 'swap with Bob' }]);
  });

  it('draws three layers and the overrides apart, reports the hours, and makes then rotates the calendar link', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    const current = await t.request<{ rotations: Record<string, unknown>[] }>('GET', `/on-call-schedules/${scheduleId}`, { token: ada.token });
    const keep = current.body.rotations.map(({ id: _id, ...rotation }) => rotation);
    const layered = await t.request('PUT', `/on-call-schedules/${scheduleId}`, {
      token: ada.token,
      body: {
        rotations: [
          ...keep,
          {
            name: 'Secondary',
            type: 'weekly',
            layerPosition: 1,
            effectiveFrom: '2026-03-02T08:00:00Z',
            handoffTime: '09:00',
            handoffDay: 1,
            participants: [
              { userId: cy.userId, position: 0 },
              { userId: bob.userId, position: 1 },
            ],
          },
          {
            name: 'Nights',
            type: 'custom',
            layerPosition: 2,
            effectiveFrom: '2026-03-20T21:00:00Z',
            customShiftHours: 12,
            handoffTime: '00:00',
            participants: [
              { userId: vic.userId, position: 0 },
              { userId: cy.userId, position: 1 },
            ],
          },
        ],
      },
    });
    expect(layered.status).toBe(200);
    const { page } = admin;
    await page.goto(`${site.origin}${fortnight()}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('[role=group][aria-label^="Layer 3"] li');
    // The lower layers cover Monday morning: no gap is left.
    await page.waitForSelector('.coverage[data-gaps="0"]');
    expect(await page.$$eval('.tl-row[role=group]', (rows) => rows.map((r) => r.getAttribute('aria-label')))).toEqual([
      'Layer 1: Primary',
      'Layer 2: Secondary',
      'Layer 3: Nights',
      'Overrides',
      'Final schedule',
    ]);
    // The hours report of the fortnight: everyone paged has a row, and the total is the fortnight's 335 hours (one lost to DST).
    await page.waitForSelector('.hours-table tbody tr');
    const totals = await page.$$eval('.hours-table td[data-total]', (cells) => cells.map((c) => Number(c.textContent)));
    expect(totals.reduce((a, b) => a + b, 0)).toBeCloseTo(335, 0);
    await expectAccessible(page, 'three-layer schedule');
    await screenshot(page, 'schedule-timeline');

    // A drag across the final row selects a span (snapped to half hours, Berlin time) to take over.
    const track = await page.$eval('.tl-final .tl-track', (ul) => {
      const box = ul.getBoundingClientRect();
      return { left: box.left, width: box.width, y: box.top + box.height / 2 };
    });
    const fortnightHours = 335; // 23 March 00:00 to 6 April 00:00 Berlin, one hour lost to DST
    const xAt = (hoursIn: number) => track.left + (track.width * hoursIn) / fortnightHours;
    // Thursday 2 April is after the change: 10 days and 12 (then 15) hours in, less the lost hour.
    await page.mouse.move(xAt(10 * 24 + 12 - 1), track.y);
    await page.mouse.down();
    await page.mouse.move(xAt(10 * 24 + 15 - 1), track.y, { steps: 5 });
    await page.mouse.up();
    await page.waitForSelector('form.take-shift');
    expect(await page.$eval('input[name=startAt]', (i) => (i as HTMLInputElement).value)).toBe('2026-04-02T12:00');
    expect(await page.$eval('input[name=endAt]', (i) => (i as HTMLInputElement).value)).toBe('2026-04-02T15:00');
    await clickText(page, 'form.take-shift button', 'Cancel');
    await page.waitForFunction(() => document.querySelector('form.take-shift') === null);

    await clickText(page, 'button', 'Create or rotate the link');
    await clickText(page, 'button', 'Make a new link');
    const first = await (await page.waitForSelector('#calendar-url'))?.evaluate((i) => (i as HTMLInputElement).value);
    const feed = await t.request('GET', new URL(first ?? '').pathname);
    expect(feed.status).toBe(200);
    expect(feed.text).toContain('BEGIN:VCALENDAR');
    await clickText(page, 'button', 'Create or rotate the link');
    await clickText(page, 'button', 'Make a new link');
    await page.waitForFunction((old: string) => (document.querySelector('#calendar-url') as HTMLInputElement | null)?.value !== old, {}, first ?? '');
    const second = await page.$eval('#calendar-url', (i) => (i as HTMLInputElement).value);
    expect((await t.request('GET', new URL(first ?? '').pathname)).status).toBe(404);
    expect((await t.request('GET', new URL(second).pathname)).status).toBe(200);
    await page.goto(`${site.origin}/schedules`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(`.schedules-table tr[data-schedule="${scheduleId}"]`);
    await expectAccessible(page, 'schedules list');
    await screenshot(page, 'schedules-list');
  });

  it('a VIEWER sees the schedule but no control it may not use', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    const viewer = await signedInTab(browser, site.origin, t, vic, ada.workspaceId);
    const { page } = viewer;
    await page.goto(`${site.origin}/schedules`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(`.schedules-table tr[data-schedule="${scheduleId}"]`);
    expect(await page.$$('::-p-text(New schedule)')).toHaveLength(0);
    await page.goto(`${site.origin}${fortnight()}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.tl-final li.tl-shift');
    await page.waitForSelector('#hours-title');
    expect(await page.$$('.tl-take')).toEqual([]);
    expect(await page.$$('.override-list button')).toEqual([]);
    expect(await page.$$('::-p-text(Edit rotations)')).toHaveLength(0);
    expect(await page.$$('#calendar-title')).toHaveLength(0);
    await expectAccessible(page, 'schedule as a viewer');
    expect(viewer.problems).toEqual([]);
    await page.browserContext().close();
  });

  it('a MEMBER whose role was lowered meanwhile is told why the override was refused (403)', { timeout: 90_000 }, async () => {
    freshRateWindow(t);
    const member = await signedInTab(browser, site.origin, t, bob, ada.workspaceId);
    const { page } = member;
    await page.goto(`${site.origin}${fortnight()}`, { waitUntil: 'domcontentloaded' });
    await (await page.waitForSelector('.tl-final li[data-start="2026-04-01T07:00:00.000Z"] button'))?.click();
    await page.waitForSelector('form.take-shift ::-p-text(will be on call)');
    // A MEMBER takes shifts for themselves only: no choice of person.
    expect(await page.$$('select[name=overrideUserId]')).toEqual([]);
    const lowered = await t.request('PATCH', `/workspaces/${ada.workspaceId}/members/${bob.userId}`, { token: ada.token, body: { role: 'VIEWER' } });
    expect(lowered.status).toBe(200);
    await clickText(page, 'form.take-shift button', 'Create override');
    const said = await page.waitForSelector('form.take-shift [role=alert]');
    expect(await said?.evaluate((p) => p.textContent)).toMatch(/^Your role \(MEMBER\) in this workspace does not allow this: .+\. Ask a workspace admin or owner for access\.$/);
    expect(member.problems.filter((p) => !/status of 403/.test(p))).toEqual([]);
    await page.browserContext().close();
  });

  it('logged no console error, page error or failed request in the admin tab', () => {
    expect(served.filter((line) => line.startsWith('4') && !line.startsWith('403 ') && !line.startsWith('404 GET /api/on-call-calendars/'))).toEqual([]);
    expect(admin.problems).toEqual([]);
  });
});
