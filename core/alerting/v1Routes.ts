import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonResponse as json } from '../http/openapi.js';
import { paginate, pageQuery, pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { WorkspaceQuery } from '../identity/schema.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { channelCrudRoutes } from './channelCrudRoutes.js';
import { viewAlertChannels } from './channels.js';
import { AlertChannel } from './channelsSchema.js';

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
  channelCrudRoutes(r, {
    tags,
    security,
    base: '/alert-channels',
    described: { one: 'Alert channel; credentials masked', updated: 'Updated; credentials masked', deleted: 'Deleted (409 while a policy targets it)' },
  });
  return r;
}
