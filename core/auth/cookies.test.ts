import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext, type TestResponse } from '../../test/harness.js';

/*
 * The dashboard's session by cookie (docs/adr/0006-session-tokens-and-cookie-refresh.md): over HTTP through the real app. Every
 * test signs in from its own address so the per-address credential limit stays out of the way.
 */

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

const REFRESH_SECONDS = 30 * 24 * 3600;
type Tokens = { access_token: string; token_type: string; expires_in: number; refresh_token?: string };
type Jar = { refresh: string; csrf: string };

const setCookies = (res: TestResponse<unknown>): string[] => res.headers.getSetCookie();
const cookieValue = (res: TestResponse<unknown>, name: string): string | undefined =>
  setCookies(res)
    .find((line) => line.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);

function jarOf(res: TestResponse<unknown>): Jar {
  const refresh = cookieValue(res, 'vigil_refresh');
  const csrf = cookieValue(res, 'vigil_csrf');
  if (!refresh || !csrf) throw new Error(`no session cookies: ${setCookies(res).join(' | ')}`);
  return { refresh, csrf };
}

const signIn = (user: { email: string; password: string }, ip: string, extra: Record<string, unknown> = { refresh_cookie: true }) =>
  t.request<Tokens>('POST', '/oauth/token', {
    body: { grant_type: 'password', username: user.email, password: user.password, ...extra },
    headers: { 'x-test-ip': ip },
  });

const refreshByCookie = (cookies: Partial<Jar>, ip: string, header?: string) =>
  t.request<Tokens>('POST', '/oauth/token', {
    body: { grant_type: 'refresh_token' },
    headers: {
      'x-test-ip': ip,
      cookie: [cookies.refresh === undefined ? '' : `vigil_refresh=${cookies.refresh}`, cookies.csrf === undefined ? '' : `vigil_csrf=${cookies.csrf}`].filter(Boolean).join('; '),
      ...(header === undefined ? {} : { 'x-vigil-csrf': header }),
    },
  });

