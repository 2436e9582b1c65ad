import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { createIntegration, deleteIntegration, listIntegrations, rotateIntegrationSecret, updateIntegration, viewIntegration } from './integrations.js';
import { Integration, IntegrationCreate, IntegrationCreated, IntegrationUpdate } from './schema.js';

const security = apiKeySecurity;
const tags = ['v1', 'integrations'];

/** `/v1/integrations`: the same verbs as the dashboard's, for a read_write key of the workspace. */
export function v1IntegrationRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'post',
      path: '/integrations',
      tags,
      security,
      request: { body: jsonBody(IntegrationCreate) },
      responses: { 201: jsonResponse(IntegrationCreated, 'Created; the intake URL and its secret are shown once') },
    }),
    async (c) => {
      const input = c.req.valid('json');
      return c.json(await createIntegration(requestCtx(c), { ...input, workspaceId: input.workspaceId ?? keyWorkspaceId(c.var.actor) }), 201);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/integrations',
      tags,
      security,
      request: { query: pageQuery(20) },
      responses: { 200: jsonResponse(pageSchema(Integration, 'IntegrationPage'), 'Integrations, oldest first') },
    }),
    async (c) => {
      const { page, limit } = c.req.valid('query');
      return c.json(paginate(await listIntegrations(requestCtx(c), keyWorkspaceId(c.var.actor)), page, limit), 200);
    },
  );
  r.openapi(
    createRoute({ method: 'get', path: '/integrations/{id}', tags, security, request: { params: IdParam }, responses: { 200: jsonResponse(Integration, 'Integration') } }),
    async (c) => c.json(await viewIntegration(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/integrations/{id}',
      tags,
      security,
      request: { params: IdParam, body: jsonBody(IntegrationUpdate) },
      responses: { 200: jsonResponse(Integration, 'Updated') },
    }),
    async (c) => c.json(await updateIntegration(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/integrations/{id}/rotate-secret',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(IntegrationCreated, 'A new intake URL, shown once; the old one answers 404 from now on') },
    }),
    async (c) => c.json(await rotateIntegrationSecret(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/integrations/{id}', tags, security, request: { params: IdParam }, responses: { 204: { description: 'Deleted; its incidents stay' } } }),
    async (c) => {
      await deleteIntegration(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}
