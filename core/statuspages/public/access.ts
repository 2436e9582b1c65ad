import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { bearerToken, requireCurrentSession } from '../../auth/middleware.js';
import { requireFreeHashSlot, withHashSlot } from '../../auth/hashSlots.js';
import { dummyHash, verifyPassword } from '../../auth/secrets.js';
import { jwtKey, verifyAccessToken } from '../../auth/tokens.js';
import type { Deps } from '../../deps.js';
import { clientIp } from '../../http/clientIp.js';
import { HttpError, notFound, unauthorized } from '../../http/errors.js';
import { consumeRateLimit, enforce, type RateLimitRule } from '../../http/rateLimit.js';
import { lockOwner } from '../../store/locks.js';
import { DOMAIN_SCOPE, SLUG_SCOPE } from '../pages.js';
import { readSnapshot, type PageSnapshot } from '../store/snapshot.js';
import { cachedOwner, cachedSnapshot, rememberOwner } from '../store/viewCache.js';

/**
 * Who may see a public page (docs/guide/status-pages.md): PUBLIC everyone; PASSWORD_PROTECTED a
 * holder of a page session bound to the current password version (401 otherwise); PRIVATE only
 * a signed-in member of the workspace (404 to anyone else, so the page's existence stays secret);
 * disabled pages and unknown slugs 404.
 */

export const PAGE_SESSION_SECONDS = 12 * 3600;
const AUDIENCE = 'vigil-status-page';
export const sessionCookie = (pageId: number): string => `vigil_page_${pageId}`;

export const DATA_RULE = (deps: Deps, name: string): RateLimitRule => ({ name, limit: deps.config.publicStatusRateLimit, windowSeconds: 60 });
export const AUTH_RULE: RateLimitRule = { name: 'sp-auth', limit: 5, windowSeconds: 300 };
/** Password attempts per client address over every page: a new slug per attempt earns no new budget. */
export const AUTH_ADDRESS_RULE: RateLimitRule = { name: 'sp-auth-ip', limit: 20, windowSeconds: 300 };

/** 429 with Retry-After when the caller spent the page's budget (per page and client address). */
export async function limitPublic(c: Context, deps: Deps, rule: RateLimitRule, key: string): Promise<void> {
  enforce(await consumeRateLimit(deps, rule, `${key}:${clientIp(c)}`));
}

/**
 * A password attempt's two budgets, the address's over all pages first, then the page's. Both are
 * spent before the page is looked up, so an unknown page and a wrong password are refused alike.
 * While every hash slot is busy the attempt is refused before either (no store request at all).
 */
export async function limitPasswordAttempt(c: Context, deps: Deps, key: string): Promise<void> {
  requireFreeHashSlot(deps);
  enforce(await consumeRateLimit(deps, AUTH_ADDRESS_RULE, `ip:${clientIp(c)}`), 'Too many password attempts from this address');
  await limitPublic(c, deps, AUTH_RULE, key);
}

/** The page id a lock names; only found pages are remembered (a new page must show at once). */
async function ownerOf(deps: Deps, scope: string, value: string): Promise<number | undefined> {
  const key = `${scope}:${value}`;
  const nowMs = deps.clock.now().getTime();
  const cached = cachedOwner(deps.store, key, nowMs);
  if (cached !== undefined) return cached;
  const owner = await lockOwner(deps.store, scope, value);
  if (owner === undefined) return undefined;
  rememberOwner(deps.store, key, Number(owner), nowMs);
  return Number(owner);
}

/**
 * Whether a view of this slug (or domain) would be served from memory alone. The HTML page counts
 * against the page's data limit only when it would read the store: a view from memory costs the
 * store nothing, and a limiter write would be the only store request of it.
 */
export function inMemory(deps: Deps, by: 'slug' | 'domain', value: string): boolean {
  const nowMs = deps.clock.now().getTime();
  const pageId = cachedOwner(deps.store, `${by === 'slug' ? SLUG_SCOPE : DOMAIN_SCOPE}:${value}`, nowMs);
  return pageId !== undefined && cachedSnapshot(deps.store, pageId, nowMs) !== undefined;
}

