import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { collectProblems, CHROMIUM, hasBrowser, launchBrowser, serveApp, serveHostPages } from '../../../test/support/browser.js';
import { LONG_SESSIONS } from '../../../test/support/checks.js';
import { changeStatus, checkComponent, createPage, type User } from '../../../test/support/statuspages.js';

/**
 * The widget on a third-party page in a real headless Chromium: the host page lives on another
 * origin with a strict CSP (no inline script or style), includes the snippet, and shows the
 * page's status inside a shadow root; a page name full of markup shows as text and runs nothing.
 */
if (!hasBrowser) console.warn(`widget browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set VIGIL_CHROMIUM)`);

let t: TestContext;
let user: User;
let api: { origin: string; close: () => Promise<void> };

const HOSTILE_NAME = `<img src=x onerror="window.__pwned=1"><b>Bold</b> & "quoted" </div><script>window.__pwned=2</script>`;

const hostPage = (apiOrigin: string, slugs: string[], extraDivs: string[]) => `<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${apiOrigin}; connect-src ${apiOrigin}">
<title>Host</title>
</head><body>
<h1>Someone else's site</h1>
${[...slugs, ...extraDivs].map((slug) => `<div data-vigil-status="${slug}"></div>`).join('\n')}
${slugs.map((slug) => `<script async src="${apiOrigin}/api/public/status/${slug}/widget.js"></script>`).join('\n')}
</body></html>`;

describe.skipIf(!hasBrowser)('the widget in Chromium', () => {
  beforeAll(async () => {
    t = await createTestContext(LONG_SESSIONS);
    user = await t.signup('owner');
    api = await serveApp(t);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('a host page on another origin shows the status; markup in the page name renders as text', { timeout: 120_000 }, async () => {
    const down = await createPage(t, user, { name: 'Acme Cloud' });
    const { check } = await checkComponent(t, user, down.id);
    await changeStatus(t, check, user, 'NEW', 'OK');
    await changeStatus(t, check, user, 'OK', 'DOWN');
    const hostile = await createPage(t, user, { name: HOSTILE_NAME });
    const host = await serveHostPages({ '/': hostPage(api.origin, [down.slug, hostile.slug], ['some-other-page']) });
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      const problems = collectProblems(tab);
      const response = await tab.goto(`${host.origin}/`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      await tab.waitForSelector(`[data-vigil-status="${down.slug}"][data-vigil-ready]`, { timeout: 20_000 });
      await tab.waitForSelector(`[data-vigil-status="${hostile.slug}"][data-vigil-ready]`, { timeout: 20_000 });

      const read = (slug: string) =>
        tab.$eval(`[data-vigil-status="${slug}"]`, (el) => {
          const root = el.shadowRoot;
          return {
            ready: el.getAttribute('data-vigil-ready'),
            lightDom: el.innerHTML,
            name: root?.querySelector('.name')?.textContent ?? null,
            status: root?.querySelector('.status')?.textContent ?? null,
            indicator: root?.querySelector('[part="pill"]')?.getAttribute('data-indicator') ?? null,
            href: root?.querySelector('a')?.getAttribute('href') ?? null,
            elements: root ? Array.from(root.querySelectorAll('*'), (node) => node.tagName.toLowerCase()) : [],
          };
        });

      const shown = await read(down.slug);
      expect(shown).toMatchObject({
        ready: 'true',
        lightDom: '',
        name: 'Acme Cloud',
        status: 'Major System Outage',
        indicator: 'critical',
        href: `${t.config.publicUrl}/status/${down.slug}`,
      });
      // The pill is drawn: the dot took its colour through the CSSOM (the host's CSP allows no inline style).
      expect(await tab.$eval(`[data-vigil-status="${down.slug}"]`, (el) => getComputedStyle(el.shadowRoot?.querySelector('[part="pill"]') as Element).display)).toBe('inline-flex');

      const text = await read(hostile.slug);
      expect(text.name).toBe(HOSTILE_NAME);
      expect(text.status).toBe('All Systems Operational');
      // Only the widget's own elements: nothing from the name became markup.
      expect(text.elements).toEqual(['a', 'span', 'span', 'span']);
      expect(await tab.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      // A div for a page whose script is not on the host stays untouched.
      expect(await tab.$eval('[data-vigil-status="some-other-page"]', (el) => [el.shadowRoot === null, el.hasAttribute('data-vigil-ready')])).toEqual([true, false]);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
      await host.close();
    }
  });
});
