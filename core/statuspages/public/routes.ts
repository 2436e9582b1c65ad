import { createRoute, z } from '@hono/zod-openapi';
import { jsonBody, jsonResponse } from '../../http/openapi.js';
import { notFound } from '../../http/errors.js';
import { createRouter } from '../../http/router.js';
import { DATA_RULE, limitPasswordAttempt, limitPublic, passwordLogin, requireAccess, snapshotBySlug } from './access.js';
import { publicSurfaceRoutes } from './surfaceRoutes.js';
import { componentUptime, pageHistory, publicPage } from './view.js';
import { statusEvents } from './eventsRoutes.js';
import { cachedRead } from '../store/viewCache.js';
import type { PageSnapshot } from '../store/snapshotShape.js';
import { publicSubscriberRoutes } from '../subscribers/routes.js';
import type { EndpointVerifier } from '../subscribers/webhook.js';

const tags = ['public-status'];
const SlugParam = z.object({ slug: z.string().max(1024) });
const ComponentParam = SlugParam.extend({ componentId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
const UptimeQuery = z.object({ days: z.coerce.number().int().min(1).max(365).default(90), offset: z.coerce.number().int().min(0).max(3650).default(0) });
const HistoryQuery = z.object({ months: z.coerce.number().int().min(1).max(12).default(3), offset: z.coerce.number().int().min(0).max(120).default(0) });
const AuthBody = z.strictObject({ password: z.string().min(1).max(200) }).openapi('StatusPageAuth');
const Anything = z.record(z.string(), z.unknown());

/** Shared caches may keep what anyone may see; a protected page's answer is the visitor's own. */
const publicCache = (snapshot: PageSnapshot): string => (snapshot.page.visibility === 'PUBLIC' ? 'public, max-age=30' : 'private, no-store');

/** `/public/status/:slug...` (no credential): the page JSON, its password login, uptime and history; feeds, badge, widget and summaries (surfaceRoutes.ts). */
/** `verify`: the webhook subscribers' challenge exchange (alerting's, passed in by the app). */
export function publicStatusRoutes(verify: EndpointVerifier) {
  const r = createRouter();
  r.openapi(
    createRoute({ method: 'get', path: '/{slug}', tags, request: { params: SlugParam }, responses: { 200: jsonResponse(Anything, 'The page, its components and announcements') } }),
    async (c) => {
      const { deps } = c.var;
      const { slug } = c.req.valid('param');
      await limitPublic(c, deps, DATA_RULE(deps, 'sp-page'), slug);
      const now = deps.clock.now();
      const snapshot = await requireAccess(c, deps, await snapshotBySlug(deps, slug), now);
      c.header('Cache-Control', publicCache(snapshot));
      return c.json(publicPage(snapshot, now), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{slug}/auth',
      tags,
      request: { params: SlugParam, body: jsonBody(AuthBody) },
      responses: {
        200: jsonResponse(z.object({ token: z.string(), expiresIn: z.number().int() }), 'A page session (12 h)'),
        429: {
          description:
            'More than 5 attempts on this page or 20 on all pages from this address in 5 minutes, or every password hash of the server busy (`Retry-After: 1`); an unknown page answers as a wrong password does',
        },
      },
    }),
    async (c) => {
      const { deps } = c.var;
      const { slug } = c.req.valid('param');
      await limitPasswordAttempt(c, deps, slug);
      const { token, expiresIn } = await passwordLogin(deps, slug, c.req.valid('json').password, deps.clock.now());
      c.header('Cache-Control', 'no-store');
      return c.json({ token, expiresIn }, 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/components/{componentId}/uptime',
      tags,
      request: { params: ComponentParam, query: UptimeQuery },
      responses: { 200: jsonResponse(Anything, 'Daily uptime, UTC days, newest last') },
    }),
    async (c) => {
      const { deps } = c.var;
      const { slug, componentId } = c.req.valid('param');
      const { days, offset } = c.req.valid('query');
      await limitPublic(c, deps, DATA_RULE(deps, 'sp-uptime'), slug);
      const now = deps.clock.now();
      const snapshot = await requireAccess(c, deps, await snapshotBySlug(deps, slug), now);
      const component = snapshot.components.find((entry) => entry.id === componentId);
      if (!component) throw notFound('Component');
      // Cached like the page itself: a flood of anonymous reads of one range costs the store one read per few seconds.
      const body = await cachedRead(deps.store, `${snapshot.page.id}:uptime:${componentId}:${days}:${offset}`, now.getTime(), async () => {
        const read = await componentUptime(deps, snapshot, component, days, offset, now);
        return { componentId, days: read.days.map(({ date, uptime, downSeconds }) => ({ date, uptime, downSeconds })), uptime: read.uptime };
      });
      c.header('Cache-Control', publicCache(snapshot));
      return c.json(body, 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/history',
      tags,
      request: { params: SlugParam, query: HistoryQuery },
      responses: {
        200: jsonResponse(
          Anything,
          'Past announcements and incidents by month; `truncated` when the bounded read (newest 100 announcements, 20 shown, newest 200 incidents) left some unread',
        ),
      },
    }),
    async (c) => {
      const { deps } = c.var;
      const { slug } = c.req.valid('param');
      const { months, offset } = c.req.valid('query');
      await limitPublic(c, deps, DATA_RULE(deps, 'sp-history'), slug);
      const now = deps.clock.now();
      const snapshot = await requireAccess(c, deps, await snapshotBySlug(deps, slug), now);
      c.header('Cache-Control', publicCache(snapshot));
      return c.json(await pageHistory(deps, snapshot, months, offset, now), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/events',
      tags,
      request: { params: SlugParam },
      responses: {
        200: {
          description:
            'Server-sent events: `component.status_changed`, `announcement.created`, `announcement.updated`; a keep-alive comment every 15 s. The stream ends after 10 minutes (EventSource reconnects) and when the page stops being open to the caller',
          content: { 'text/event-stream': { schema: z.string() } },
        },
        429: { description: 'More than 30 new connections in 60 s, or already 20 open streams of the address (with Retry-After)' },
      },
    }),
    (c) => statusEvents(c, c.req.valid('param').slug),
  );
  r.route('/', publicSubscriberRoutes(verify));
  r.route('/', publicSurfaceRoutes());
  return r;
}
