import { jwtVerify, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { jwtKey, signingSecret } from './tokens.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

describe('the JWT key imported once', () => {
  it('is the signing secret: tokens signed with either verify with the other, and one key serves every call', async () => {
    const now = t.clock.now();
    const secret = await signingSecret(t.deps.store, now);
    const key = await jwtKey(t.deps.store, now);
    expect(await jwtKey(t.deps.store, now)).toBe(key);
    const claims = { sub: '7', aud: 'vigil-dashboard' };
    const byBytes = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const byKey = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect(byKey).toBe(byBytes);
    expect((await jwtVerify(byBytes, key)).payload.sub).toBe('7');
    expect((await jwtVerify(byKey, secret)).payload.sub).toBe('7');
  });

  it('signs the sessions the API accepts, and refuses a token under another secret', async () => {
    const user = await t.signup('jwt-key');
    expect((await t.request('GET', '/me', { token: user.token })).status).toBe(200);
    const [header, payload] = user.token.split('.');
    const forged = await new SignJWT(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>)
      .setProtectedHeader(JSON.parse(Buffer.from(header ?? '', 'base64url').toString()) as { alg: string })
      .sign(new Uint8Array(32).fill(7));
    expectError(await t.request('GET', '/me', { token: forged }), 401);
  });
});
