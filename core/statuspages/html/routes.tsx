/** @jsxImportSource hono/jsx */
import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { setCookie } from 'hono/cookie';
import type { AppEnv } from '../../http/env.js';
import { errorBody, HttpError } from '../../http/errors.js';
import {
  DATA_RULE,
  accessOf,
  inMemory,
  limitPasswordAttempt,
  limitPublic,
  passwordLogin,
  PAGE_SESSION_SECONDS,
  sessionCookie,
  snapshotByDomain,
  snapshotBySlug,
} from '../public/access.js';
import { componentBar, pageHistory, publicPage } from '../public/view.js';
import type { PageSnapshot } from '../store/snapshot.js';
import { cachedHtml, rememberHtml } from '../store/viewCache.js';
import { doc, secure } from './layout.js';
import { HistoryView, NotFoundView, PasswordView, StatusPageView, type PageLinks } from './page.js';

/**
 * The server-rendered page (docs/guide/status-pages.md): `/status/:slug`, its history and password form,
 * and the same at `/` on a verified custom domain. No script at all; one nonce'd style sheet.
 */

const MAX_FORM_BYTES = 4096;

const slugLinks = (slug: string): PageLinks => ({ home: `/status/${slug}`, history: `/status/${slug}/history`, auth: `/status/${slug}/auth` });
const domainLinks: PageLinks = { home: '/', history: '/history', auth: '/auth' };

type Find = (c: Context<AppEnv>) => Promise<PageSnapshot | null>;

async function renderPage(c: Context<AppEnv>, find: Find, links: PageLinks, which: 'status' | 'history', key: { by: 'slug' | 'domain'; value: string }) {
  const { deps } = c.var;
  const nonce = randomBytes(16).toString('base64');
  secure(c, nonce);
  // History reads the store on every view; the page itself only when it is not in memory.
  if (which === 'history' || !inMemory(deps, key.by, key.value)) await limitPublic(c, deps, DATA_RULE(deps, 'sp-html'), key.value);
  const now = deps.clock.now();
  const snapshot = await find(c);
  const access = await accessOf(c, deps, snapshot, now);
  if (access === 'HIDDEN' || !snapshot) return c.html(await doc(<NotFoundView nonce={nonce} />), 404);
  c.header('Cache-Control', snapshot.page.visibility === 'PUBLIC' ? 'public, max-age=30' : 'private, no-store');
  if (access === 'NEEDS_PASSWORD') return c.html(await doc(<PasswordView nonce={nonce} links={links} error={false} />), 401);
  // A public page renders the same for everyone within a minute: render once, then only the nonce differs.
  const cacheKey = snapshot.page.visibility === 'PUBLIC' ? `${snapshot.page.id}:${snapshot.builtAt}:${which}:${Math.floor(now.getTime() / 60_000)}` : null;
  if (cacheKey === null) return c.html(await renderAllowed(c, snapshot, links, which, nonce, now), 200);
  let parts = cachedHtml(deps.store, cacheKey, now.getTime());
  if (parts === undefined) {
    parts = (await renderAllowed(c, snapshot, links, which, NONCE_SLOT, now)).split(NONCE_SLOT).map((part) => encoder.encode(part));
    rememberHtml(deps.store, cacheKey, parts, now.getTime());
  }
  return c.body(withNonce(parts, nonce), 200, { 'Content-Type': 'text/html; charset=UTF-8' });
}

/** Stands for the response's nonce in cached HTML (base64 never contains `!`). */
const NONCE_SLOT = '!nonce!';
const encoder = new TextEncoder();

/** The cached byte runs joined by this response's nonce: a copy, no string encoding per view. */
function withNonce(parts: readonly Uint8Array[], nonce: string): Uint8Array<ArrayBuffer> {
  const slot = encoder.encode(nonce);
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0) + slot.length * (parts.length - 1));
  let at = 0;
  parts.forEach((part, i) => {
    if (i > 0) {
      out.set(slot, at);
      at += slot.length;
    }
    out.set(part, at);
    at += part.length;
  });
  return out;
}

