import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { windowByIdRoutes } from './windowRoutes.js';
import { MaintenanceListQuery, MaintenanceWindow, MaintenanceWindowCreate } from './schema.js';
import { createMaintenanceWindow, listMaintenanceWindows, toMaintenanceWindow } from './windows.js';

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
  windowByIdRoutes(r, { tags, security, base: '' });
  return r;
}
