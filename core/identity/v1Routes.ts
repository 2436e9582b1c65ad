import { createRoute, z } from '@hono/zod-openapi';
import { keyWorkspaceId, whoAmI } from '../auth/keyScope.js';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonBody, jsonResponse } from '../http/openapi.js';
import { envelope, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { createProject, getProject, pageProjects, toProject } from './projects.js';
import { IdParam, Project, ProjectCreateV1 } from './schema.js';

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

/** `/v1/whoami` and `/v1/projects`: the key, its workspace and the workspace's projects. Mounted by v1Routes (API key auth). */
export function v1IdentityRoutes() {
  const r = createRouter();
  r.openapi(createRoute({ method: 'get', path: '/whoami', tags: ['v1'], security, responses: { 200: jsonResponse(WhoAmI, 'The key and its workspace') } }), async (c) =>
    c.json(await whoAmI(requestCtx(c)), 200),
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
  return r;
}
