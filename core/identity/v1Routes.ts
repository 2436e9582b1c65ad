import { createRoute, z } from '@hono/zod-openapi';
import { keyWorkspaceId, whoAmI } from '../auth/keyScope.js';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonBody, jsonResponse } from '../http/openapi.js';
import { envelope, paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { createProject, deleteProject, getProject, pageProjects, toProject, updateProject } from './projects.js';
import { listMembers } from './members.js';
import { IdParam, Member, Project, ProjectCreateV1, ProjectUpdate, WorkspaceQuery } from './schema.js';
import { resolveWorkspaceId } from './workspaceScope.js';

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

/** `/v1/whoami`, `/v1/projects` and `/v1/members`: the key, its workspace, the workspace's projects and people. Mounted by v1Routes (API key auth). */
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
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/projects/{id}',
      tags: ['v1'],
      security,
      request: { params: IdParam, body: jsonBody(ProjectUpdate) },
      responses: { 200: jsonResponse(Project, 'Updated') },
    }),
    async (c) => c.json(toProject(await updateProject(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/projects/{id}',
      tags: ['v1'],
      security,
      request: { params: IdParam },
      responses: { 204: { description: 'Deleted (409 while it still has checks)' } },
    }),
    async (c) => {
      await deleteProject(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );

  // Read only: a file names people by e-mail; managing members stays on the dashboard.
  r.openapi(
    createRoute({
      method: 'get',
      path: '/members',
      tags: ['v1'],
      security,
      request: { query: WorkspaceQuery.extend(pageQuery(20).shape) },
      responses: { 200: jsonResponse(pageSchema(Member, 'MemberPage'), 'Members of the workspace') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { workspaceId, page, limit } = c.req.valid('query');
      return c.json(paginate(await listMembers(ctx, await resolveWorkspaceId(ctx, workspaceId)), page, limit), 200);
    },
  );
  return r;
}
