import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { etag } from 'hono/etag';
import type { Deps } from '../../deps.js';
import type { AppEnv } from '../../http/env.js';
import { jsonResponse } from '../../http/openapi.js';
import type { RateLimitRule } from '../../http/rateLimit.js';
import { createRouter } from '../../http/router.js';
import { overallIndicator } from '../componentStatus.js';
import { statusesAt, type PageSnapshot } from '../store/snapshot.js';
import { cachedHtml, rememberHtml } from '../store/viewCache.js';
import { DATA_RULE, limitPublic, requireAccess, requireFeedAccess, snapshotBySlug } from './access.js';
import { BadgeQuery, statusBadge } from './badge.js';
import { atomFeed, feedAnnouncements, rssFeed, type FeedLinks } from './feeds.js';
import { statuspageSummary, widgetSummary } from './summary.js';
import { WIDGET_JS } from './widget.js';

/**
 * The public surfaces that carry a page elsewhere (docs/guide/status-pages.md "Feeds, badge, widget and summary.json"): feeds, badge,
 * widget and its summary, and the Statuspage-shaped summary.json. Same visibility rules as the
 * page JSON (requireAccess); the limit is counted before the page is read, per page and client
 * address. Limits the spec names (feeds 10 per 60 s each, page data 30 per 60 s) are the spec's;
 * badge and widget script, which it leaves open, are static-like assets embedded on other sites
 * and get the check badge's 600 per 60 s.
 */

export const FEED_RULES = { rss: { name: 'sp-rss', limit: 10, windowSeconds: 60 }, atom: { name: 'sp-atom', limit: 10, windowSeconds: 60 } } as const satisfies Record<
  string,
  RateLimitRule
>;
export const BADGE_RULE: RateLimitRule = { name: 'sp-badge', limit: 600, windowSeconds: 60 };
export const WIDGET_RULE: RateLimitRule = { name: 'sp-widget', limit: 600, windowSeconds: 60 };
const SHORT_CACHE = 'public, max-age=60';
const NO_STORE = 'private, no-store';

const tags = ['public-status'];
const SlugParam = z.object({ slug: z.string().max(1024) });
const FeedQuery = z.object({ token: z.string().max(4096).optional() });
const Anything = z.record(z.string(), z.unknown());
const text = (type: string, description: string) => ({ description, content: { [type]: { schema: z.string() } } });

const cacheFor = (snapshot: PageSnapshot): string => (snapshot.page.visibility === 'PUBLIC' ? SHORT_CACHE : NO_STORE);

/** Read by scripts on other origins (the widget, aggregators): only a PUBLIC page's data crosses. */
function corsFor(c: Context<AppEnv>, snapshot: PageSnapshot): void {
  if (snapshot.page.visibility === 'PUBLIC') c.header('Access-Control-Allow-Origin', '*');
}

const feedLinks = (deps: Deps, slug: string): FeedLinks => {
  const base = `${deps.config.publicUrl}/api/public/status/${slug}`;
  return { rss: `${base}/feed.rss`, atom: `${base}/feed.atom` };
};

async function pageFor(c: Context<AppEnv>, rule: RateLimitRule, slug: string): Promise<{ snapshot: PageSnapshot; now: Date }> {
  const { deps } = c.var;
  await limitPublic(c, deps, rule, slug);
  const now = deps.clock.now();
  return { snapshot: await requireAccess(c, deps, await snapshotBySlug(deps, slug), now), now };
}

