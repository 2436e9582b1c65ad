import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { sessionAuth } from '../auth/middleware.js';
import { jsonBody, jsonResponse, sessionSecurity as security } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { createDependency, deleteDependency, getDependency, listDependencies, updateDependency } from './dependencies.js';
import { toDependency } from './present.js';
import { Dependency, DependencyCreate, DependencyDetail, DependencyListQuery, DependencyUpdate } from './schema.js';

const tags = ['dependencies'];

/** `/dependencies` on the dashboard surface (session auth). */
export function dependencyRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      request: { query: DependencyListQuery },
      responses: { 200: jsonResponse(pageSchema(Dependency, 'DependencyPage'), 'Dependencies of the workspace') },
    }),
    async (c) => c.json(await listDependencies(requestCtx(c), c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({ method: 'post', path: '/', tags, security, request: { body: jsonBody(DependencyCreate) }, responses: { 201: jsonResponse(Dependency, 'Created') } }),
    async (c) => c.json(toDependency(await createDependency(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(DependencyDetail, 'The dependency with its linked checks and workspace') },
    }),
    async (c) => c.json(await getDependency(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      tags,
      security,
      description: 'Needs the ADMIN role or higher.',
      request: { params: IdParam, body: jsonBody(DependencyUpdate) },
      responses: { 200: jsonResponse(Dependency, 'Updated') },
    }),
    async (c) => c.json(toDependency(await updateDependency(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      tags,
      security,
      description: 'Needs the ADMIN role or higher. Linked checks are kept and lose the association.',
      request: { params: IdParam },
      responses: { 204: { description: 'Deleted' } },
    }),
    async (c) => {
      await deleteDependency(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}
