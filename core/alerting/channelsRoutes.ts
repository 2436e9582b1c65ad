import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { byClientIp, sessionAuth } from '../auth/middleware.js';
import { DEFAULT_RATE_LIMIT, rateLimit } from '../http/rateLimit.js';
import { confirmEmailChannel } from './emailConfirm.js';
import { renderLinkDone, renderLinkPage, wantsHtml } from '../statuspages/html/action.js';
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
/** An EMAIL channel's link is mailed in the request; the mail service failing is said so, not hidden in a 500. */
export const MAIL_UNAVAILABLE_CREATE = 'The confirmation link could not be mailed (code MAIL_UNAVAILABLE): no channel was made; send the request again after Retry-After';
export const PATCH_THROTTLED =
  'A PATCH that mails an e-mail channel its confirmation link (a new address, or one still unconfirmed) is limited to 5 per channel per hour (code RATE_LIMITED, Retry-After); a refused PATCH changes nothing';
export const MAIL_UNAVAILABLE_PATCH =
  'The change is saved but its confirmation link could not be mailed (code MAIL_UNAVAILABLE): the same request, sent again after Retry-After, mails a fresh one';

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
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      security,
      request: { body: body(AlertChannelCreate) },
      responses: { 201: json(AlertChannelCreated, 'Created; a WEBHOOK secret is shown once'), 503: { description: MAIL_UNAVAILABLE_CREATE } },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      const workspaceId = await resolveWorkspaceId(ctx, input.workspaceId);
      return c.json(await createAlertChannel(ctx, { ...input, workspaceId }), 201);
    },
  );
  r.openapi(createRoute({ method: 'get', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 200: json(AlertChannel, 'Alert channel') } }), async (c) =>
    c.json(await viewAlertChannel(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      tags,
      security,
      request: { params: IdParam, body: body(AlertChannelUpdate) },
      responses: { 200: json(AlertChannel, 'Updated'), 429: { description: PATCH_THROTTLED }, 503: { description: MAIL_UNAVAILABLE_PATCH } },
    }),
    async (c) => c.json(await updateAlertChannel(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 204: { description: 'Deleted' } } }), async (c) => {
    await deleteAlertChannel(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  r.openapi(
    createRoute({ method: 'post', path: '/{id}/test', tags, security, request: { params: IdParam }, responses: { 200: json(AlertChannelTestResult, 'What the test send did') } }),
    async (c) => c.json(await testAlertChannel(requestCtx(c), c.req.valid('param').id), 200),
  );
  return r;
}