/** The page behind a slug: the slug lock names it, the snapshot holds the rest (two gets). */
export async function snapshotBySlug(deps: Deps, slug: string): Promise<PageSnapshot | null> {
  if (!/^[a-z0-9-]{1,128}$/.test(slug)) return null;
  const pageId = await ownerOf(deps, SLUG_SCOPE, slug);
  if (pageId === undefined) return null;
  const snapshot = await readSnapshot(deps, pageId);
  return snapshot && snapshot.page.slug === slug ? snapshot : null;
}

/** `/` on a custom domain: only a verified domain is served. */
export async function snapshotByDomain(deps: Deps, host: string): Promise<PageSnapshot | null> {
  const domain = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  if (!/^[a-z0-9.-]{1,253}$/.test(domain)) return null;
  const pageId = await ownerOf(deps, DOMAIN_SCOPE, domain);
  if (pageId === undefined) return null;
  const snapshot = await readSnapshot(deps, pageId);
  if (!snapshot || snapshot.page.customDomain !== domain || snapshot.page.customDomainVerifiedAt === null) return null;
  return snapshot;
}

export async function issuePageSession(deps: Deps, snapshot: PageSnapshot, now: Date): Promise<string> {
  const secret = await jwtKey(deps.store, now);
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ pv: snapshot.page.passwordVersion })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(snapshot.page.id))
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + PAGE_SESSION_SECONDS)
    .sign(secret);
}

async function validPageSession(deps: Deps, snapshot: PageSnapshot, token: string | undefined, now: Date): Promise<boolean> {
  if (!token) return false;
  try {
    const { payload } = await jwtVerify(token, await jwtKey(deps.store, now), { algorithms: ['HS256'], audience: AUDIENCE, currentDate: now });
    return payload.sub === String(snapshot.page.id) && payload.pv === snapshot.page.passwordVersion;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return false;
    throw err;
  }
}

async function isMember(deps: Deps, snapshot: PageSnapshot, token: string | undefined, now: Date): Promise<boolean> {
  return (await memberViewer(deps, snapshot, token, now)) !== undefined;
}

/** The member an access token names, if it is a current session of a member of the page's workspace. */
export async function memberViewer(deps: Deps, snapshot: PageSnapshot, token: string | undefined, now: Date): Promise<StreamViewer | undefined> {
  if (!token || token.startsWith(`${deps.config.keyPrefix}_`)) return undefined;
  try {
    const claims = await verifyAccessToken(deps, token, now);
    // A logged-out or revoked session opens no PRIVATE page: one consistent get of the user, as every dashboard request pays.
    await requireCurrentSession(deps, claims);
    const membership = await deps.store.entities.membership.get({ workspaceId: snapshot.page.workspaceId, userId: claims.userId }).go();
    return membership.data === null ? undefined : { userId: claims.userId, sessionId: claims.familyId };
  } catch (err) {
    if (err instanceof HttpError) return undefined;
    throw err;
  }
}

/** Who a status stream let in as a member: their removal, their logout of that session, ends it. */
export type StreamViewer = { userId: number; sessionId: string | undefined };

export type Access = 'ALLOWED' | 'NEEDS_PASSWORD' | 'HIDDEN';

/** Bearer (JSON clients) or the page's HttpOnly cookie (the HTML page). */
export async function accessOf(c: Context, deps: Deps, snapshot: PageSnapshot | null, now: Date): Promise<Access> {
  if (!snapshot || !snapshot.page.enabled) return 'HIDDEN';
  const { visibility } = snapshot.page;
  if (visibility === 'PUBLIC') return 'ALLOWED';
  const bearer = bearerToken(c);
  if (visibility === 'PRIVATE') return (await isMember(deps, snapshot, bearer, now)) ? 'ALLOWED' : 'HIDDEN';
  const token = bearer ?? getCookie(c, sessionCookie(snapshot.page.id));
  if (await validPageSession(deps, snapshot, token, now)) return 'ALLOWED';
  return (await isMember(deps, snapshot, bearer, now)) ? 'ALLOWED' : 'NEEDS_PASSWORD';
}

