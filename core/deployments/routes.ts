import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { jsonResponse, sessionSecurity } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { DashboardDeployment, DeploymentCreate, DeploymentEnd, DeploymentListQuery } from './schema.js';
import { endDeployment, listProjectDeployments, openDeployment, toDashboardDeployment } from './deployments.js';

const security = sessionSecurity;
const tags = ['deployments'];

/** Dashboard `/deployments` (session token). */
export function deploymentRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      security,
      request: { body: { required: true, content: { 'application/json': { schema: DeploymentCreate } } } },
      responses: { 201: jsonResponse(DashboardDeployment, 'Created: ACTIVE, SCHEDULED when it starts later, or ENDED when endedAt has passed') },
    }),
    async (c) => c.json(toDashboardDeployment(await openDeployment(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'put',
      path: '/{id}/end',
      tags,
      security,
      // The body is optional: an empty request ends the deployment now.
      request: { params: IdParam, body: { required: false, content: { 'application/json': { schema: DeploymentEnd } } } },
      responses: { 200: jsonResponse(DashboardDeployment, 'ENDED (an ENDED deployment is returned unchanged)') },
    }),
    async (c) => {
      const body = c.req.valid('json') as z.infer<typeof DeploymentEnd> | undefined;
      return c.json(toDashboardDeployment(await endDeployment(requestCtx(c), c.req.valid('param').id, body?.endedAt)), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      request: { query: DeploymentListQuery },
      responses: { 200: jsonResponse(z.array(DashboardDeployment), 'Deployments of the project, newest first') },
    }),
    async (c) => {
      const { projectId, start, end, checkId } = c.req.valid('query');
      const items = await listProjectDeployments(requestCtx(c), projectId, { from: start, to: end, checkId });
      return c.json(items.map(toDashboardDeployment), 200);
    },
  );
  return r;
}
