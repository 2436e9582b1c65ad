import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import type { AppEnv } from '../http/env.js';
import { jsonBody as body, jsonResponse as json } from '../http/openapi.js';
import { IdParam } from '../identity/schema.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { createAlertChannel, deleteAlertChannel, updateAlertChannel, viewAlertChannel } from './channels.js';
import { AlertChannel, AlertChannelCreate, AlertChannelCreated, AlertChannelUpdate } from './channelsSchema.js';

/** An EMAIL channel's link is mailed in the request; the mail service failing is said so, not hidden in a 500. */
const MAIL_UNAVAILABLE_CREATE = 'The confirmation link could not be mailed (code MAIL_UNAVAILABLE): no channel was made; send the request again after Retry-After';
const PATCH_THROTTLED =
  'A PATCH that mails an e-mail channel its confirmation link (a new address, or one still unconfirmed) is limited to 5 per channel per hour (code RATE_LIMITED, Retry-After); a refused PATCH changes nothing';
const MAIL_UNAVAILABLE_PATCH =
  'The change is saved but its confirmation link could not be mailed (code MAIL_UNAVAILABLE): the same request, sent again after Retry-After, mails a fresh one';

type ChannelRouteOptions = {
  tags: string[];
  security: { [name: string]: string[] }[];
  /** '' where the router is mounted at `/alert-channels` (dashboard), '/alert-channels' where mounted at the root (v1). */
  base: '' | '/alert-channels';
  /** Response descriptions, worded per surface (the v1 document spells out masking and the 409). */
  described: { one: string; updated: string; deleted: string };
};

/**
 * Create, read, update and delete one alert channel: one definition for the dashboard's
 * `/alert-channels` (session) and the Integration API's `/v1/alert-channels` (API key), so the two
 * cannot drift apart. Each router keeps its own list (v1 pages it) and the dashboard its test send.
 */
export function channelCrudRoutes(r: OpenAPIHono<AppEnv>, { tags, security, base, described }: ChannelRouteOptions) {
  r.openapi(
    createRoute({
      method: 'post',
      path: base || '/',
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
  const path = `${base}/{id}`;
  r.openapi(createRoute({ method: 'get', path, tags, security, request: { params: IdParam }, responses: { 200: json(AlertChannel, described.one) } }), async (c) =>
    c.json(await viewAlertChannel(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path,
      tags,
      security,
      request: { params: IdParam, body: body(AlertChannelUpdate) },
      responses: { 200: json(AlertChannel, described.updated), 429: { description: PATCH_THROTTLED }, 503: { description: MAIL_UNAVAILABLE_PATCH } },
    }),
    async (c) => c.json(await updateAlertChannel(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(createRoute({ method: 'delete', path, tags, security, request: { params: IdParam }, responses: { 204: { description: described.deleted } } }), async (c) => {
    await deleteAlertChannel(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
}
