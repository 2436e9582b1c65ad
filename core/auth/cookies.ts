import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { timingSafeEqual } from 'node:crypto';
import { HttpError } from '../http/errors.js';
import { randomToken } from './secrets.js';

/*
 * The dashboard's session by cookie (docs/adr/0006-session-tokens-and-cookie-refresh.md): the refresh token in an HttpOnly cookie
 * scoped to the token path, so page script never sees it, plus a double-submit CSRF token (OWASP)
 * that script reads and echoes in a header. Only a client that asks (`refresh_cookie=true`) gets
 * them; Bearer clients never see a cookie.
 */

export const REFRESH_COOKIE = 'vigil_refresh';
export const CSRF_COOKIE = 'vigil_csrf';
export const CSRF_HEADER = 'X-Vigil-CSRF';
/** Only the token endpoint ever receives the refresh token; other paths clear it by naming this path. */
export const REFRESH_COOKIE_PATH = '/api/oauth/token';
/** The CSRF cookie is read by the dashboard's script on any page, so it is scoped to the site. */
export const CSRF_COOKIE_PATH = '/';

const refreshAttributes = { httpOnly: true, secure: true, sameSite: 'Strict', path: REFRESH_COOKIE_PATH } as const;
const csrfAttributes = { httpOnly: false, secure: true, sameSite: 'Strict', path: CSRF_COOKIE_PATH } as const;

/** Sets both cookies for a fresh or rotated refresh token; both live exactly as long as it does. */
export function setSessionCookies(c: Context, refreshToken: string, maxAgeSeconds: number): void {
  const maxAge = Math.max(0, Math.floor(maxAgeSeconds));
  setCookie(c, REFRESH_COOKIE, refreshToken, { ...refreshAttributes, maxAge });
  setCookie(c, CSRF_COOKIE, randomToken(32), { ...csrfAttributes, maxAge });
}

/** Expires both cookies with the attributes they were set with (a cookie is replaced by name, path and domain). */
export function clearSessionCookies(c: Context): void {
  deleteCookie(c, REFRESH_COOKIE, refreshAttributes);
  deleteCookie(c, CSRF_COOKIE, csrfAttributes);
}

/** Whether the request carries either dashboard cookie (a browser signed in by cookie). */
export const hasSessionCookie = (c: Context): boolean => getCookie(c, REFRESH_COOKIE) !== undefined || getCookie(c, CSRF_COOKIE) !== undefined;

export const refreshCookie = (c: Context): string | undefined => getCookie(c, REFRESH_COOKIE) || undefined;

/**
 * The refresh cookie is ambient (the browser sends it with any same-site request), so a refresh by
 * cookie must prove the caller can read the CSRF cookie: the header equals it, compared in
 * constant time. Checked before the token is looked at, so a refused request rotates nothing.
 */
export function requireCsrf(c: Context): void {
  const cookie = getCookie(c, CSRF_COOKIE) ?? '';
  const header = c.req.header(CSRF_HEADER) ?? '';
  const a = Buffer.from(cookie);
  const b = Buffer.from(header);
  if (cookie === '' || a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new HttpError('CSRF_MISMATCH', `A refresh by cookie needs the ${CSRF_HEADER} header equal to the ${CSRF_COOKIE} cookie`);
  }
}

/**
 * A page on another site could post the password grant with `refresh_cookie=true` (a plain form
 * needs no preflight) and sign the victim's browser into the attacker's account (login CSRF).
 * Browsers say where a request comes from in `Sec-Fetch-Site`; a cookie is only set for the site
 * itself (or a request no browser made: no header).
 */
export function requireSameOrigin(c: Context): void {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpError('CSRF_MISMATCH', 'Session cookies are only set for requests from the dashboard itself');
  }
}
