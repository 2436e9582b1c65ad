import { createHash, timingSafeEqual } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bearerToken } from '../auth/middleware.js';
import { requestCtx } from '../context.js';
import type { AppEnv } from '../http/env.js';
import { errorBody, HttpError } from '../http/errors.js';
import { apiKeySecurity } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { installCounters, installMetrics } from './install.js';
import { workspaceMetrics, type Exposition } from './workspace.js';

const MetricsQuery = z.object({
  projectId: z.coerce.number().int().positive().optional().openapi({ description: "Only this project (404 when it is not in the key's workspace)" }),
});

const exposition = (c: { body: (body: string, status: 200, headers: Record<string, string>) => Response }, metrics: Exposition) =>
  c.body(metrics.body, 200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });

/** `GET /v1/metrics`: the key's workspace in the Prometheus text format. Mounted by v1Routes (API key auth). */
export function v1MetricsRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'get',
      path: '/metrics',
      tags: ['v1', 'metrics'],
      security: apiKeySecurity,
      request: { query: MetricsQuery },
      responses: {
        200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: z.string() } } },
        404: { description: "projectId names no project of the key's workspace" },
      },
    }),
    async (c) => exposition(c, await workspaceMetrics(requestCtx(c), c.req.valid('query'))),
  );
  return r;
}

const PING_PATHS = ['/api/signals/ping/*', '/api/signals/s/*', '/api/signals/p/*', '/api/ping/*'];

/**
 * The install's own `GET /metrics` (outside `/api`, off unless VIGIL_METRICS_TOKEN is set) and the
 * ping counter it reports. Mounted at `/` before the signal routes, so the counter wraps them.
 */
export function installMetricsRoutes() {
  const r = createRouter();
  const countPings: MiddlewareHandler<AppEnv> = async (c, next) => {
    await next();
    installCounters(c.var.deps).pings[c.res.status < 400 ? 'accepted' : 'rejected']++;
  };
  for (const path of PING_PATHS) r.use(path, countPings);

  // Every method lands here, so that while it is off no method hears a 405 that would betray it.
  r.all('/metrics', async (c) => {
    const expected = c.var.deps.config.metricsToken;
    if (expected === undefined) return c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}`, 'NOT_FOUND'), 404);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      c.header('Allow', 'GET, HEAD');
      return c.json(errorBody(405, `Method ${c.req.method} not allowed on ${c.req.path}`, 'METHOD_NOT_ALLOWED'), 405);
    }
    if (!sameSecret(bearerToken(c), expected)) {
      throw new HttpError('UNAUTHORIZED', 'A Bearer token matching VIGIL_METRICS_TOKEN is required', undefined, { 'WWW-Authenticate': 'Bearer realm="vigil-metrics"' });
    }
    return exposition(c, await installMetrics(c.var.deps));
  });
  return r;
}

/** Compares digests, so neither the length nor a prefix of the token leaks through timing. */
function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
