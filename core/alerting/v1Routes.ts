import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonBody as body, jsonResponse as json } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam, WorkspaceQuery } from '../identity/schema.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { createAlertChannel, deleteAlertChannel, updateAlertChannel, viewAlertChannel, viewAlertChannels } from './channels.js';
import { MAIL_UNAVAILABLE_CREATE, MAIL_UNAVAILABLE_PATCH, PATCH_THROTTLED } from './channelsRoutes.js';
import { AlertChannel, AlertChannelCreate, AlertChannelCreated, AlertChannelUpdate } from './channelsSchema.js';

const tags = ['v1', 'alert-channels'];

/**
 * `/v1/alert-channels`: the dashboard's verbs for a read_write key of the workspace. A key sees
 * configs masked as a MEMBER does (core/alerting/channels.ts `toAlertChannel`), its own PATCH included.
 */
export function v1AlertChannelRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'get',
      path: '/alert-channels',
      tags,
      security,
      request: { query: WorkspaceQuery.extend(pageQuery(20).shape) },
      responses: { 200: json(pageSchema(AlertChannel, 'AlertChannelPage'), 'Alert channels, oldest first; credentials masked') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const { workspaceId, page, limit } = c.req.valid('query');
      return c.json(paginate(await viewAlertChannels(ctx, await resolveWorkspaceId(ctx, workspaceId)), page, limit), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/alert-channels',
      tags,
      security,
      request: { body: body(AlertChannelCreate) },
      responses: { 201: json(AlertChannelCreated, 'Created; a WEBHOOK secret is shown once'), 503: { description: MAIL_UNAVAILABLE_CREATE } },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      return c.json(await createAlertChannel(ctx, { ...input, workspaceId: await resolveWorkspaceId(ctx, input.workspaceId) }), 201);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/alert-channels/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: json(AlertChannel, 'Alert channel; credentials masked') },
    }),
    async (c) => c.json(await viewAlertChannel(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/alert-channels/{id}',
      tags,
      security,
      request: { params: IdParam, body: body(AlertChannelUpdate) },
      responses: { 200: json(AlertChannel, 'Updated; credentials masked'), 429: { description: PATCH_THROTTLED }, 503: { description: MAIL_UNAVAILABLE_PATCH } },
    }),
    async (c) => c.json(await updateAlertChannel(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/alert-channels/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 204: { description: 'Deleted (409 while a policy targets it)' } },
    }),
    async (c) => {
      await deleteAlertChannel(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}
