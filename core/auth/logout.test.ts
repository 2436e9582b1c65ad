import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '900' });
});

type Pair = { access_token: string; refresh_token: string };
const login = async (email: string, password: string, ip: string) =>
  (await t.request<Pair>('POST', '/oauth/token', { body: { grant_type: 'password', username: email, password }, headers: { 'x-test-ip': ip } })).body;

describe('logout with a refresh token', () => {
  it("ends that session's access tokens (also those from its refreshes) and leaves other sessions signed in", async () => {
    const user = await t.signup('logout-one');
    const other = await login(user.email, user.password, '192.0.2.70');
    const refreshed = (
      await t.request<Pair>('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken }, headers: { 'x-test-ip': '192.0.2.70' } })
    ).body;
    expect((await t.request('GET', '/me', { token: refreshed.access_token })).status).toBe(200);
    const out = await t.request('POST', '/auth/logout', { token: refreshed.access_token, body: { refresh_token: refreshed.refresh_token } });
    expect(out.status).toBe(204);
    expectError(await t.request('GET', '/me', { token: user.token }), 401);
    expectError(await t.request('GET', '/me', { token: refreshed.access_token }), 401);
    expect((await t.request('GET', '/me', { token: other.access_token })).status).toBe(200);
  });

  it('answers 204, not 500, for a refresh token whose family has expired, and a rotated token never outlives its family', async () => {
    const user = await t.signup('logout-expired');
    const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
    // Refresh near the end of the family's 30 days: the new token must expire with the family.
    t.clock.advanceSeconds(29 * 24 * 3600);
    const late = (
      await t.request<Pair>('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken }, headers: { 'x-test-ip': '192.0.2.71' } })
    ).body;
    const token = (await t.deps.store.entities.refreshToken.get({ tokenHash: hashOf(late.refresh_token) }).go()).data;
    const family = (await t.deps.store.entities.refreshFamily.get({ familyId: token?.familyId ?? '' }).go()).data;
    expect(token?.expiresAt).toBeLessThanOrEqual(family?.expiresAt ?? 0);
    // Past the family's end, its item may be gone (TTL) while the token item is not yet.
    t.clock.advanceSeconds(2 * 24 * 3600);
    await t.deps.store.entities.refreshFamily.delete({ familyId: token?.familyId ?? '' }).go();
    const fresh = await login(user.email, user.password, '192.0.2.72');
    const logout = await t.request('POST', '/auth/logout', { token: fresh.access_token, body: { refresh_token: late.refresh_token } });
    expect(logout.status).toBe(204);
    expect((await t.request('GET', '/me', { token: fresh.access_token })).status).toBe(200);
  });
});
