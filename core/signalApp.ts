import { Hono } from 'hono';
import { answerOutsideRoutes } from './http/guards.js';
import { PingHints } from './signals/hints.js';
import { answerPing, exitCodePing, PING_METHODS, PING_VARIANTS, pingOptions } from './signals/ping.js';
import { answerKumaPush, KUMA_PUSH_PATH } from './signals/kumaPush.js';
import type { PingDeps } from './signals/pingStore.js';

/** Where the ping Lambda's routes live; stacks/ApiStack.ts routes exactly this prefix to it. */
export const SIGNAL_APP_PREFIX = '/api/signals/ping';

/**
 * The ping Lambda's app: token pings (`/api/signals/ping/:token[/start|/fail|/log|/<exit code>]`,
 * GET, HEAD and POST) and `/api/health`, nothing else. Ping traffic is the hot path and every scale-out pays
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
  // Uptime Kuma's push path, for monitors imported with their push tokens (core/imports).
  app.on(['GET', 'POST'], KUMA_PUSH_PATH, (c) => answerKumaPush(deps, c, hints));
  // After the named variants, as in routes.ts: any other last segment is an exit code (or no route).
  for (const method of PING_METHODS) {
    app.on(method.toUpperCase(), `${SIGNAL_APP_PREFIX}/:token/:exitCode`, async (c) => {
      const ping = exitCodePing(c.req.param('exitCode') ?? '');
      await answerPing(deps, c, hints, c.req.param('token') ?? '', ping.kind, undefined, pingOptions(c, ping.exitCode));
      return c.json({ message: 'OK' as const }, 200);
    });
  }
  answerOutsideRoutes(app);
  return app;
}
