import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context } from 'hono';
import { DASHBOARD_HEADERS } from '../../dashboard/siteHeaders.js';

type Fetch<Env> = (request: Request, env: Env) => Response | Promise<Response>;

/** Where `npm run build:web` (Vite) writes the dashboard. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** Vite names every file under assets/ by its content hash: a new build is a new URL. */
const HASHED_PREFIX = '/assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';

const secure = (c: Context) => {
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) c.header(name, value);
};

/**
 * The built dashboard beside the app, on one origin (so the session cookie and the API share it,
 * as CloudFront routes `/api/*` on AWS). The app answers first for every path it owns; a GET for
 * any other path is a file of the build, or else the SPA's index.html (the router draws the page).
 * The app goes first even outside `/api` because a verified custom domain's status page lives at
 * `/` and `/history`: only the app's 404 hands the path to the dashboard. Without a build the app
 * is served alone.
 */
export function withDashboard<Env>(fetch: Fetch<Env>, dist: string = DASHBOARD_DIST): Fetch<Env> {
  if (!existsSync(join(dist, 'index.html'))) return fetch;
  const site = new Hono();
  site.use('*', async (c, next) => {
    await next();
    secure(c);
  });
  site.use(HASHED_PREFIX + '*', serveStatic({ root: dist, onFound: (_path, c) => c.header('Cache-Control', IMMUTABLE) }));
  // A hashed file that is not in this build is a 404, never the page (a stale tab asks for one).
  site.get(HASHED_PREFIX + '*', (c) => c.text('Not found', 404));
  // index.html names the hashed files, so it is revalidated on every load.
  const revalidate = (_path: string, c: Context) => c.header('Cache-Control', 'no-cache');
  site.use('*', serveStatic({ root: dist, onFound: revalidate }));
  site.get('*', serveStatic({ path: join(dist, 'index.html'), onFound: revalidate }));
  const ownedByApp = (path: string) => path === '/api' || path.startsWith('/api/') || path === '/mcp' || path.startsWith('/mcp/');
  return async (request, env) => {
    const method = request.method;
    const path = new URL(request.url).pathname;
    if ((method !== 'GET' && method !== 'HEAD') || ownedByApp(path)) return fetch(request, env);
    if (path.startsWith(HASHED_PREFIX)) return site.fetch(request);
    const answer = await fetch(request, env);
    if (answer.status !== 404 || path.startsWith('/status/')) return answer;
    return site.fetch(request);
  };
}
