import { availableParallelism } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext, type TestResponse } from '../../test/harness.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { loadConfig } from '../config.js';
import { hashesInFlight, withHashSlot } from './hashSlots.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_PASSWORD_HASH_CONCURRENCY: '2' });
});

/** Holds every hash slot of the process while `during` runs, then frees them. */
async function whileSlotsTaken<T>(during: () => Promise<T>): Promise<T> {
  const releases: (() => void)[] = [];
  const held = Array.from({ length: t.config.passwordHashConcurrency }, () => withHashSlot(t.deps, () => new Promise<void>((resolve) => releases.push(resolve))));
  try {
    return await during();
  } finally {
    for (const release of releases) release();
    await Promise.all(held);
  }
}

function expectBusy(res: TestResponse<unknown>): void {
  expectError(res, 429, 'RATE_LIMITED');
  expect(res.headers.get('retry-after')).toBe('1');
}

describe('password hashing is one bounded resource of the process', () => {
  it('defaults to half the cores, at least one, in flight (VIGIL_PASSWORD_HASH_CONCURRENCY)', () => {
    expect(loadConfig({}).passwordHashConcurrency).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
    expect(loadConfig({ VIGIL_PASSWORD_HASH_CONCURRENCY: '4' }).passwordHashConcurrency).toBe(4);
    expect(() => loadConfig({ VIGIL_PASSWORD_HASH_CONCURRENCY: '0' })).toThrow();
  });

  it('sign-in, sign-up, password change and page passwords answer 429 at once while every slot is taken, and work after', async () => {
    const user = await t.signup('busy');
    const ip = { 'x-test-ip': '192.0.2.90' };
    const signIn = (username: string) => t.request('POST', '/oauth/token', { headers: ip, body: { grant_type: 'password', username, password: user.password } });
    const signUp = (email: string) => t.request('POST', '/auth/signup', { headers: ip, body: { email, password: 'another long passphrase' } });
    const change = () => t.request('POST', '/auth/password', { token: user.token, headers: ip, body: { currentPassword: user.password, newPassword: 'a brand new passphrase' } });
    const page = (slug: string) =>
      t.request<{ id: number }>('POST', '/status-pages', { token: user.token, body: { name: 'Busy', slug, visibility: 'PASSWORD_PROTECTED', password: 'page password one' } });
    const email = `busy-${Date.now()}@example.com`;

    await whileSlotsTaken(async () => {
      const answers = [await signIn(user.email), await signIn('nobody-here@example.com'), await signUp(email), await change(), await page(`busy-${Date.now()}`)];
      // Every answer came while the slots were still held: none of them waited for one.
      expect(hashesInFlight()).toBe(t.config.passwordHashConcurrency);
      for (const res of answers) expectBusy(res);
    });
    expect(hashesInFlight()).toBe(0);

    // Refused before anything was kept: the e-mail and the slug are still free, the password unchanged.
    expect((await signIn(user.email)).status).toBe(200);
    expect((await signUp(email)).status).toBe(201);
    const created = await page(`busy-${Date.now()}`);
    expect(created.status).toBe(201);
    await whileSlotsTaken(async () => {
      expectBusy(await t.request('PATCH', `/status-pages/${created.body.id}`, { token: user.token, body: { password: 'page password two' } }));
    });
    expect((await t.request('PATCH', `/status-pages/${created.body.id}`, { token: user.token, body: { password: 'page password two' } })).status).toBe(200);
    expect((await change()).status).toBe(200);
  });
});
