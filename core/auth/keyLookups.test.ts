import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { zlib } from './zlib.js';
import { FAILED_KEY_LIMIT } from './middleware.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

/** A key that passes the checksum but names nothing: what an attacker can make up at will. */
function fakeKey(): string {
  const body = randomBytes(24).toString('hex');
  return `${t.config.keyPrefix}_${body}${(zlib.crc32(body) >>> 0).toString(16).padStart(8, '0')}`;
}

describe('failed API key lookups', () => {
  it('are limited per client address before the lookup, and a real key from another address still works', async () => {
    const user = await t.signup('key-guesser');
    const realKey = await t.apiKey(user);
    const ip = '192.0.2.90';
    for (let i = 0; i < FAILED_KEY_LIMIT.limit; i++) {
      expectError(await t.request('GET', '/v1/whoami', { token: fakeKey(), headers: { 'x-test-ip': ip } }), 401);
    }
    let lookups = 0;
    const get = t.deps.store.entities.apiKey.get.bind(t.deps.store.entities.apiKey);
    t.deps.store.entities.apiKey.get = ((...args: Parameters<typeof get>) => {
      lookups++;
      return get(...args);
    }) as typeof get;
    try {
      const refused = await t.request('GET', '/v1/whoami', { token: fakeKey(), headers: { 'x-test-ip': ip } });
      expectError(refused, 429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expectError(await t.request('POST', '/signals/s/some-job', { token: fakeKey(), headers: { 'x-test-ip': ip } }), 429);
      expect(lookups).toBe(0);
    } finally {
      t.deps.store.entities.apiKey.get = get;
    }
    expect((await t.request('GET', '/v1/whoami', { token: realKey, headers: { 'x-test-ip': '192.0.2.91' } })).status).toBe(200);
    t.clock.advanceSeconds(FAILED_KEY_LIMIT.windowSeconds + 1);
    expect((await t.request('GET', '/v1/whoami', { token: realKey, headers: { 'x-test-ip': ip } })).status).toBe(200);
  });
});

describe('a key deleted while it is being used', () => {
  it('answers 401 or 200, never 500, when the key goes between its lookup and the lastUsedAt write', async () => {
    const user = await t.signup('key-race');
    const key = await t.apiKey(user);
    const entity = t.deps.store.entities.apiKey;
    const get = entity.get.bind(entity);
    entity.get = ((...args: Parameters<typeof get>) => {
      const query = get(...args);
      const go = query.go.bind(query);
      return Object.assign(query, {
        go: async (...options: Parameters<typeof go>) => {
          const found = await go(...options);
          // The key is deleted right after it was read: the lastUsedAt write finds no item.
          const keyHash = (found.data as { keyHash?: string } | null)?.keyHash;
          if (keyHash) await entity.delete({ keyHash }).go();
          return found;
        },
      });
    }) as typeof get;
    try {
      const res = await t.request('GET', '/v1/whoami', { token: key, headers: { 'x-test-ip': '192.0.2.95' } });
      expect([200, 401]).toContain(res.status);
    } finally {
      entity.get = get;
    }
  });
});
