import { requestCtx } from '../context.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { createRoute } from '@hono/zod-openapi';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { windowByIdRoutes } from './windowRoutes.js';
import { IdParam } from '../identity/schema.js';
import { MaintenanceListQueryV1, MaintenanceWindow, MaintenanceWindowCreateV1 } from './schema.js';
import { createMaintenanceWindow, finishMaintenanceWindow, listMaintenanceWindows, toMaintenanceWindow } from './windows.js';

const security = apiKeySecurity;
const tags = ['v1', 'maintenance-windows'];

/** `/v1/maintenance-windows`: create, end, list, and the dashboard's read, update, cancel, delete. Mounted by v1Routes (API key auth). */
export function v1MaintenanceRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'post',
      path: '/maintenance-windows',
      tags,
      security,
      request: { body: jsonBody(MaintenanceWindowCreateV1) },
      responses: { 201: jsonResponse(MaintenanceWindow, 'Created: ACTIVE when startAt has passed, else SCHEDULED') },
    }),
    async (c) => c.json(toMaintenanceWindow(await createMaintenanceWindow(requestCtx(c), { ...c.req.valid('json'), workspaceId: keyWorkspaceId(c.var.actor) })), 201),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/maintenance-windows/{id}/end',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(MaintenanceWindow, 'COMPLETED; a terminal window is returned unchanged') },
    }),
    async (c) => c.json(toMaintenanceWindow(await finishMaintenanceWindow(requestCtx(c), c.req.valid('param').id, 'COMPLETED')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/maintenance-windows',
      tags,
      security,
      request: { query: MaintenanceListQueryV1.extend(pageQuery(20).shape) },
      responses: { 200: jsonResponse(pageSchema(MaintenanceWindow, 'MaintenanceWindowPage'), 'Windows, newest first') },
    }),
    async (c) => {
      const { page, limit, ...filter } = c.req.valid('query');
      const windows = await listMaintenanceWindows(requestCtx(c), keyWorkspaceId(c.var.actor), filter);
      return c.json(paginate(windows.map(toMaintenanceWindow), page, limit), 200);
    },
  );
  windowByIdRoutes(r, { tags, security, base: '/maintenance-windows' });
  return r;
}
