import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { LONG_SESSIONS } from '../../../test/support/checks.js';
import { refreshSnapshot } from '../store/snapshot.js';
import { DAY_MS, utcDate } from '../uptime.js';
import { changeStatus, checkComponent, createComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';

/**
 * The HTML page in a real headless browser (Debian's `chromium`, driven by puppeteer-core): it
 * renders, it has no console errors and the CSP blocks nothing it needs. Saves the
 * screenshot docs/guide/status-pages.md shows (docs/status-page.png). Without a browser on the machine the test is skipped, with a message.
 */
const CHROMIUM = process.env.VIGIL_CHROMIUM ?? '/usr/bin/chromium';
const hasBrowser = existsSync(CHROMIUM);
if (!hasBrowser) console.warn(`browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

let t: TestContext;
let user: User;
let server: ServerType;
let origin = '';

async function seedYear(checkId: number, days: number, downEvery: number, downSeconds: number): Promise<void> {
  const today = Math.floor(t.clock.now().getTime() / DAY_MS);
  const items = Array.from({ length: days }, (_, i) => ({
    checkId,
    date: utcDate((today - days + i) * DAY_MS),
    observedSeconds: 86_400,
    downSeconds: i % downEvery === downEvery - 1 ? downSeconds * ((i % 3) + 1) : 0,
    maintenanceSeconds: i === days - 12 ? 3600 : 0,
    maintenanceDownSeconds: 0,
  }));
  await t.deps.store.entities.uptimeRollup.put(items).go();
}

describe.skipIf(!hasBrowser)('the status page in Chromium', () => {
  beforeAll(async () => {
    t = await createTestContext(LONG_SESSIONS);
    user = await t.signup('owner');
    server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  it('renders the name, components and bars, with no console error and nothing blocked by the CSP', { timeout: 120_000 }, async () => {
    const page = await createPage(t, user, {
      name: 'Acme Cloud',
      primaryColor: '#4f46e5',
      headerHtml: '<p>Live status of the <strong>Acme</strong> platform. Questions: <a href="mailto:support@acme.example">support@acme.example</a></p>',
      footerHtml: '<p><a href="https://acme.example">acme.example</a></p>',
    });
    const backdate = new Date(t.clock.now().getTime() - 120 * DAY_MS).toISOString();
    const parts = [
      { name: 'Website', groupName: 'Public', every: 17, down: 600 },
      { name: 'API', groupName: 'Public', every: 11, down: 900 },
      { name: 'Checkout', groupName: 'Payments', every: 29, down: 2400 },
      { name: 'Nightly billing run', groupName: 'Payments', every: 40, down: 7200 },
    ];
    const created = [];
    for (const part of parts) {
      const { check, component } = await checkComponent(t, user, page.id, {
        name: part.name,
        groupName: part.groupName,
        description: part.name === 'API' ? 'REST and webhooks' : null,
      });
      await t.deps.store.entities.statusComponent.patch({ statusPageId: page.id, componentId: component.id }).set({ createdAt: backdate }).go();
      await seedYear(check.id, 90, part.every, part.down);
      await changeStatus(t, check, user, 'NEW', 'OK');
      created.push({ check, component });
    }
    await createComponent(t, user, page.id, { name: 'New region (no data yet)', groupName: 'Payments', projectId: user.projectId });
    const api = created[1];
    if (!api) throw new Error('no API component');
    await changeStatus(t, api.check, user, 'OK', 'LATE');
    expectStatus(
      await t.request('POST', `/status-pages/${page.id}/announcements`, {
        token: user.token,
        body: {
          title: 'Elevated API latency',
          body: 'We are seeing **slow responses** from the API in one region and are investigating.',
          impact: 'MINOR',
          componentIds: [api.component.id],
        },
      }),
      201,
    );
    expectStatus(
      await t.request('POST', `/status-pages/${page.id}/announcements`, {
        token: user.token,
        body: {
          title: 'Database upgrade',
          body: 'Checkout will be read-only for up to 30 minutes.',
          scheduledFor: new Date(t.clock.now().getTime() + 2 * DAY_MS).toISOString(),
          scheduledUntil: new Date(t.clock.now().getTime() + 2 * DAY_MS + 1_800_000).toISOString(),
          componentIds: [created[2]?.component.id ?? 0],
        },
      }),
      201,
    );
    // Three hours into the day, so today has data of its own.
    t.clock.advanceSeconds(3 * 3600);
    await refreshSnapshot(t.deps, page.id);

    const puppeteer = (await import('puppeteer-core')).default;
    const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const tab = await browser.newPage();
      const problems: string[] = [];
      tab.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warn') problems.push(`${message.type()}: ${message.text()}`);
      });
      tab.on('pageerror', (error) => problems.push(`pageerror: ${String(error)}`));
      tab.on('requestfailed', (request) => problems.push(`requestfailed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
      await tab.setViewport({ width: 1000, height: 900 });
      const response = await tab.goto(`${origin}/status/${page.slug}`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      expect(await tab.$eval('h1', (el) => el.textContent)).toBe('Acme Cloud');
      const names = await tab.$$eval('.component strong', (els) => els.map((el) => el.textContent));
      expect(names).toEqual(['Website', 'API', 'Checkout', 'Nightly billing run', 'New region (no data yet)']);
      expect(await tab.$$eval('ol.bar', (els) => els.length)).toBe(5);
      expect(await tab.$$eval('ol.bar li', (els) => els.length)).toBe(5 * 90);
      // The style sheet applied (the CSP let the nonce'd style in): the bar is a flex row.
      expect(await tab.$eval('ol.bar', (el) => getComputedStyle(el).display)).toBe('flex');
      // Keyboard: Tab reaches a day of a bar, and its text shows.
      let focused = '';
      for (let i = 0; i < 40 && !focused.includes('uptime'); i++) {
        await tab.keyboard.press('Tab');
        focused = await tab.evaluate(() => (document.activeElement?.tagName === 'LI' ? (document.activeElement.textContent ?? '') : ''));
      }
      expect(focused).toMatch(/uptime|no data/);
      await tab.keyboard.press('Tab');
      // Phone width: nothing overflows sideways.
      await tab.setViewport({ width: 375, height: 800 });
      expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await tab.setViewport({ width: 1000, height: 900 });
      await tab.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      mkdirSync('docs', { recursive: true });
      await tab.screenshot({ path: 'docs/status-page.png', fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