/** JSON surfaces: the access decision as the spec's errors. */
export async function requireAccess(c: Context, deps: Deps, snapshot: PageSnapshot | null, now: Date): Promise<PageSnapshot> {
  const access = await accessOf(c, deps, snapshot, now);
  if (access === 'HIDDEN' || !snapshot) throw notFound('Status page');
  if (access === 'NEEDS_PASSWORD') throw unauthorized('This status page is password protected');
  return snapshot;
}

/**
 * Feeds only: feed readers send no headers, so a password page's session may also come as
 * `?token=`. Every other surface takes it as a header or cookie.
 */
export async function requireFeedAccess(c: Context, deps: Deps, snapshot: PageSnapshot | null, now: Date, queryToken: string | undefined): Promise<PageSnapshot> {
  if (snapshot?.page.enabled && snapshot.page.visibility === 'PASSWORD_PROTECTED' && (await validPageSession(deps, snapshot, queryToken, now))) return snapshot;
  return requireAccess(c, deps, snapshot, now);
}

const WRONG_PASSWORD = 'Wrong password or unknown page';

/**
 * Checks a page password; a wrong password, an unknown page and a page without one answer alike.
 * The hash slot is taken before the lookup, so a busy process refuses all of them alike too.
 */
export async function passwordLogin(deps: Deps, slug: string, password: string, now: Date): Promise<{ token: string; expiresIn: number; snapshot: PageSnapshot }> {
  const logN = deps.config.passwordHashLogN;
  const current = await withHashSlot(deps, async (slot) => {
    const snapshot = await snapshotBySlug(deps, slug);
    const page =
      snapshot?.page.enabled && snapshot.page.visibility === 'PASSWORD_PROTECTED' ? (await deps.store.entities.statusPage.get({ statusPageId: snapshot.page.id }).go()).data : null;
    if (!snapshot || !page?.passwordHash) {
      // The same work as a real check, so timing does not tell an unknown page from a wrong password.
      await verifyPassword(slot, password, await dummyHash(slot, logN), logN);
      throw unauthorized(WRONG_PASSWORD);
    }
    if (!(await verifyPassword(slot, password, page.passwordHash, logN)).ok) throw unauthorized(WRONG_PASSWORD);
    return { ...snapshot, page: { ...snapshot.page, passwordVersion: page.passwordVersion } };
  });
  return { token: await issuePageSession(deps, current, now), expiresIn: PAGE_SESSION_SECONDS, snapshot: current };
}

/**
 * The public status stream's visibility, decided at connect (SSE and WebSocket alike): a page
 * that is unknown, disabled or PRIVATE without a member's access token answers 404; a
 * PASSWORD_PROTECTED one needs a page session (401 without). `session` is a page session, or a
 * workspace member's access token (the only way a PRIVATE page streams).
 */
export async function statusStreamAccess(deps: Deps, query: { slug: string; session?: string }): Promise<{ statusPageId: string; viewer?: StreamViewer }> {
  const now = deps.clock.now();
  const snapshot = await snapshotBySlug(deps, query.slug);
  if (!snapshot || !snapshot.page.enabled) throw notFound('Status page');
  const allowed = { statusPageId: String(snapshot.page.id) };
  if (snapshot.page.visibility === 'PUBLIC') return allowed;
  if (snapshot.page.visibility === 'PASSWORD_PROTECTED' && (await validPageSession(deps, snapshot, query.session, now))) return allowed;
  const viewer = await memberViewer(deps, snapshot, query.session, now);
  if (viewer) return { ...allowed, viewer };
  if (snapshot.page.visibility === 'PRIVATE') throw notFound('Status page');
  throw unauthorized('This status page is password protected');
}
