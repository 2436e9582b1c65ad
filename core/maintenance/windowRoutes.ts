import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import type { AppEnv } from '../http/env.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { IdParam } from '../identity/schema.js';
import { MaintenanceWindow, MaintenanceWindowDetail, MaintenanceWindowUpdate } from './schema.js';
import { deleteMaintenanceWindow, finishMaintenanceWindow, getMaintenanceWindowDetail, toMaintenanceWindow, updateMaintenanceWindow } from './windows.js';

/**
 * One window by id (read, update, cancel, delete), the same for the dashboard's
 * `/maintenance-windows` (session, mounted there: base '') and the Integration API's
 * `/v1/maintenance-windows` (API key, mounted at the root), so the two cannot drift apart.
 * Create and list differ (the key's workspace, pagination) and stay in each router.
 */
export function windowByIdRoutes(
  r: OpenAPIHono<AppEnv>,
  { tags, security, base }: { tags: string[]; security: { [name: string]: string[] }[]; base: '' | '/maintenance-windows' },
) {
  const path = `${base}/{id}`;
  r.openapi(
    createRoute({
      method: 'get',
      path,
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
      path,
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
      path: `${path}/cancel`,
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
      path,
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
}
