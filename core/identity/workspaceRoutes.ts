import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { createRouter } from '../http/router.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { IdParam, Member, MemberCreate, MemberParams, MemberUpdate, WorkspaceCreate, WorkspaceDetail, WorkspaceUpdate } from './schema.js';
import { createWorkspace, getMe, getWorkspace, listWorkspaces, updateWorkspace } from './workspaces.js';
import { UserResponse, WorkspaceResponse } from '../auth/schema.js';
import { addMember, listMembers, removeMember, updateMember } from './members.js';

const json = jsonResponse;
const body = jsonBody;
const security = sessionSecurity;
const tags = ['workspaces'];

/** `/workspaces` and `/workspaces/:id/members` on the dashboard surface (session tokens only). */
export function workspaceRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());

  r.openapi(createRoute({ method: 'get', path: '/', tags, security, responses: { 200: json(z.array(WorkspaceDetail), "The caller's workspaces") } }), async (c) =>
    c.json(await listWorkspaces(requestCtx(c)), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      security,
      request: { body: body(WorkspaceCreate) },
      responses: { 201: json(WorkspaceDetail, 'Created; the caller is its OWNER') },
    }),
    async (c) => c.json(await createWorkspace(requestCtx(c), c.req.valid('json')), 201),
  );
  r.openapi(
    createRoute({ method: 'get', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 200: json(WorkspaceDetail, 'Workspace with its plan limits') } }),
    async (c) => c.json(await getWorkspace(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      tags,
      security,
      request: { params: IdParam, body: body(WorkspaceUpdate) },
      responses: { 200: json(WorkspaceDetail, 'Updated (OWNER only)') },
    }),
    async (c) => c.json(await updateWorkspace(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );

  r.openapi(createRoute({ method: 'get', path: '/{id}/members', tags, security, request: { params: IdParam }, responses: { 200: json(z.array(Member), 'Members') } }), async (c) =>
    c.json(await listMembers(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/members',
      tags,
      security,
      request: { params: IdParam, body: body(MemberCreate) },
      responses: { 201: json(Member, 'Added (ADMIN or higher)') },
    }),
    async (c) => c.json(await addMember(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 201),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}/members/{userId}',
      tags,
      security,
      request: { params: MemberParams, body: body(MemberUpdate) },
      responses: { 200: json(Member, 'Role changed') },
    }),
    async (c) => {
      const { id, userId } = c.req.valid('param');
      return c.json(await updateMember(requestCtx(c), id, userId, c.req.valid('json')), 200);
    },
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/{id}/members/{userId}', tags, security, request: { params: MemberParams }, responses: { 204: { description: 'Removed' } } }),
    async (c) => {
      const { id, userId } = c.req.valid('param');
      await removeMember(requestCtx(c), id, userId);
      return c.body(null, 204);
    },
  );
  return r;
}

/** `GET /me`: the user with their workspaces and roles. */
export function meRoutes() {
  const router = createRouter();
  router.use('*', sessionAuth());
  router.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['auth'],
      security: [{ session: [] }],
      responses: {
        200: {
          description: 'The signed-in user',
          content: {
            'application/json': {
              schema: UserResponse.extend({
                workspaces: z.array(WorkspaceResponse.extend({ role: z.enum(['OWNER', 'ADMIN', 'MEMBER', 'VIEWER']) })),
              }),
            },
          },
        },
      },
    }),
    async (c) => c.json(await getMe(requestCtx(c)), 200),
  );
  return router;
}
