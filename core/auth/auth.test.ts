import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

describe('sign-up and tokens', () => {
  it('signs up, then /me lists the new workspace as OWNER', async () => {
    const user = await t.signup('alice');
    const me = await t.request<{ email: string; workspaces: { id: number; role: string }[] }>('GET', '/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(user.email);
    expect(me.body.workspaces).toEqual([expect.objectContaining({ id: user.workspaceId, role: 'OWNER' })]);
  });

  it('refuses a duplicate email with 409 and creates nothing', async () => {
    const user = await t.signup('bob');
    const again = await t.request('POST', '/auth/signup', { body: { email: user.email.toUpperCase(), password: 'another password' } });
    expectError(again, 409);
  });

  it('rejects bad sign-up bodies with 400 and field details', async () => {
    const res = await t.request('POST', '/auth/signup', { body: { email: 'not-an-email', password: 'x' } });
    const err = expectError(res, 400, 'VALIDATION_ERROR') as { details?: { path: string }[] };
    expect(err.details?.map((d) => d.path)).toEqual(expect.arrayContaining(['email', 'password']));
    expectError(await t.request('POST', '/auth/signup', { body: { email: 'x@example.com', password: 'long enough', admin: true } }), 400);
    expectError(await t.request('POST', '/auth/signup', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } }), 400);
    expectError(await t.request('POST', '/auth/signup', { rawBody: 'email=x', headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('issues tokens for the password grant with JSON or a form body', async () => {
    const user = await t.signup('carol');
    const json = await t.request<{ access_token: string; token_type: string }>('POST', '/oauth/token', {
      body: { grant_type: 'password', username: user.email, password: user.password },
    });
    expect(json.status).toBe(200);
    expect(json.body.token_type).toBe('Bearer');
    const form = await t.request('POST', '/oauth/token', {
      rawBody: new URLSearchParams({ grant_type: 'password', username: user.email, password: user.password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(200);
    const wrong = await t.request('POST', '/oauth/token', { body: { grant_type: 'password', username: user.email, password: 'wrong password' } });
    const unknown = await t.request('POST', '/oauth/token', { body: { grant_type: 'password', username: 'nobody@example.com', password: 'wrong password' } });
    expect(expectError(wrong, 401).message).toBe(expectError(unknown, 401).message);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'client_credentials' } }), 400);
  });

  it('rotates refresh tokens and revokes the family when a spent one is reused', async () => {
    const user = await t.signup('dave');
    const first = await t.request<{ refresh_token: string }>('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(user.refreshToken);
    // The spent token comes back: treated as stolen, the whole family dies.
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } }), 401);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: first.body.refresh_token } }), 401);
  });

  it('lets only one of two concurrent sign-ups with the same email through', async () => {
    const email = `race-${Date.now()}@example.com`;
    const attempt = (ip: string) => t.request('POST', '/auth/signup', { body: { email, password: 'correct horse battery' }, headers: { 'x-test-ip': ip } });
    const statuses = (await Promise.all([attempt('203.0.113.1'), attempt('203.0.113.2')])).map((res) => res.status).sort();
    expect(statuses).toEqual([201, 409]);
  });

  it('takes over an email whose sign-up crashed before writing the user, once it is clearly abandoned', async () => {
    const email = `orphan-${Date.now()}@example.com`;
    await t.deps.store.entities.lock.create({ scope: 'email', value: email, ownerId: '999999', createdAt: t.clock.now().toISOString() }).go();
    const body = { email, password: 'correct horse battery' };
    expectError(await t.request('POST', '/auth/signup', { body, headers: { 'x-test-ip': '203.0.113.3' } }), 409);
    t.clock.advanceSeconds(6 * 60);
    expect((await t.request('POST', '/auth/signup', { body, headers: { 'x-test-ip': '203.0.113.4' } })).status).toBe(201);
  });

  it('does not let rotation outlive the sign-in: the family ends 30 days after it began', async () => {
    const user = await t.signup('rotator');
    t.clock.advanceSeconds(20 * 24 * 3600);
    const second = await t.request<{ refresh_token: string }>('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } });
    expect(second.status).toBe(200);
    t.clock.advanceSeconds(20 * 24 * 3600);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: second.body.refresh_token } }), 401);
  });

  it('expires access tokens by the injected clock', async () => {
    const user = await t.signup('erin');
    expect((await t.request('GET', '/me', { token: user.token })).status).toBe(200);
    t.clock.advanceSeconds(t.config.accessTokenTtlSeconds + 1);
    expectError(await t.request('GET', '/me', { token: user.token }), 401, 'TOKEN_EXPIRED');
    const refreshed = await t.request<{ access_token: string }>('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } });
    expect((await t.request('GET', '/me', { token: refreshed.body.access_token })).status).toBe(200);
  });

  it('refuses tampered and alg:none tokens with 401', async () => {
    const user = await t.signup('frank');
    const [header, payload, signature] = user.token.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: '1', email: 'x@example.com', iss: 'vigil', aud: 'vigil-dashboard', exp: 9e9 })).toString('base64url');
    expectError(await t.request('GET', '/me', { token: `${header}.${forged}.${signature}` }), 401);
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expectError(await t.request('GET', '/me', { token: `${none}.${payload}.` }), 401);
    expectError(await t.request('GET', '/me', { token: 'garbage' }), 401);
    expectError(await t.request('GET', '/me'), 401);
  });

  it('logout revokes the refresh token', async () => {
    const user = await t.signup('gina');
    expect((await t.request('POST', '/auth/logout', { token: user.token, body: { refresh_token: user.refreshToken } })).status).toBe(204);
    expectError(await t.request('POST', '/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: user.refreshToken } }), 401);
  });
});

