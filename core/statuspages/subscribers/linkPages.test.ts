import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext, type TestResponse } from '../../../test/harness.js';
import { mailTo } from '../../../test/support/alerting.js';
import { hasBrowser, launchBrowser, serveApp } from '../../../test/support/browser.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { createPage, expectStatus, type User } from '../../../test/support/statuspages.js';

/**
 * Links in mail open a page whose button POSTs: a mail scanner or link preview
 * that follows a confirmation or unsubscribe link with GET changes nothing; the POST acts, once.
 * Over HTTP into the embedded store, and the button clicked in Debian's Chromium.
 */
let t: TestContext;
let owner: User;
let ip = 0;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS });
  owner = await t.signup('links-owner');
});
beforeEach(() => freshRateWindow(t));

const subscribe = (slug: string, email: string) =>
  t.request('POST', `/public/status/${slug}/subscribe`, { body: { channel: 'EMAIL', email }, headers: { 'x-test-ip': `198.18.0.${(++ip % 250) + 1}` } });
const pathOf = (text: string, marker: RegExp): string => {
  const found = marker.exec(text)?.[0];
  if (!found) throw new Error(`no link in ${text}`);
  return new URL(found).pathname.replace(/^\/api/, '') + new URL(found).search;
};
const confirmPath = (text: string) => pathOf(text, /https?:\/\/\S+\/subscriptions\/confirm\?token=\S+/);
const unsubscribePath = (text: string) => pathOf(text, /https?:\/\/\S+\/unsubscribe\?token=\S+/);
const states = async (pageId: number) =>
  expectStatus(await t.request<{ status: string }[]>('GET', `/status-pages/${pageId}/subscribers`, { token: owner.token }), 200).map((s) => s.status);

/** A page, not an action: HTML under the status pages' CSP, one form that POSTs to this same address. */
function expectButtonPage(res: TestResponse<unknown>): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'.*form-action 'self'/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.text).toMatch(/<form class="login" method="post"><button type="submit">/);
  expect(res.text).not.toContain('<script');
}

describe('pages behind mailed links', () => {
  it('the confirmation mail already carries the unsubscribe link and RFC 8058 headers; a one-click POST ends even a pending subscription', async () => {
    const page = await createPage(t, owner);
    const email = `one-click-${page.id}@example.com`;
    expectStatus(await subscribe(page.slug, email), 202);
    const [mail] = mailTo(t, email);
    const unsubscribe = unsubscribePath(mail?.text ?? '');
    expect(mail?.headers).toEqual({ 'List-Unsubscribe': `<${t.config.publicUrl}/api${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    expectButtonPage(await t.request('GET', unsubscribe));
    expect(await states(page.id)).toEqual(['PENDING_CONFIRMATION']);
    const oneClick = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, rawBody: 'List-Unsubscribe=One-Click' };
    expect(expectStatus(await t.request('POST', unsubscribe, oneClick), 200)).toEqual({ status: 'UNSUBSCRIBED' });
    expect(await states(page.id)).toEqual([]);
    expectError(await t.request('POST', unsubscribe, oneClick), 404);
    expectError(await t.request('POST', confirmPath(mail?.text ?? '')), 404);
  });

  it('subscriber confirmation and unsubscribe: GET renders a button page and changes nothing; the POST acts once', async () => {
    const page = await createPage(t, owner);
    const email = `links-${page.id}@example.com`;
    expectStatus(await subscribe(page.slug, email), 202);
    const confirm = confirmPath(mailTo(t, email)[0]?.text ?? '');
    for (let i = 0; i < 3; i++) expectButtonPage(await t.request('GET', confirm));
    expect(await states(page.id)).toEqual(['PENDING_CONFIRMATION']);
    expect(expectStatus(await t.request('POST', confirm), 200)).toEqual({ status: 'ACTIVE' });
    expect(await states(page.id)).toEqual(['ACTIVE']);
    expectError(await t.request('POST', confirm), 404);

    const unsubscribe = unsubscribePath(mailTo(t, email)[0]?.text ?? '');
    for (let i = 0; i < 3; i++) expectButtonPage(await t.request('GET', unsubscribe));
    expect(await states(page.id)).toEqual(['ACTIVE']);
    // The page's own form asks for HTML back.
    const done = await t.request('POST', unsubscribe, { headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, rawBody: '' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Unsubscribed');
    expect(done.text).not.toContain('<form');
    expect(await states(page.id)).toEqual([]);
    expectError(await t.request('POST', unsubscribe), 404);
  });

  it("an e-mail alert channel's confirmation link: GET renders a button page and confirms nothing; the POST confirms once", async () => {
    const address = `channel-links-${Date.now()}@example.com`;
    const created = expectStatus(
      await t.request<{ id: number }>('POST', '/alert-channels', { token: owner.token, body: { name: 'links', type: 'EMAIL', config: { email: address } } }),
      201,
    );
    const link = /\/api(\/alert-channels\/confirm\/\S+)/.exec(mailTo(t, address)[0]?.text ?? '')?.[1] ?? '';
    for (let i = 0; i < 3; i++) expectButtonPage(await t.request('GET', link));
    const confirmed = async () => expectStatus(await t.request<{ emailConfirmed: boolean }>('GET', `/alert-channels/${created.id}`, { token: owner.token }), 200).emailConfirmed;
    expect(await confirmed()).toBe(false);
    expect((await t.request('POST', link)).status).toBe(200);
    expect(await confirmed()).toBe(true);
    expectError(await t.request('POST', link), 404);
  });
});

describe.skipIf(!hasBrowser)('the confirmation page in Chromium', () => {
  let server: Awaited<ReturnType<typeof serveApp>>;
  beforeAll(async () => {
    server = await serveApp(t);
  });
  afterAll(() => server.close());

  it('opening the link confirms nothing; pressing its button confirms', async () => {
    const page = await createPage(t, owner);
    const email = `browser-${page.id}@example.com`;
    expectStatus(await subscribe(page.slug, email), 202);
    const confirm = confirmPath(mailTo(t, email)[0]?.text ?? '');
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.goto(`${server.origin}/api${confirm}`);
      expect(await tab.$eval('h1', (h) => h.textContent)).toBe('Confirm your subscription');
      expect(await states(page.id)).toEqual(['PENDING_CONFIRMATION']);
      await Promise.all([tab.waitForNavigation(), tab.click('button[type="submit"]')]);
      expect(await tab.$eval('h1', (h) => h.textContent)).toBe('Subscription confirmed');
      expect(await states(page.id)).toEqual(['ACTIVE']);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
