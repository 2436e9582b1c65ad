import { requestCtx } from '../context.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { createRoute } from '@hono/zod-openapi';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { Deployment, DeploymentCreateV1, DeploymentListQueryV1 } from './schema.js';
import { endDeployment, listDeployments, loadDeployment, openDeployment, toDeployment } from './deployments.js';

const security = apiKeySecurity;
const tags = ['v1', 'deployments'];

/** `/v1/deployments`: open, end, list. Mounted by v1Routes (API key auth). */
export function v1DeploymentRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'post',
      path: '/deployments',
      tags,
      security,
      request: { body: jsonBody(DeploymentCreateV1) },
      responses: { 201: jsonResponse(Deployment, 'Opened (ACTIVE); scheduledEndAt set when ttlMinutes is given') },
    }),
    async (c) => c.json(toDeployment(await openDeployment(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/deployments/{id}/end',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(Deployment, 'ENDED; 200 with the current state when already ended') },
    }),
    async (c) => c.json(toDeployment(await endDeployment(requestCtx(c), c.req.valid('param').id)), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/deployments/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(Deployment, 'Deployment') },
    }),
    async (c) => c.json(toDeployment(await loadDeployment(requestCtx(c), c.req.valid('param').id, 'VIEWER')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/deployments',
      tags,
      security,
      request: { query: DeploymentListQueryV1.extend(pageQuery(20).shape) },
      responses: { 200: jsonResponse(pageSchema(Deployment, 'DeploymentPage'), 'Deployments, newest first') },
    }),
    async (c) => {
      const { page, limit, ...filter } = c.req.valid('query');
      const items = await listDeployments(requestCtx(c), keyWorkspaceId(c.var.actor), filter);
      return c.json(paginate(items.map(toDeployment), page, limit), 200);
    },
  );
  return r;
}
