import type { Context, Env, Hono, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';
import { errorBody, handleError, HttpError } from './httpError.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Writes carry JSON. Pings (any body is a ping) and the OAuth token endpoint (form bodies) are
 * the exceptions, passed in by the app.
 */
export function requireJsonBodies(exempt: (path: string) => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (WRITE_METHODS.has(c.req.method) && !exempt(c.req.path)) {
      const type = (c.req.header('content-type') ?? '').toLowerCase();
      const isJson = type.startsWith('application/json') || type.includes('+json');
      // A declared non-JSON type is refused even when the length is unknown (fetch-built requests).
      if (!isJson && (hasBody(c) || type !== '')) {
        throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json');
      }
    }
    await next();
  };
}

function hasBody(c: Context): boolean {
  const length = c.req.header('content-length');
  if (length !== undefined) return Number(length) > 0;
  return c.req.header('transfer-encoding') !== undefined;
}

type RouteInfo = { method: string; path: string };

/** Turns Hono's registered routes into "does another method exist for this path?". */
export function methodsFor(routes: readonly RouteInfo[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (route.method === 'ALL') continue;
    const pattern = new RegExp(
      '^' +
        route.path
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\/\*$/, '(?:/.*)?')
          .replace(/:[A-Za-z0-9_]+/g, '[^/]+') +
        '/?$',
    );
    if (pattern.test(path)) methods.add(route.method);
  }
  // Hono answers HEAD wherever it answers GET.
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods];
}

/**
 * What every Vigil app answers outside its routes, set after them so the 405 check sees them: a
 * JSON 404, a 405 with `Allow` when only the method is wrong, and the spec error shape for
 * thrown errors (createAppShell and the ping Lambda's createSignalApp alike).
 */
export function answerOutsideRoutes<E extends Env>(app: Hono<E>): void {
  app.notFound((c) => {
    const allowed = methodsFor(app.routes, c.req.path).filter((m) => m !== c.req.method);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return c.json(errorBody(405, `Method ${c.req.method} not allowed on ${c.req.path}`, 'METHOD_NOT_ALLOWED'), 405);
    }
    return c.json(errorBody(404, `No route for ${c.req.method} ${c.req.path}`, 'NOT_FOUND'), 404);
  });
  app.onError(handleError);
}