describe('surfaces and credentials', () => {
  it('keeps API keys off the dashboard and session tokens off /v1', async () => {
    const user = await t.signup('hank');
    const key = await t.apiKey(user);
    expect(key).toMatch(/^vigil_[0-9a-f]{56}$/);
    expectError(await t.request('GET', '/me', { token: key }), 401);
    expectError(await t.request('GET', '/v1/whoami', { token: user.token }), 401);
    const whoami = await t.request<{ workspace: { id: number }; apiKey: { permission: string } }>('GET', '/v1/whoami', { token: key });
    expect(whoami.status).toBe(200);
    expect(whoami.body.workspace.id).toBe(user.workspaceId);
  });

  it('refuses a malformed key without a lookup, and a disabled key', async () => {
    const user = await t.signup('ivy');
    const key = await t.apiKey(user);
    const flipped = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
    expectError(await t.request('GET', '/v1/whoami', { token: flipped }), 401);
    const list = await t.request<{ id: number }[]>('GET', `/api-keys?workspaceId=${user.workspaceId}`, { token: user.token });
    const id = list.body[0]?.id;
    expect((await t.request('PATCH', `/api-keys/${id}`, { token: user.token, body: { enabled: false } })).status).toBe(200);
    expectError(await t.request('GET', '/v1/whoami', { token: key }), 401);
  });

  it('gives a read_only key 403 on writes', async () => {
    const user = await t.signup('jack');
    const key = await t.apiKey(user, { permission: 'read_only' });
    expect((await t.request('GET', '/v1/projects', { token: key })).status).toBe(200);
    expectError(await t.request('POST', '/v1/projects', { token: key, body: { name: 'nope' } }), 403);
  });

  it('keeps ping keys to pings: the Integration API refuses them with 403', async () => {
    const user = await t.signup('pinger');
    const pingKey = await t.apiKey(user, { kind: 'ping' });
    expectError(await t.request('GET', '/v1/whoami', { token: pingKey }), 403);
    expectError(await t.request('GET', '/v1/projects', { token: pingKey }), 403);
  });

  it('serves only the exact OpenAPI document path without a key', async () => {
    expect((await t.request('GET', '/v1/openapi.json')).status).toBe(200);
    expectError(await t.request('GET', '/v1/projects/openapi.json'), 401);
  });
});
