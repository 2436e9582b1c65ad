import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { checkOf, createJob, signalsOf } from '../../test/support/signals.js';

// The ping path as npm start and the Lambdas run it: its plain client reuses resolved middleware
// (core/store/resolvedOnce.ts), as every test's client now does too.
let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('hot-path');
  key = await t.apiKey(user);
});

describe('ping path with the middleware cache on', () => {
  it('records pings, signals and status changes through the cached client', async () => {
    const { id, token } = await createJob(t, user, key);
    for (let i = 0; i < 3; i++) {
      expect((await t.request('GET', `/signals/ping/${token}`)).status).toBe(200);
      t.clock.advanceSeconds(2);
    }
    expect((await t.request('POST', `/signals/ping/${token}/fail`, { rawBody: '{"dependencies":[]}' })).status).toBe(200);
    const check = await checkOf(t, token);
    expect(check.status).toBe('DOWN');
    expect(check.lastPingAt).toBe(t.clock.now().toISOString());
    expect((await signalsOf(t, id)).map((s) => s.type)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'FAIL']);
    const messages = t.deps.queue.peek('incidents') as { type: string; checkId: number; from?: string; to?: string; projectId?: number | null }[];
    expect(messages.filter((m) => m.type === 'check.status_changed' && m.checkId === id).map((m) => [m.from, m.to, m.projectId])).toEqual([
      ['NEW', 'OK', user.projectId],
      ['OK', 'DOWN', user.projectId],
    ]);
  });
});
