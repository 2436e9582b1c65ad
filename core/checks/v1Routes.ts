import { requestCtx } from '../context.js';
import { createRoute } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.js';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { pageQuery } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { CheckRefParam, CheckV1, CheckV1Create, CheckV1Page, CheckV1Update } from './schema.js';
import { assertHttp, createV1Check, deleteV1, listV1, loadV1, pauseV1, resumeV1, updateV1Check } from './v1.js';
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
