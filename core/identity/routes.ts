import { createRoute, z } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { sessionAuth } from '../auth/middleware.js';
import { createRouter } from '../http/router.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyUpdate, IdParam, Project, ProjectCreate, ProjectPingKey, ProjectUpdate, WorkspaceQuery } from './schema.js';
import { rotateProjectPingKey } from './pingKeys.js';
import { createProject, deleteProject, getProject, listProjects, toProject, updateProject } from './projects.js';
import { createApiKey, deleteApiKey, listApiKeys, toApiKey, updateApiKey } from './apiKeys.js';
import { resolveWorkspaceId } from './workspaceScope.js';
import { workspaceRoutes } from './workspaceRoutes.js';

const json = jsonResponse;
const body = jsonBody;
const security = sessionSecurity;

function projectRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({ method: 'get', path: '/', tags: ['projects'], security, request: { query: WorkspaceQuery }, responses: { 200: json(z.array(Project), 'Projects') } }),
    async (c) => {
      const ctx = requestCtx(c);
      const workspaceId = await resolveWorkspaceId(ctx, c.req.valid('query').workspaceId);
      return c.json((await listProjects(ctx, workspaceId)).map(toProject), 200);
    },
  );
  r.openapi(
    createRoute({ method: 'post', path: '/', tags: ['projects'], security, request: { body: body(ProjectCreate) }, responses: { 201: json(Project, 'Created') } }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      const workspaceId = await resolveWorkspaceId(ctx, input.workspaceId);
      return c.json(toProject(await createProject(ctx, { ...input, workspaceId })), 201);
    },
  );
  r.openapi(createRoute({ method: 'get', path: '/{id}', tags: ['projects'], security, request: { params: IdParam }, responses: { 200: json(Project, 'Project') } }), async (c) =>
    c.json(toProject(await getProject(requestCtx(c), c.req.valid('param').id)), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      tags: ['projects'],
      security,
      request: { params: IdParam, body: body(ProjectUpdate) },
      responses: { 200: json(Project, 'Updated') },
    }),
    async (c) => c.json(toProject(await updateProject(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/{id}', tags: ['projects'], security, request: { params: IdParam }, responses: { 204: { description: 'Deleted' } } }),
    async (c) => {
      await deleteProject(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/ping-key',
      tags: ['projects'],
      summary: "Creates or rotates the project's ping key (ADMIN): Healthchecks-compatible slug pings; the old key stops working",
      security,
      request: { params: IdParam },
      responses: { 201: json(ProjectPingKey, 'Created; the key is shown once (only its hash is stored)'), 409: { description: 'Rotated concurrently; nothing changed' } },
    }),
    async (c) => c.json(await rotateProjectPingKey(requestCtx(c), c.req.valid('param').id), 201),
  );
  return r;
}

function apiKeyRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({ method: 'get', path: '/', tags: ['api-keys'], security, request: { query: WorkspaceQuery }, responses: { 200: json(z.array(ApiKey), 'API keys') } }),
    async (c) => {
      const ctx = requestCtx(c);
      const workspaceId = await resolveWorkspaceId(ctx, c.req.valid('query').workspaceId);
      return c.json((await listApiKeys(ctx, workspaceId)).map(toApiKey), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags: ['api-keys'],
      security,
      request: { body: body(ApiKeyCreate) },
      responses: { 201: json(ApiKeyCreated, 'Created; the key is shown once') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      const workspaceId = await resolveWorkspaceId(ctx, input.workspaceId);
      return c.json(await createApiKey(ctx, { ...input, workspaceId }), 201);
    },
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      tags: ['api-keys'],
      security,
      request: { params: IdParam, body: body(ApiKeyUpdate) },
      responses: { 200: json(ApiKey, 'Updated') },
    }),
    async (c) => c.json(await updateApiKey(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/{id}', tags: ['api-keys'], security, request: { params: IdParam }, responses: { 204: { description: 'Deleted' } } }),
    async (c) => {
      await deleteApiKey(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}

/** The identity resources of the dashboard surface, each at its own prefix. */
export function identityRoutes() {
  const r = createRouter();
  r.route('/projects', projectRoutes());
  r.route('/api-keys', apiKeyRoutes());
  r.route('/workspaces', workspaceRoutes());
  return r;
}