describe('the refresh cookie is issued only when asked for', () => {
  it('keeps the Bearer answer (refresh_token in the body, no cookie) without refresh_cookie', async () => {
    const user = await t.signup('cookie-bearer');
    for (const extra of [{}, { refresh_cookie: false }, { refresh_cookie: 'false' }]) {
      const res = await signIn(user, '192.0.2.10', extra);
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).toEqual(expect.any(String));
      expect(setCookies(res)).toEqual([]);
    }
    const refreshed = await t.request<Tokens>('POST', '/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: user.refreshToken },
      headers: { 'x-test-ip': '192.0.2.10' },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toEqual(expect.any(String));
    expect(setCookies(refreshed)).toEqual([]);
  });

  it('sets vigil_refresh (HttpOnly, token path) and vigil_csrf (readable, site-wide) with exact attributes, and leaves refresh_token out of the body', async () => {
    const user = await t.signup('cookie-attrs');
    const json = await signIn(user, '192.0.2.11');
    const form = await t.request<Tokens>('POST', '/oauth/token', {
      rawBody: new URLSearchParams({ grant_type: 'password', username: user.email, password: user.password, refresh_cookie: 'true' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-test-ip': '192.0.2.11' },
    });
    for (const res of [json, form]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
      const { refresh, csrf } = jarOf(res);
      expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(setCookies(res).sort()).toEqual([
        `vigil_csrf=${csrf}; Max-Age=${REFRESH_SECONDS}; Path=/; Secure; SameSite=Strict`,
        `vigil_refresh=${refresh}; Max-Age=${REFRESH_SECONDS}; Path=/api/oauth/token; HttpOnly; Secure; SameSite=Strict`,
      ]);
      expect((await t.request('GET', '/me', { token: res.body.access_token })).status).toBe(200);
    }
  });

  it('refuses to set cookies for a request a browser marks as cross-site (login CSRF)', async () => {
    const user = await t.signup('cookie-cross-site');
    for (const site of ['cross-site', 'same-site']) {
      const res = await t.request<Tokens>('POST', '/oauth/token', {
        rawBody: new URLSearchParams({ grant_type: 'password', username: user.email, password: user.password, refresh_cookie: 'true' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': site, 'x-test-ip': '192.0.2.20' },
      });
      expectError(res, 403, 'CSRF_MISMATCH');
      expect(setCookies(res)).toEqual([]);
    }
    // The dashboard's own requests (same-origin) and non-browser clients (no header) get them.
    const own = await t.request('POST', '/oauth/token', {
      body: { grant_type: 'password', username: user.email, password: user.password, refresh_cookie: true },
      headers: { 'sec-fetch-site': 'same-origin', 'x-test-ip': '192.0.2.20' },
    });
    expect(setCookies(own)).toHaveLength(2);
    // A Bearer grant sets no cookie, so where it comes from does not matter to it.
    expect(
      (
        await t.request('POST', '/oauth/token', {
          body: { grant_type: 'password', username: user.email, password: user.password },
          headers: { 'sec-fetch-site': 'cross-site', 'x-test-ip': '192.0.2.20' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('refresh by cookie', () => {
  it('with the CSRF header rotates both cookies, and the spent cookie then revokes the family (reuse detection as for Bearer)', async () => {
    const user = await t.signup('cookie-rotate');
    const first = jarOf(await signIn(user, '192.0.2.12'));
    const res = await refreshByCookie(first, '192.0.2.12', first.csrf);
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toBeUndefined();
    const second = jarOf(res);
    expect(second.refresh).not.toBe(first.refresh);
    expect(second.csrf).not.toBe(first.csrf);
    expect(setCookies(res).find((line) => line.startsWith('vigil_refresh='))).toContain('; Path=/api/oauth/token; HttpOnly; Secure; SameSite=Strict');
    expect((await t.request('GET', '/me', { token: res.body.access_token })).status).toBe(200);
    // The rotated cookie works once more; the spent one, presented again, is theft: the family ends.
    const third = jarOf(await refreshByCookie(second, '192.0.2.12', second.csrf));
    expectError(await refreshByCookie({ refresh: first.refresh, csrf: third.csrf }, '192.0.2.12', third.csrf), 401, 'INVALID_GRANT');
    expectError(await refreshByCookie(third, '192.0.2.12', third.csrf), 401, 'INVALID_GRANT');
  });

  it.each([
    ['no header', (jar: Jar) => ({ cookies: jar, header: undefined })],
    ['a different header', (jar: Jar) => ({ cookies: jar, header: `${jar.csrf.slice(1)}x` })],
    ['an empty header and no CSRF cookie', (jar: Jar) => ({ cookies: { refresh: jar.refresh }, header: '' })],
    ['a header equal to a forged CSRF cookie of another length', (jar: Jar) => ({ cookies: { refresh: jar.refresh, csrf: 'short' }, header: jar.csrf })],
  ])('answers 403 CSRF_MISMATCH with %s, sets no cookie, and rotates nothing (the cookie still refreshes afterwards)', async (_what, attempt) => {
    const user = await t.signup('cookie-csrf');
    const jar = jarOf(await signIn(user, '192.0.2.13'));
    const { cookies, header } = attempt(jar);
    const refused = await refreshByCookie(cookies, '192.0.2.13', header);
    expectError(refused, 403, 'CSRF_MISMATCH');
    expect(setCookies(refused)).toEqual([]);
    const later = await refreshByCookie(jar, '192.0.2.13', jar.csrf);
    expect(later.status).toBe(200);
  });

  it('without a refresh_token and without the cookie keeps the 400 of a missing parameter', async () => {
    const res = await refreshByCookie({}, '192.0.2.14', 'anything');
    const err = expectError(res, 400, 'VALIDATION_ERROR') as { details?: { path: string }[] };
    expect(err.details?.map((d) => d.path)).toEqual(['refresh_token']);
  });

  it('answers 401, never a 5xx, for a garbage, oversized or unknown cookie (with a matching CSRF pair)', async () => {
    for (const refresh of ['not-a-token', '%ZZ%', 'x'.repeat(4000)]) {
      expectError(await refreshByCookie({ refresh, csrf: 'pair' }, '192.0.2.15', 'pair'), 401, 'INVALID_GRANT');
    }
  });

  it('ends with a password change, which revokes every session', async () => {
    const user = await t.signup('cookie-password');
    const jar = jarOf(await signIn(user, '192.0.2.16'));
    const changed = await t.request('POST', '/auth/password', {
      token: user.token,
      body: { currentPassword: user.password, newPassword: 'a brand new password' },
      headers: { 'x-test-ip': '192.0.2.16' },
    });
    expect(changed.status).toBe(200);
    expectError(await refreshByCookie(jar, '192.0.2.16', jar.csrf), 401, 'INVALID_GRANT');
  });
});

describe('logout of a cookie session', () => {
  const clearing = ['vigil_csrf=; Max-Age=0; Path=/; Secure; SameSite=Strict', 'vigil_refresh=; Max-Age=0; Path=/api/oauth/token; HttpOnly; Secure; SameSite=Strict'];

  it("with the refresh cookie revokes that session, clears both cookies, and leaves the user's other sessions signed in", async () => {
    const user = await t.signup('cookie-logout');
    const signedIn = await signIn(user, '192.0.2.17');
    const jar = jarOf(signedIn);
    const out = await t.request('POST', '/auth/logout', { token: signedIn.body.access_token, headers: { cookie: `vigil_refresh=${jar.refresh}; vigil_csrf=${jar.csrf}` } });
    expect(out.status).toBe(204);
    expect(
      setCookies(out)
        .map((line) => line.replace(/; Expires=[^;]+/, ''))
        .sort(),
    ).toEqual(clearing);
    expectError(await refreshByCookie(jar, '192.0.2.17', jar.csrf), 401, 'INVALID_GRANT');
    expectError(await t.request('GET', '/me', { token: signedIn.body.access_token }), 401);
    // Not a logout everywhere: the sign-up's Bearer session lives on.
    expect((await t.request('GET', '/me', { token: user.token })).status).toBe(200);
  });

  it("from a page (which sends only vigil_csrf: the refresh cookie is scoped to the token path) ends the access token's own session and clears both cookies", async () => {
    const user = await t.signup('cookie-logout-page');
    const signedIn = await signIn(user, '192.0.2.18');
    const jar = jarOf(signedIn);
    const out = await t.request('POST', '/auth/logout', { token: signedIn.body.access_token, headers: { cookie: `vigil_csrf=${jar.csrf}` } });
    expect(out.status).toBe(204);
    expect(
      setCookies(out)
        .map((line) => line.replace(/; Expires=[^;]+/, ''))
        .sort(),
    ).toEqual(clearing);
    expectError(await refreshByCookie(jar, '192.0.2.18', jar.csrf), 401, 'INVALID_GRANT');
    expectError(await t.request('GET', '/me', { token: signedIn.body.access_token }), 401);
    expect((await t.request('GET', '/me', { token: user.token })).status).toBe(200);
  });

  it('without cookies and without a body still ends every session and sets no cookie (Bearer unchanged)', async () => {
    const user = await t.signup('cookie-logout-bearer');
    const jar = jarOf(await signIn(user, '192.0.2.19'));
    const out = await t.request('POST', '/auth/logout', { token: user.token });
    expect(out.status).toBe(204);
    expect(setCookies(out)).toEqual([]);
    expectError(await refreshByCookie(jar, '192.0.2.19', jar.csrf), 401, 'INVALID_GRANT');
  });
});
