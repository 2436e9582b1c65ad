import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';
import { HttpError } from './errors.js';

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
