import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createChannel, declare, startReceiver, timeline, type Receiver, type User } from '../../test/support/alerting.js';
import { collectProblems, hasBrowser, launchBrowser, serveApp } from '../../test/support/browser.js';
import { axeViolations } from '../../test/support/dashboard.js';

/**
 * The acknowledge link's page in Debian's chromium: the link comes out of a webhook delivered to a
 * loopback receiver, the page shows the incident (its hostile title as text, no dialog), passes
 * axe, and only its button acknowledges.
 */
let t: TestContext;
let receiver: Receiver;
let app: Awaited<ReturnType<typeof serveApp>> | undefined;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  receiver = await startReceiver();
  if (hasBrowser) app = await serveApp(t);
});
afterAll(async () => {
  await receiver.close();
  await app?.close();
});

const HOSTILE_TITLE = `</p><script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & 'single'`;

describe.skipIf(!hasBrowser)('the acknowledge page in a real browser', () => {
  it('shows the incident escaped, passes axe, changes nothing until its button is pressed, then acknowledges once', { timeout: 120_000 }, async () => {
    const user: User = await t.signup('ack-browser');
    const key = await t.apiKey(user);
    await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url('/ack-browser') } });
    const incident = await declare(t, key, { title: HOSTILE_TITLE });
    const [delivered] = receiver.at('/ack-browser');
    const link = (JSON.parse(delivered?.body ?? '{}') as { data?: { actions?: { acknowledgeUrl?: string } } }).data?.actions?.acknowledgeUrl ?? '';
    expect(link).toMatch(/\/api\/ack\//);
    const url = link.replace(t.config.publicUrl, app?.origin ?? '');
    const acknowledgedAt = async () => (await t.request<{ acknowledgedAt?: string | null }>('GET', `/incidents/${incident.id}`, { token: user.token })).body.acknowledgedAt ?? null;

    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      const problems = collectProblems(tab);
      const dialogs: string[] = [];
      tab.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      const response = await tab.goto(url, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      expect(await tab.$eval('h1', (el) => el.textContent)).toBe('Acknowledge this incident?');
      // The title reads as typed, as text: no element of it made it into the page.
      expect(await tab.$eval('main p', (el) => el.textContent)).toContain(HOSTILE_TITLE);
      expect(await tab.$$eval('main script, main img', (els) => els.length)).toBe(0);
      expect(await axeViolations(tab)).toEqual([]);
      expect(await acknowledgedAt()).toBeNull();

      await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.click('form button[type="submit"]')]);
      expect(await tab.$eval('h1', (el) => el.textContent)).toBe('Acknowledged');
      expect(await axeViolations(tab)).toEqual([]);
      expect(await acknowledgedAt()).toBe(t.clock.now().toISOString());

      // Opened again: nothing left to press.
      await tab.goto(url, { waitUntil: 'load' });
      expect(await tab.$eval('h1', (el) => el.textContent)).toBe('Already acknowledged');
      expect(await tab.$$eval('form', (els) => els.length)).toBe(0);
      expect(dialogs).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
    const events = await timeline(t, user, incident.id);
    expect(events.filter((e) => e.type === 'ACKNOWLEDGED')).toHaveLength(1);
  });
});
