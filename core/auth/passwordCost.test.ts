import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { loadConfig } from '../config.js';
import { withHashSlot } from './hashSlots.js';
import { hashPassword } from './secrets.js';

// Every scrypt call's cost parameter, to compare the work of the token endpoint's two refusals.
const costs: number[] = [];
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  const scrypt = (...args: Parameters<typeof real.scrypt>) => {
    const options = args[3] as { N?: number };
    costs.push(options.N ?? 0);
    return (real.scrypt as (...a: unknown[]) => void)(...args);
  };
  return { ...real, default: { ...real, scrypt }, scrypt };
});

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

const storedHash = async (userId: number): Promise<string> => (await t.deps.store.entities.user.get({ userId }).go({ consistent: true })).data?.passwordHash ?? '';

describe('password hashing cost', () => {
  it('defaults to scrypt N=2^17 (OWASP); tests run cheaper through the test-only setting', () => {
    expect(loadConfig({}).passwordHashLogN).toBe(17);
  });

  it('stores the parameters with the hash', async () => {
    const user = await t.signup('cost');
    expect(await storedHash(user.userId)).toMatch(new RegExp(`^scrypt\\$${2 ** t.config.passwordHashLogN}\\$8\\$1\\$`));
  });

  it('re-hashes an older, cheaper hash at the configured cost on the next successful login', async () => {
    const user = await t.signup('old-hash');
    const weak = await withHashSlot(t.deps, (slot) => hashPassword(slot, user.password, t.config.passwordHashLogN - 2));
    await t.deps.store.entities.user.patch({ userId: user.userId }).set({ passwordHash: weak }).go();
    const wrong = await t.request('POST', '/oauth/token', {
      body: { grant_type: 'password', username: user.email, password: 'not it at all' },
      headers: { 'x-test-ip': '192.0.2.50' },
    });
    expect(wrong.status).toBe(401);
    expect(await storedHash(user.userId)).toBe(weak);
    const ok = await t.request('POST', '/oauth/token', { body: { grant_type: 'password', username: user.email, password: user.password }, headers: { 'x-test-ip': '192.0.2.50' } });
    expect(ok.status).toBe(200);
    const rehashed = await storedHash(user.userId);
    expect(rehashed).not.toBe(weak);
    expect(rehashed.startsWith(`scrypt$${2 ** t.config.passwordHashLogN}$`)).toBe(true);
    const again = await t.request('POST', '/oauth/token', {
      body: { grant_type: 'password', username: user.email, password: user.password },
      headers: { 'x-test-ip': '192.0.2.50' },
    });
    expect(again.status).toBe(200);
  });

  it('costs an unknown e-mail the same scrypt work as a wrong password', async () => {
    const user = await t.signup('oracle');
    const attempt = async (username: string) => {
      costs.length = 0;
      const res = await t.request('POST', '/oauth/token', { body: { grant_type: 'password', username, password: 'wrong password' }, headers: { 'x-test-ip': '192.0.2.51' } });
      expect(res.status).toBe(401);
      return [...costs];
    };
    await attempt('first-unknown@example.com'); // the dummy hash is made once, on first need
    const wrongPassword = await attempt(user.email);
    const unknownEmail = await attempt('nobody-at-all@example.com');
    expect(wrongPassword).toEqual([2 ** t.config.passwordHashLogN]);
    expect(unknownEmail).toEqual(wrongPassword);
  });
});