async function renderAllowed(c: Context<AppEnv>, snapshot: PageSnapshot, links: PageLinks, which: 'status' | 'history', nonce: string, now: Date): Promise<string> {
  const { deps } = c.var;
  const view = publicPage(snapshot, now);
  if (which === 'history') {
    const { months } = await pageHistory(deps, snapshot, 6, 0, now);
    return doc(<HistoryView view={view} months={months} nonce={nonce} links={links} />);
  }
  const bars = new Map(snapshot.components.map((component) => [component.id, componentBar(snapshot, component, now)]));
  return doc(<StatusPageView view={view} bars={bars} nonce={nonce} links={links} />);
}

async function login(c: Context<AppEnv>, links: PageLinks, key: string) {
  const { deps } = c.var;
  const nonce = randomBytes(16).toString('base64');
  secure(c, nonce);
  c.header('Cache-Control', 'no-store');
  if (Number(c.req.header('content-length') ?? '0') > MAX_FORM_BYTES) return c.html(await doc(<PasswordView nonce={nonce} links={links} error={true} />), 413);
  await limitPasswordAttempt(c, deps, key);
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const password = typeof form.password === 'string' ? form.password.slice(0, 200) : '';
  try {
    // `key` is the page's slug on both routes; an unknown one pays the same hash as a wrong password.
    const session = await passwordLogin(deps, key, password, deps.clock.now());
    setCookie(c, sessionCookie(session.snapshot.page.id), session.token, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: new URL(c.req.url).protocol === 'https:',
      path: '/',
      maxAge: PAGE_SESSION_SECONDS,
    });
    return c.redirect(links.home, 303);
  } catch (err) {
    if (err instanceof HttpError && err.status === 401) return c.html(await doc(<PasswordView nonce={nonce} links={links} error={true} />), 401);
    throw err;
  }
}

const bySlug: Find = (c) => snapshotBySlug(c.var.deps, c.req.param('slug') ?? '');
const hostOf = (c: Context<AppEnv>): string => (c.req.header('host') ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
const byHost: Find = (c) => snapshotByDomain(c.var.deps, hostOf(c));

export function statusHtmlRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/status/:slug', (c) => renderPage(c, bySlug, slugLinks(c.req.param('slug')), 'status', { by: 'slug', value: c.req.param('slug') }));
  r.get('/status/:slug/history', (c) => renderPage(c, bySlug, slugLinks(c.req.param('slug')), 'history', { by: 'slug', value: c.req.param('slug') }));
  r.post('/status/:slug/auth', (c) => login(c, slugLinks(c.req.param('slug')), c.req.param('slug')));
  r.get('/status/*', async (c) => {
    const nonce = randomBytes(16).toString('base64');
    secure(c, nonce);
    return c.html(await doc(<NotFoundView nonce={nonce} />), 404);
  });
  // A verified custom domain serves its page at `/`; any other host gets the API's plain 404.
  const noRoute = (c: Context<AppEnv>) => c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}`, 'NOT_FOUND'), 404);
  const onDomain = (which: 'status' | 'history') => async (c: Context<AppEnv>) => {
    const host = hostOf(c);
    const warm = inMemory(c.var.deps, 'domain', host);
    // An unknown host costs a lock read: counted like any page view that reads the store.
    if (!warm) await limitPublic(c, c.var.deps, DATA_RULE(c.var.deps, 'sp-html'), `host:${host}`);
    const snapshot = await byHost(c);
    if (!snapshot) return noRoute(c);
    return renderPage(c, async () => snapshot, domainLinks, which, { by: 'domain', value: host });
  };
  r.get('/', onDomain('status'));
  r.get('/history', onDomain('history'));
  r.post('/auth', async (c) => {
    const snapshot = await byHost(c);
    if (!snapshot) return noRoute(c);
    return login(c, domainLinks, snapshot.page.slug);
  });
  return r;
}
