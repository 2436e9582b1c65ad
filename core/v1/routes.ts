import { requestCtx } from '../context.js';
import { keyWorkspaceId, whoAmI } from '../auth/keyScope.js';
import { createRoute, z } from '@hono/zod-openapi';
import { apiKeyAuth } from '../auth/middleware.js';
import { createRouter } from '../http/router.js';
import { apiKeySecurity, DOCUMENT_LICENSE, jsonBody, jsonResponse, serveOpenApi } from '../http/openapi.js';
import { envelope, pageQuery, pageSchema } from '../http/pagination.js';
import { IdParam, Project, ProjectCreateV1 } from '../identity/schema.js';
import { createProject, getProject, pageProjects, toProject } from '../identity/projects.js';
import { v1CheckRoutes } from '../checks/v1Routes.js';
import { v1JobRoutes } from '../checks/v1JobRoutes.js';
import { v1DeploymentRoutes } from '../deployments/v1Routes.js';
import { v1MaintenanceRoutes } from '../maintenance/v1Routes.js';
import { v1IncidentRoutes } from '../incidents/v1Routes.js';
import { v1MetricsRoutes } from '../metrics/routes.js';
import { v1StatusPageRoutes } from '../statuspages/v1Routes.js';

const WhoAmI = z
  .object({
    workspace: z.object({ id: z.number().int(), name: z.string() }),
    apiKey: z.object({
      id: z.number().int(),
      name: z.string(),
      permission: z.enum(['read_only', 'read_write']),
      kind: z.enum(['service', 'ping']),
    }),
  })
  .openapi('WhoAmI');

/** The Integration API (`/v1`): API keys only, the paginated envelope on every list. */
export function v1Routes() {
  const r = createRouter();
  r.use('*', async (c, next) => {
    // The OpenAPI document is public; everything else needs a key.
    if (c.req.path === '/api/v1/openapi.json') return next();
    return apiKeyAuth()(c, next);
  });
  r.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'http', scheme: 'bearer' });
  const security = apiKeySecurity;

  r.openapi(
    createRoute({ method: 'get', path: '/whoami', tags: ['v1'], security, responses: { 200: jsonResponse(WhoAmI, 'The key and its workspace') } }),
    async (c) => c.json(await whoAmI(requestCtx(c)), 200),
  );

  r.openapi(
    createRoute({
      method: 'get',
      path: '/projects',
      tags: ['v1'],
      security,
      request: { query: pageQuery(20) },
      responses: { 200: jsonResponse(pageSchema(Project, 'ProjectPage'), 'Projects') },
    }),
    async (c) => {
      const { page, limit } = c.req.valid('query');
      const { items, total } = await pageProjects(requestCtx(c), keyWorkspaceId(c.var.actor), page, limit);
      return c.json(envelope(items.map(toProject), total, page, limit), 200);
    },
  );

  r.openapi(
    createRoute({ method: 'post', path: '/projects', tags: ['v1'], security, request: { body: jsonBody(ProjectCreateV1) }, responses: { 201: jsonResponse(Project, 'Created') } }),
    async (c) => {
      const input = c.req.valid('json');
      return c.json(toProject(await createProject(requestCtx(c), { ...input, workspaceId: keyWorkspaceId(c.var.actor) })), 201);
    },
  );

  r.openapi(
    createRoute({ method: 'get', path: '/projects/{id}', tags: ['v1'], security, request: { params: IdParam }, responses: { 200: jsonResponse(Project, 'Project') } }),
    async (c) => c.json(toProject(await getProject(requestCtx(c), c.req.valid('param').id)), 200),
  );

  r.route('/', v1CheckRoutes());
  r.route('/', v1JobRoutes());
  r.route('/', v1DeploymentRoutes());
  r.route('/', v1MaintenanceRoutes());
  r.route('/', v1IncidentRoutes());
  r.route('/', v1MetricsRoutes());
  r.route('/', v1StatusPageRoutes());

  serveOpenApi(r, '/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Vigil Integration API', version: '1', license: DOCUMENT_LICENSE },
    servers: [{ url: '/api/v1' }],
  });
  return r;
}
