import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { consumeRateLimit, DEFAULT_RATE_LIMIT } from './rateLimit.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Makes every rate-limit counter write fail as if the table were unreachable (counters go through the plain client). */
function breakCounters() {
  const send = t.deps.store.hot.send.bind(t.deps.store.hot);
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(t.deps.store.hot, 'send').mockImplementation(((command: unknown, ...rest: unknown[]) => {
    if (command instanceof UpdateItemCommand && String(command.input.Key?.pk?.S).startsWith('RL#')) {
      return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { name: 'NetworkingError' }));
    }
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof t.deps.store.hot.send);
  return logged;
}

describe('rate limiter', () => {
  it('counts in a fixed window and refuses past the limit', async () => {
    const rule = { name: 'unit', limit: 2, windowSeconds: 60 };
    expect((await consumeRateLimit(t.deps, rule, 'scope-a')).remaining).toBe(1);
    expect((await consumeRateLimit(t.deps, rule, 'scope-a')).remaining).toBe(0);
    expect((await consumeRateLimit(t.deps, rule, 'scope-a')).allowed).toBe(false);
    expect((await consumeRateLimit(t.deps, rule, 'scope-b')).allowed).toBe(true);
    t.clock.advanceSeconds(60);
    expect((await consumeRateLimit(t.deps, rule, 'scope-a')).allowed).toBe(true);
  });

  it('fails open: with the counter table unreachable, requests still go through (and it is logged)', async () => {
    const user = await t.signup('open');
    const logged = breakCounters();
    const decision = await consumeRateLimit(t.deps, DEFAULT_RATE_LIMIT, 'scope-broken');
    expect(decision.allowed).toBe(true);
    const me = await t.request('GET', '/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.headers.get('RateLimit-Limit')).toBe('100');
    expect(logged).toHaveBeenCalledWith('rate limiter unavailable, failing open', expect.any(Error));
  });

  it('answers 429 with Retry-After once the window is spent', async () => {
    const user = await t.signup('spent');
    t.clock.advanceSeconds(60);
    for (let i = 0; i < DEFAULT_RATE_LIMIT.limit; i++) await consumeRateLimit(t.deps, DEFAULT_RATE_LIMIT, `user:${user.userId}`);
    const refused = await t.request('GET', '/me', { token: user.token });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(refused.headers.get('RateLimit-Remaining')).toBe('0');
  });
});
