import { requestCtx } from '../context.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { createRoute } from '@hono/zod-openapi';
import { apiKeySecurity, jsonBody, jsonResponse } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { MaintenanceListQueryV1, MaintenanceWindow, MaintenanceWindowCreateV1, MaintenanceWindowDetail, MaintenanceWindowUpdate } from './schema.js';
import {
  createMaintenanceWindow,
  deleteMaintenanceWindow,
  finishMaintenanceWindow,
  getMaintenanceWindowDetail,
  listMaintenanceWindows,
  toMaintenanceWindow,
  updateMaintenanceWindow,
} from './windows.js';

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
  r.openapi(
    createRoute({
      method: 'get',
      path: '/maintenance-windows/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(MaintenanceWindowDetail, 'Window with its projects') },
    }),
    async (c) => c.json(await getMaintenanceWindowDetail(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'put',
      path: '/maintenance-windows/{id}',
      tags,
      security,
      request: { params: IdParam, body: jsonBody(MaintenanceWindowUpdate) },
      responses: { 200: jsonResponse(MaintenanceWindow, 'Updated (SCHEDULED windows only; otherwise 409)') },
    }),
    async (c) => c.json(toMaintenanceWindow(await updateMaintenanceWindow(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/maintenance-windows/{id}/cancel',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(MaintenanceWindow, 'Cancelled, or unchanged when already terminal') },
    }),
    async (c) => c.json(toMaintenanceWindow(await finishMaintenanceWindow(requestCtx(c), c.req.valid('param').id, 'CANCELLED')), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/maintenance-windows/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 204: { description: 'Deleted (an ACTIVE window must be cancelled first: 409)' } },
    }),
    async (c) => {
      await deleteMaintenanceWindow(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}
