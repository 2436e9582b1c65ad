import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { MaintenanceListQuery, MaintenanceWindow, MaintenanceWindowCreate, MaintenanceWindowDetail, MaintenanceWindowUpdate } from './schema.js';
import {
  createMaintenanceWindow,
  deleteMaintenanceWindow,
  finishMaintenanceWindow,
  getMaintenanceWindowDetail,
  listMaintenanceWindows,
  toMaintenanceWindow,
  updateMaintenanceWindow,
} from './windows.js';

const security = sessionSecurity;
const tags = ['maintenance-windows'];

/** Dashboard `/maintenance-windows` (session token). */
export function maintenanceRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      security,
      request: { body: jsonBody(MaintenanceWindowCreate) },
      responses: { 201: jsonResponse(MaintenanceWindow, 'Created') },
    }),
    async (c) => c.json(toMaintenanceWindow(await createMaintenanceWindow(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      request: { query: MaintenanceListQuery },
      responses: { 200: jsonResponse(z.array(MaintenanceWindow), 'Windows, newest first') },
    }),
    async (c) => {
      const { workspaceId, state } = c.req.valid('query');
      return c.json((await listMaintenanceWindows(requestCtx(c), workspaceId, { state })).map(toMaintenanceWindow), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
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
      path: '/{id}',
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
      path: '/{id}/cancel',
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
      path: '/{id}',
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