export function publicSurfaceRoutes() {
  const r = createRouter();
  for (const format of ['rss', 'atom'] as const) {
    // Feed readers poll: an unchanged feed answers 304 to If-None-Match (after the limit counted it).
    r.use(`/:slug/feed.${format}`, etag());
    const type = format === 'rss' ? 'application/rss+xml' : 'application/atom+xml';
    r.openapi(
      createRoute({
        method: 'get',
        path: `/{slug}/feed.${format}`,
        tags,
        summary: format === 'rss' ? 'RSS 2.0 feed of announcements' : 'Atom 1.0 feed of announcements',
        request: { params: SlugParam, query: FeedQuery },
        responses: { 200: text(type, 'One entry per announcement; `?token=` carries a password page session') },
      }),
      async (c) => {
        const { deps } = c.var;
        const { slug } = c.req.valid('param');
        await limitPublic(c, deps, FEED_RULES[format], slug);
        const now = deps.clock.now();
        const snapshot = await requireFeedAccess(c, deps, await snapshotBySlug(deps, slug), now, c.req.valid('query').token);
        // A public feed is the same for every reader: built once (a query and a read per entry),
        // then served from the view cache for its few seconds; a protected one is never shared.
        const cacheKey = snapshot.page.visibility === 'PUBLIC' ? `${snapshot.page.id}:feed-${format}:${snapshot.builtAt}` : null;
        let body = cacheKey === null ? undefined : cachedHtml(deps.store, cacheKey, now.getTime())?.[0];
        if (body === undefined) {
          const announcements = await feedAnnouncements(deps, snapshot);
          const xml =
            format === 'rss' ? rssFeed(deps.config, snapshot, announcements, feedLinks(deps, slug)) : atomFeed(deps.config, snapshot, announcements, feedLinks(deps, slug));
          body = new TextEncoder().encode(xml);
          if (cacheKey !== null) rememberHtml(deps.store, cacheKey, [body], now.getTime());
        }
        return c.body(new Uint8Array(body), 200, {
          'Content-Type': `${type}; charset=utf-8`,
          'Cache-Control': cacheFor(snapshot),
          'X-Content-Type-Options': 'nosniff',
          // The URL may carry a page session: never pass it on.
          'Referrer-Policy': 'no-referrer',
        });
      },
    );
  }
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/badge.svg',
      tags,
      summary: 'SVG badge of the overall status',
      request: { params: SlugParam, query: BadgeQuery },
      responses: { 200: text('image/svg+xml', 'SVG badge') },
    }),
    async (c) => {
      const { slug } = c.req.valid('param');
      const { style } = c.req.valid('query');
      const { snapshot, now } = await pageFor(c, BADGE_RULE, slug);
      return c.body(statusBadge(overallIndicator(statusesAt(snapshot, now).overall).indicator, style), 200, {
        'Content-Type': 'image/svg+xml; charset=utf-8',
        'Cache-Control': cacheFor(snapshot),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      });
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/widget.js',
      tags,
      summary: 'Script rendering a status pill into <div data-vigil-status="slug">',
      request: { params: SlugParam },
      responses: { 200: text('text/javascript', 'The widget script') },
    }),
    async (c) => {
      const { slug } = c.req.valid('param');
      const { snapshot } = await pageFor(c, WIDGET_RULE, slug);
      return c.body(WIDGET_JS, 200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': snapshot.page.visibility === 'PUBLIC' ? 'public, max-age=300' : NO_STORE,
        'X-Content-Type-Options': 'nosniff',
        'Cross-Origin-Resource-Policy': 'cross-origin',
      });
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/summary',
      tags,
      summary: "The widget's summary (CORS for public pages)",
      request: { params: SlugParam },
      responses: { 200: jsonResponse(Anything, 'Name, link and overall status') },
    }),
    async (c) => {
      const { deps } = c.var;
      const { slug } = c.req.valid('param');
      const { snapshot, now } = await pageFor(c, DATA_RULE(deps, 'sp-summary'), slug);
      corsFor(c, snapshot);
      c.header('Cache-Control', cacheFor(snapshot));
      return c.json(widgetSummary(deps.config, snapshot, now), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/summary.json',
      tags,
      summary: "Atlassian Statuspage's /api/v2/summary.json shape",
      request: { params: SlugParam },
      responses: { 200: jsonResponse(Anything, 'page, status, components, incidents, scheduled_maintenances') },
    }),
    async (c) => {
      const { deps } = c.var;
      const { slug } = c.req.valid('param');
      const { snapshot, now } = await pageFor(c, DATA_RULE(deps, 'sp-summary-json'), slug);
      corsFor(c, snapshot);
      c.header('Cache-Control', cacheFor(snapshot));
      return c.json(statuspageSummary(deps.config, snapshot, now), 200);
    },
  );
  return r;
}
