import { Hono } from 'hono';
import { answerOutsideRoutes } from './http/guards.js';
import { PingHints } from './signals/hints.js';
import { answerPing, PING_METHODS, PING_VARIANTS } from './signals/ping.js';
import type { PingDeps } from './signals/pingStore.js';

/** Where the ping Lambda's routes live; stacks/ApiStack.ts routes exactly this prefix to it. */
export const SIGNAL_APP_PREFIX = '/api/signals/ping';

/**
 * The ping Lambda's app: token pings (`/api/signals/ping/:token[/start|/fail]`, GET, HEAD and
 * POST) and `/api/health`, nothing else. Ping traffic is the hot path and every scale-out pays
 * this app's cold start, so it is a plain Hono app (no OpenAPI, no zod) over PingDeps (no
 * ElectroDB): the same answerPing and ingestPing as the API app's ping routes
 * (core/signals/routes.ts), the same 404/405 and error shape as createAppShell. Slug pings need
 * an API key, the check by slug and possibly a new job, which is the API app's whole stack:
 * the API Lambda serves them, as it serves signal history and the stream.
 */
export function createSignalApp(deps: PingDeps): Hono {
  const app = new Hono();
  const hints = new PingHints();
  app.get('/api/health', (c) => c.json({ status: 'ok' }));
  for (const variant of PING_VARIANTS) {
    for (const method of PING_METHODS) {
      app.on(method.toUpperCase(), `${SIGNAL_APP_PREFIX}/:token${variant.suffix}`, async (c) => {
        await answerPing(deps, c, hints, c.req.param('token') ?? '', variant.kind);
        return c.json({ message: 'OK' as const }, 200);
      });
    }
  }
  answerOutsideRoutes(app);
  return app;
}
