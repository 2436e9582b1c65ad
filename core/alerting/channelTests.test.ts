import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { CHANNEL_TEST_LIMIT } from './channelsDelivery.js';

type Result = { ok: boolean; failureReason: string | null; message: string };

let t: TestContext;
let owner: Awaited<ReturnType<TestContext['signup']>>;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' });
  owner = await t.signup('channel-tests');
});
beforeEach(() => t.clock.advanceSeconds(61));

const createHook = async (url: string) => {
  const res = await t.request<{ id: number }>('POST', '/alert-channels', { token: owner.token, body: { name: 'hook', type: 'WEBHOOK', config: { url } } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
};

describe('POST /alert-channels/:id/test', () => {
  it('reports the reason code, never the address it resolved', async () => {
    const id = await createHook('https://hooks.example.com/in');
    // As if the name now resolved inside: the stored URL points at a private address.
    await t.deps.store.entities.alertChannel.patch({ channelId: id }).set({ url: 'http://10.20.30.40:8080/internal' }).go();
    const res = await t.request<Result>('POST', `/alert-channels/${id}/test`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(false);
    expect(res.body.failureReason).toBe('SSRF_BLOCKED');
    expect(res.text).not.toContain('10.20.30.40');
    expect(res.body.message).not.toMatch(/\d+\.\d+\.\d+\.\d+/);
  });

  it('allows a few tests per channel per window, then 429', async () => {
    const id = await createHook('https://hooks.example.com/limited');
    await t.deps.store.entities.alertChannel.patch({ channelId: id }).set({ url: 'http://10.20.30.41/x' }).go();
    for (let i = 0; i < CHANNEL_TEST_LIMIT.limit; i++) {
      expect((await t.request('POST', `/alert-channels/${id}/test`, { token: owner.token })).status).toBe(200);
    }
    const refused = await t.request('POST', `/alert-channels/${id}/test`, { token: owner.token });
    expectError(refused, 429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
