import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { byClientIp, sessionAuth } from '../auth/middleware.js';
import { DEFAULT_RATE_LIMIT, rateLimit } from '../http/rateLimit.js';
import { confirmEmailChannel } from './emailConfirm.js';
import { renderLinkDone, renderLinkPage, wantsHtml } from '../statuspages/html/action.js';
import { createRouter } from '../http/router.js';
import { jsonResponse, sessionSecurity } from '../http/openapi.js';
import { IdParam, WorkspaceQuery } from '../identity/schema.js';
import { channelCrudRoutes } from './channelCrudRoutes.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { AlertChannel, AlertChannelTestResult } from './channelsSchema.js';
import { viewAlertChannels } from './channels.js';
import { testAlertChannel } from './channelsDelivery.js';

const json = jsonResponse;
const security = sessionSecurity;
const tags = ['alert-channels'];
/** `GET|POST /alert-channels/confirm/:token` (public, from the mail): registered before the session routes. */
function confirmRoutes() {
  const r = createRouter();
  r.use('/confirm/*', rateLimit(DEFAULT_RATE_LIMIT, byClientIp));
  const TokenParam = z.object({ token: z.string().min(3).max(128) });
  // Mail scanners follow links: GET renders a page whose button POSTs; only the POST confirms.
  r.openapi(
    createRoute({
      method: 'get',
      path: '/confirm/{token}',
      tags,
      summary: 'The link mailed to an e-mail channel address: a page with a Confirm button (acts on nothing)',
      request: { params: TokenParam },
      responses: { 200: { description: 'A small page whose button POSTs to this same address', content: { 'text/html': { schema: z.string() } } } },
    }),
    (c) =>
      renderLinkPage(c, {
        title: 'Confirm Vigil alerts',
        text: 'Press the button to receive Vigil alerts at this address. If you did not expect them, close this page and nothing will be sent.',
        button: 'Confirm',
      }),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/confirm/{token}',
      tags,
      summary: 'Confirm an e-mail channel address',
      request: { params: TokenParam },
      responses: {
        200: {
          description: "Confirmed: the address now receives alerts (HTML for the page's form)",
          content: { 'application/json': { schema: z.object({ message: z.string() }) }, 'text/html': { schema: z.string() } },
        },
      },
    }),
    async (c) => {
      await confirmEmailChannel(c.var.deps, c.req.valid('param').token);
      if (wantsHtml(c)) return renderLinkDone(c, 'Confirmed', 'This address will receive Vigil alerts.');
      return c.json({ message: 'Confirmed: this address will receive Vigil alerts' }, 200);
    },
  );
  return r;
}

/** `/alert-channels` on the dashboard surface: VIEWER reads, ADMIN manages and test-sends. */
export function alertChannelRoutes() {
  const outer = createRouter();
  outer.route('/', confirmRoutes());
  outer.route('/', sessionChannelRoutes());
  return outer;
}

function sessionChannelRoutes() {
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
  channelCrudRoutes(r, { tags, security, base: '', described: { one: 'Alert channel', updated: 'Updated', deleted: 'Deleted' } });
  r.openapi(
    createRoute({ method: 'post', path: '/{id}/test', tags, security, request: { params: IdParam }, responses: { 200: json(AlertChannelTestResult, 'What the test send did') } }),
    async (c) => c.json(await testAlertChannel(requestCtx(c), c.req.valid('param').id), 200),
  );
  return r;
}
