import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { createRouter } from '../http/router.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { IdParam, WorkspaceQuery } from '../identity/schema.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { AlertChannel, AlertChannelCreate, AlertChannelCreated, AlertChannelTestResult, AlertChannelUpdate } from './channelsSchema.js';
import { createAlertChannel, deleteAlertChannel, updateAlertChannel, viewAlertChannel, viewAlertChannels } from './channels.js';
import { testAlertChannel } from './channelsDelivery.js';

const json = jsonResponse;
const body = jsonBody;
const security = sessionSecurity;
const tags = ['alert-channels'];

/** `/alert-channels` on the dashboard surface: VIEWER reads, ADMIN manages and test-sends. */
export function alertChannelRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({ method: 'get', path: '/', tags, security, request: { query: WorkspaceQuery }, responses: { 200: json(z.array(AlertChannel), 'Alert channels') } }),
    async (c) => {
      const ctx = requestCtx(c);
      const workspaceId = await resolveWorkspaceId(ctx, c.req.valid('query').workspaceId);
      return c.json(await viewAlertChannels(ctx, workspaceId), 200);
    },
  );
  r.openapi(
    createRoute({ method: 'post', path: '/', tags, security, request: { body: body(AlertChannelCreate) }, responses: { 201: json(AlertChannelCreated, 'Created; a WEBHOOK secret is shown once') } }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      const workspaceId = await resolveWorkspaceId(ctx, input.workspaceId);
      return c.json(await createAlertChannel(ctx, { ...input, workspaceId }), 201);
    },
  );
  r.openapi(
    createRoute({ method: 'get', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 200: json(AlertChannel, 'Alert channel') } }),
    async (c) => c.json(await viewAlertChannel(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({ method: 'patch', path: '/{id}', tags, security, request: { params: IdParam, body: body(AlertChannelUpdate) }, responses: { 200: json(AlertChannel, 'Updated') } }),
    async (c) => c.json(await updateAlertChannel(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 204: { description: 'Deleted' } } }),
    async (c) => {
      await deleteAlertChannel(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  r.openapi(
    createRoute({ method: 'post', path: '/{id}/test', tags, security, request: { params: IdParam }, responses: { 200: json(AlertChannelTestResult, 'What the test send did') } }),
    async (c) => c.json(await testAlertChannel(requestCtx(c), c.req.valid('param').id), 200),
  );
  return r;
}
