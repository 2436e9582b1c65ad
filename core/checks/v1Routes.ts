import { requestCtx } from '../context.js';
import { createRoute, type z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.js';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { pageQuery } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { authorize } from '../auth/authorize.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { HttpError, errorBody } from '../http/errors.js';
import { CHECK_BATCH_MAX, CheckRefParam, CheckV1, CheckV1BatchCreate, CheckV1BatchResult, CheckV1Create, CheckV1Page, CheckV1Update } from './schema.js';
import { assertHttp, createV1Check, createV1CheckFromInput, deleteV1, listV1, loadV1, pauseV1, resumeV1, updateV1Check } from './v1.js';
import { toCheckV1 } from './present.js';

const security = apiKeySecurity;
const tags = ['v1', 'checks'];
const ref = { params: CheckRefParam };

/**
 * Spec: a checkType other than HTTP is 422 CHECK_TYPE_NOT_SUPPORTED. It is judged before the rest of
 * the body, so a DNS check without an HTTP config hears "not supported", not "config is required".
 */
const checkTypeFirst: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === 'POST' || c.req.method === 'PATCH') {
    // Hono caches the parsed body, so the validator reads the same one; malformed JSON is its to refuse.
    const body: unknown = await c.req.json<unknown>().catch(() => undefined);
    if (typeof body === 'object' && body !== null && 'checkType' in body) assertHttp(body.checkType);
  }
  await next();
};

const BATCH_PATH = '/api/v1/checks/batch';
const CHECKS_PER_UNIT = 10;

/**
 * The key's rate-limit units of a `/v1` request (core/v1/routes.ts): a batch of checks costs one
 * per ten items, spent before anything is created (a refused batch creates nothing). A batch the
 * schema will refuse costs one, as any request.
 */
export async function v1RequestUnits(c: Context<AppEnv>): Promise<number> {
  if (c.req.method !== 'POST' || c.req.path !== BATCH_PATH) return 1;
  const body: unknown = await c.req.json<unknown>().catch(() => undefined);
  const items = typeof body === 'object' && body !== null && 'items' in body && Array.isArray(body.items) ? body.items.length : 0;
  return items >= 1 && items <= CHECK_BATCH_MAX ? Math.ceil(items / CHECKS_PER_UNIT) : 1;
}

/** `/v1/checks`: outbound HTTP checks; `:id` is an id or `slug:<slug>`. Mounted by v1Routes (API key auth). */
export function v1CheckRoutes() {
  const r = createRouter();
  r.use('/checks', checkTypeFirst);
  r.use('/checks/*', checkTypeFirst);
  const view = (c: Context<AppEnv>) => (check: Parameters<typeof toCheckV1>[1]) => toCheckV1(c.var.deps.config, check, c.var.actor);
  r.openapi(
    createRoute({ method: 'get', path: '/checks', tags, security, request: { query: pageQuery(20) }, responses: { 200: jsonResponse(CheckV1Page, 'Checks') } }),
    async (c) => {
      const { page, limit } = c.req.valid('query');
      const result = await listV1(requestCtx(c), 'check', page, limit);
      return c.json({ ...result, items: result.items.map(view(c)) }, 200);
    },
  );
  r.openapi(
    createRoute({ method: 'post', path: '/checks', tags, security, request: { body: jsonBody(CheckV1Create) }, responses: { 201: jsonResponse(CheckV1, 'Created') } }),
    async (c) => c.json(view(c)(await createV1Check(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/checks/batch',
      tags,
      security,
      description: `Create up to ${CHECK_BATCH_MAX} checks, each exactly as \`POST /v1/checks\` would, in order; an item's 4xx is in its result and does not stop the others. Costs ceil(items / ${CHECKS_PER_UNIT}) of the key's rate limit.`,
      request: { body: jsonBody(CheckV1BatchCreate) },
      responses: { 200: jsonResponse(CheckV1BatchResult, 'One result per item, in order') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      // A read-only key may create nothing: one 403 for the request, not one per item.
      await authorize(ctx.deps, ctx.actor, keyWorkspaceId(ctx.actor), 'MEMBER', 'Workspace');
      const results: z.input<typeof CheckV1BatchResult>['results'] = [];
      for (const [index, item] of c.req.valid('json').items.entries()) {
        try {
          results.push({ index, status: 201, check: view(c)(await createV1CheckFromInput(ctx, item)) });
        } catch (err) {
          // A fault of the store is the request's 5xx, as on any route; only the caller's mistakes stay per item.
          if (!(err instanceof HttpError) || err.status >= 500) throw err;
          results.push({ index, status: err.status, error: errorBody(err.status, err.message, err.code, err.details) });
        }
      }
      return c.json({ results }, 200);
    },
  );
  r.openapi(createRoute({ method: 'get', path: '/checks/{id}', tags, security, request: ref, responses: { 200: jsonResponse(CheckV1, 'Check') } }), async (c) =>
    c.json(view(c)(await loadV1(requestCtx(c), 'check', c.req.valid('param').id, 'VIEWER')), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/checks/{id}',
      tags,
      security,
      request: { ...ref, body: jsonBody(CheckV1Update) },
      responses: { 200: jsonResponse(CheckV1, 'Updated') },
    }),
    async (c) => c.json(view(c)(await updateV1Check(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(createRoute({ method: 'delete', path: '/checks/{id}', tags, security, request: ref, responses: { 204: { description: 'Deleted' } } }), async (c) => {
    await deleteV1(requestCtx(c), 'check', c.req.valid('param').id);
    return c.body(null, 204);
  });
  r.openapi(createRoute({ method: 'post', path: '/checks/{id}/pause', tags, security, request: ref, responses: { 200: jsonResponse(CheckV1, 'Paused') } }), async (c) =>
    c.json(view(c)(await pauseV1(requestCtx(c), 'check', c.req.valid('param').id)), 200),
  );
  r.openapi(createRoute({ method: 'post', path: '/checks/{id}/resume', tags, security, request: ref, responses: { 200: jsonResponse(CheckV1, 'Resumed') } }), async (c) =>
    c.json(view(c)(await resumeV1(requestCtx(c), 'check', c.req.valid('param').id)), 200),
  );
  return r;
}
