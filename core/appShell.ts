import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import type { Deps } from './deps.js';
import type { AppEnv } from './http/env.js';
import { HttpError } from './http/errors.js';
import { answerOutsideRoutes, requireJsonBodies } from './http/guards.js';

// RFC 8058 one-click unsubscribe posts `List-Unsubscribe=One-Click` as a form, and the pages behind
// mailed links post their button's form; the body is not read.
const exemptFromJson = (path: string): boolean =>
  path.includes('/signals/') ||
  // Healthchecks' clients post text/plain (runitor, `curl --data-raw`).
  path.startsWith('/api/ping/') ||
  path.startsWith('/api/push/') ||
  path.endsWith('/oauth/token') ||
  (path.startsWith('/api/public/status/') && (path.endsWith('/unsubscribe') || path.endsWith('/subscriptions/confirm'))) ||
  path.startsWith('/api/alert-channels/confirm/') ||
  path.startsWith('/api/ack/') ||
  // Senders post their own formats: SNS posts JSON as text/plain (the body is parsed as JSON anyway).
  path.startsWith('/api/integrations/intake');

/** No API body comes near this; it keeps a runaway upload out of memory (pings have their own 10 KB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * What every Vigil app shares, whatever routes it serves: deps on the context, the JSON-body
 * guard, `/api/health`, a JSON 404 (405 with `Allow` when only the method is wrong) and the spec
 * error shape for thrown errors. `mount` adds the routes; the fallbacks are set after it so that
 * the 405 check sees them. Kept apart from core/app.ts so a Lambda serving one surface bundles
 * only the modules of that surface.
 */
export function createAppShell(deps: Deps, mount: (app: OpenAPIHono<AppEnv>) => void): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.use('/api/*', requireJsonBodies(exemptFromJson));
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new HttpError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_BODY_BYTES} bytes`);
    },
  });
  // A GET or HEAD request has no body, and asking for it makes the Node adapter build a whole
  // fetch Request: a measurable share of every ping.
  app.use('/api/*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
  app.get('/api/health', (c) => c.json({ status: 'ok' }));

  mount(app);

  answerOutsideRoutes(app);
  return app;
}
