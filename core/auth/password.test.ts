import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';

type Tokens = { access_token: string; refresh_token: string; token_type: string; expires_in: number };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
// Sign-up, the token endpoint and password change share a per-address limit of 20 a minute.
beforeEach(() => t.clock.advanceSeconds(61));

const passwordGrant = (email: string, password: string) => t.request<Tokens>('POST', '/oauth/token', { body: { grant_type: 'password', username: email, password } });

describe('password change', () => {
  it('changes the password, revokes every session and returns a fresh one', async () => {
    const user = await t.signup('pw-alice');
    const second = await passwordGrant(user.email, user.password);
    expect(second.status).toBe(200);
    const changed = await t.request<Tokens>('POST', '/auth/password', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: 'a much newer password' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.token_type).toBe('Bearer');
    expect(changed.headers.get('cache-control')).toBe('no-store');
    // Every older session is gone: access tokens and refresh tokens of both sign-ins.
    expectError(await t.request('GET', '/me', { token: user.token }), 401);
    expectError(await t.request('GET', '/me', { token: second.body.access_token }), 401);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } }), 401);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: second.body.refresh_token } }), 401);
    // The new session works, the old password does not, the new one does.
    expect((await t.request('GET', '/me', { token: changed.body.access_token })).status).toBe(200);
    const refreshed = await t.request<Tokens>('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: changed.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expectError(await passwordGrant(user.email, user.password), 401, 'INVALID_GRANT');
    expect((await passwordGrant(user.email, 'a much newer password')).status).toBe(200);
  });

  it('refuses a wrong current password, a weak or identical new one, unknown fields; nothing changes', async () => {
    const user = await t.signup('pw-bob');
    const attempts: [unknown, number][] = [
      [{ currentPassword: 'wrong password', newPassword: 'another password' }, 400],
      [{ currentPassword: user.password, newPassword: 'short' }, 400],
      [{ currentPassword: user.password, newPassword: user.password }, 400],
      [{ currentPassword: user.password }, 400],
      [{ currentPassword: user.password, newPassword: 'another password', email: 'x@example.com' }, 400],
    ];
    for (const [body, status] of attempts) {
      const err = expectError(await t.request('POST', '/auth/password', { token: user.token, body }), status) as { details?: { path: string }[] };
      expect(err.details?.length ?? 0).toBeGreaterThan(0);
    }
    expectError(await t.request('POST', '/auth/password', { token: user.token, rawBody: '{"currentPassword":', headers: { 'content-type': 'application/json' } }), 400);
    expectError(await t.request('POST', '/auth/password', { body: { currentPassword: user.password, newPassword: 'another password' } }), 401);
    // Nothing changed: the session and the password still work.
    expect((await t.request('GET', '/me', { token: user.token })).status).toBe(200);
    expect((await passwordGrant(user.email, user.password)).status).toBe(200);
  });
});

describe('logout and token endpoint edges', () => {
  it('logout everywhere revokes the access token and every refresh family', async () => {
    const user = await t.signup('lo-carol');
    const other = await passwordGrant(user.email, user.password);
    expect((await t.request('POST', '/auth/logout', { token: user.token, body: { everywhere: true } })).status).toBe(204);
    expectError(await t.request('GET', '/me', { token: user.token }), 401);
    expectError(await t.request('GET', '/me', { token: other.body.access_token }), 401);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: other.body.refresh_token } }), 401);
  });

  it('logout of one session leaves the other session working', async () => {
    const user = await t.signup('lo-dave');
    const other = await passwordGrant(user.email, user.password);
    expect((await t.request('POST', '/auth/logout', { token: user.token, body: { refresh_token: user.refreshToken } })).status).toBe(204);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } }), 401);
    const rotated = await t.request<Tokens>('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: other.body.refresh_token } });
    expect(rotated.status).toBe(200);
  });

  it('refuses bad logout bodies and an API key on logout', async () => {
    const user = await t.signup('lo-erin');
    expectError(await t.request('POST', '/auth/logout', { token: user.token, body: { everywhere: 'yes' } }), 400);
    expectError(await t.request('POST', '/auth/logout', { token: user.token, body: { refresh_token: user.refreshToken, extra: 1 } }), 400);
    const key = await t.apiKey(user);
    expectError(await t.request('POST', '/auth/logout', { token: key, body: {} }), 401);
    expect((await t.request('GET', '/me', { token: user.token })).status).toBe(200);
  });

  it('refuses malformed token requests with 400 and unknown refresh tokens with 401', async () => {
    const bad: unknown[] = [
      {},
      { grant_type: 'password', username: 'not-an-email', password: 'x' },
      { grant_type: 'password', username: 'a@example.com' },
      { grant_type: 'refresh_token' },
      { grant_type: 'authorization_code', code: 'x' },
    ];
    for (const body of bad) expectError(await t.request('POST', '/oauth/token', { body }), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/oauth/token', { rawBody: '{not json', headers: { 'content-type': 'application/json' } }), 400);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: 'made-up' } }), 401, 'INVALID_GRANT');
  });

  it('two concurrent refreshes with one token: one wins and the replay revokes the family', async () => {
    const user = await t.signup('race-gil');
    const body = { grant_type: 'refresh_token', refresh_token: user.refreshToken };
    const results = await Promise.all([t.request<Tokens>('POST', '/oauth/token', { body }), t.request<Tokens>('POST', '/oauth/token', { body })]);
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200)) expectError(loser, 401, 'INVALID_GRANT');
    // The replay revoked the family, so even the winner's rotated token is dead.
    for (const winner of winners) {
      expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: winner.body.refresh_token } }), 401);
    }
  });

  it('expires refresh tokens after 30 days by the injected clock', async () => {
    const user = await t.signup('exp-frank');
    t.clock.advanceSeconds(30 * 24 * 3600 + 1);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } }), 401);
  });
});
