import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext, type TestResponse } from '../../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { createPage, expectStatus, uniqueSlug, type User } from '../../../test/support/statuspages.js';
import { hashesInFlight, withHashSlot } from '../../auth/hashSlots.js';
import { AUTH_ADDRESS_RULE } from './access.js';

// Every scrypt call's cost, to compare the work an unknown page and a wrong password cost.
const costs: number[] = [];
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  const scrypt = (...args: Parameters<typeof real.scrypt>) => {
    costs.push((args[3] as { N?: number }).N ?? 0);
    return (real.scrypt as (...a: unknown[]) => void)(...args);
  };
  return { ...real, default: { ...real, scrypt }, scrypt };
});

let t: TestContext;
let user: User;
let ip = 0;
const fresh = () => ({ 'x-test-ip': `192.0.2.${(++ip % 250) + 1}` });
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_PASSWORD_HASH_CONCURRENCY: '2' });
  user = await t.signup('pages-owner');
});
beforeEach(() => {
  // Past every 5-minute password window: each test starts with full budgets.
  t.clock.advanceSeconds(301);
  freshRateWindow(t);
});

const attempt = (slug: string, password: string, headers: Record<string, string> = fresh()) => t.request('POST', `/public/status/${slug}/auth`, { headers, body: { password } });
const formAttempt = (slug: string, password: string, headers: Record<string, string> = fresh()) =>
  t.request('POST', `http://localhost/status/${slug}/auth`, {
    rawBody: `password=${encodeURIComponent(password)}`,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
  });

/**
 * What a client can compare of two answers: status, body and every header but the date. The HTML
 * form carries a fresh CSP nonce and posts back to the slug it was asked for.
 */
const answer = (res: TestResponse<unknown>, slug = '') => ({
  status: res.status,
  text: res.text.replace(/nonce-[A-Za-z0-9+/=]+|nonce="[^"]+"/g, 'NONCE').replaceAll(`/status/${slug}/`, '/status/SLUG/'),
  headers: [...res.headers.entries()].filter(([name]) => name !== 'date').map(([name, value]) => [name, value.replace(/nonce-[A-Za-z0-9+/=]+/g, 'NONCE')]),
});

/** Holds every hash slot of the process until the returned function is called. */
async function fillHashSlots(): Promise<() => Promise<void>> {
  const releases: (() => void)[] = [];
  const held: Promise<void>[] = [];
  for (let i = 0; i < t.config.passwordHashConcurrency; i++) {
    held.push(withHashSlot(t.deps, () => new Promise<void>((resolve) => releases.push(resolve))));
  }
  expect(hashesInFlight()).toBe(t.config.passwordHashConcurrency);
  return async () => {
    for (const release of releases) release();
    await Promise.all(held);
  };
}

describe('status page password attempts', () => {
  it('limits an address over all pages: a new slug per attempt earns no new budget', async () => {
    const page = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    const headers = { 'x-test-ip': '198.51.100.40' };
    for (let i = 0; i < AUTH_ADDRESS_RULE.limit; i++) expectError(await attempt(uniqueSlug('guess'), 'a guess at it', headers), 401);
    costs.length = 0;
    const refused = await attempt(uniqueSlug('guess'), 'a guess at it', headers);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Refused before any hash, on a real page with the right password too, and on the HTML form.
    expectError(await attempt(page.slug, 'let me in please', headers), 429, 'RATE_LIMITED');
    expectError(await formAttempt(page.slug, 'let me in please', headers), 429, 'RATE_LIMITED');
    expect(costs).toEqual([]);
    // Another address has its own budget; this one's comes back with the window.
    expectStatus(await attempt(page.slug, 'let me in please'), 200);
    t.clock.advanceSeconds(AUTH_ADDRESS_RULE.windowSeconds + 1);
    expectStatus(await attempt(page.slug, 'let me in please', headers), 200);
  });

  it('answers an unknown page and a wrong password alike, with the same scrypt work', async () => {
    const page = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    await attempt(uniqueSlug('warm'), 'x'); // the dummy hash is made once, on first need
    for (const send of [attempt, formAttempt]) {
      const work = async (slug: string) => {
        costs.length = 0;
        const res = await send(slug, 'not the password');
        return { ...answer(res, slug), scrypt: [...costs] };
      };
      const wrong = await work(page.slug);
      const unknown = await work(uniqueSlug('nowhere'));
      expect(wrong.status).toBe(401);
      expect(wrong.scrypt).toEqual([2 ** t.config.passwordHashLogN]);
      expect(unknown).toEqual(wrong);
    }
  });

  it('refuses at once, alike for an unknown page and a wrong password, while every hash slot is taken', async () => {
    const page = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'let me in please' });
    const release = await fillHashSlots();
    try {
      costs.length = 0;
      const wrong = await attempt(page.slug, 'not the password');
      const unknown = await attempt(uniqueSlug('nowhere'), 'not the password');
      const right = await attempt(page.slug, 'let me in please');
      // Answered while the slots are still held: nothing waited for one.
      expect(hashesInFlight()).toBe(t.config.passwordHashConcurrency);
      expectError(wrong, 429, 'RATE_LIMITED');
      expect(wrong.headers.get('retry-after')).toBe('1');
      expect(answer(unknown)).toEqual(answer(wrong));
      expect(answer(right)).toEqual(answer(wrong));
      // Shed before the limits count it: a flood against busy slots spends no address's budget.
      const headers = { 'x-test-ip': '198.51.100.41' };
      for (let i = 0; i <= AUTH_ADDRESS_RULE.limit; i++) expect(answer(await attempt(uniqueSlug('shed'), 'a guess at it', headers))).toEqual(answer(wrong));
      expect(costs).toEqual([]);
    } finally {
      await release();
    }
    expectStatus(await attempt(page.slug, 'let me in please', { 'x-test-ip': '198.51.100.41' }), 200);
  });
});

describe('concurrent hashes past the bound', () => {
  it('refuse the extra attempts with 429 and Retry-After instead of queueing them', async () => {
    // A real cost that lasts: each hash holds its slot while the other attempts arrive.
    const slow = await createTestContext({ VIGIL_PASSWORD_HASH_LOG_N: '15', VIGIL_PASSWORD_HASH_CONCURRENCY: '2' });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        slow.request('POST', `/public/status/${uniqueSlug('flood')}/auth`, { headers: { 'x-test-ip': `198.51.100.${100 + i}` }, body: { password: 'a guess at it' } }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(1);
    const refused = answers.filter((res) => res.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const res of refused) expect(res.headers.get('retry-after')).toBe('1');
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
  });
});
