import { requestCtx } from '../context.js';
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.js';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { pageQuery } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { CheckRefParam, JobCreate, JobUpdate, JobV1, JobV1Page } from './schema.js';
import { createHeartbeatJob, deleteV1, listV1, loadV1, pauseV1, resumeV1, updateV1Job } from './v1.js';
import { toJobV1 } from './present.js';

const security = apiKeySecurity;
const tags = ['v1', 'jobs'];
const ref = { params: CheckRefParam };

/** `/v1/jobs`: heartbeat checks (docs/guide/checks-and-pings.md); `:id` is an id or `slug:<slug>`. Mounted by v1Routes (API key auth). */
export function v1JobRoutes() {
  const r = createRouter();
  const view = (c: Context<AppEnv>) => (check: Parameters<typeof toJobV1>[1]) => toJobV1(c.var.deps.config, check, c.var.actor);
  r.openapi(createRoute({ method: 'get', path: '/jobs', tags, security, request: { query: pageQuery(20) }, responses: { 200: jsonResponse(JobV1Page, 'Jobs') } }), async (c) => {
    const { page, limit } = c.req.valid('query');
    const result = await listV1(requestCtx(c), 'job', page, limit);
    return c.json({ ...result, items: result.items.map(view(c)) }, 200);
  });
  r.openapi(createRoute({ method: 'post', path: '/jobs', tags, security, request: { body: jsonBody(JobCreate) }, responses: { 201: jsonResponse(JobV1, 'Created') } }), async (c) =>
    c.json(view(c)(await createHeartbeatJob(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(createRoute({ method: 'get', path: '/jobs/{id}', tags, security, request: ref, responses: { 200: jsonResponse(JobV1, 'Job') } }), async (c) =>
    c.json(view(c)(await loadV1(requestCtx(c), 'job', c.req.valid('param').id, 'VIEWER')), 200),
  );
  r.openapi(
    createRoute({ method: 'patch', path: '/jobs/{id}', tags, security, request: { ...ref, body: jsonBody(JobUpdate) }, responses: { 200: jsonResponse(JobV1, 'Updated') } }),
    async (c) => c.json(view(c)(await updateV1Job(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(createRoute({ method: 'delete', path: '/jobs/{id}', tags, security, request: ref, responses: { 204: { description: 'Deleted' } } }), async (c) => {
    await deleteV1(requestCtx(c), 'job', c.req.valid('param').id);
    return c.body(null, 204);
  });
  r.openapi(createRoute({ method: 'post', path: '/jobs/{id}/pause', tags, security, request: ref, responses: { 200: jsonResponse(JobV1, 'Paused') } }), async (c) =>
    c.json(view(c)(await pauseV1(requestCtx(c), 'job', c.req.valid('param').id)), 200),
  );
  r.openapi(createRoute({ method: 'post', path: '/jobs/{id}/resume', tags, security, request: ref, responses: { 200: jsonResponse(JobV1, 'Resumed') } }), async (c) =>
    c.json(view(c)(await resumeV1(requestCtx(c), 'job', c.req.valid('param').id)), 200),
  );
  return r;
}
