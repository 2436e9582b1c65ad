import { createRoute, z } from '@hono/zod-openapi';
import { requestCtx } from '../../context.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../../http/openapi.js';
import { createRouter } from '../../http/router.js';
import type { RateLimitRule } from '../../http/rateLimit.js';
import { renderLinkDone, renderLinkPage, wantsHtml } from '../html/action.js';
import { limitPublic, requireAccess, snapshotBySlug } from '../public/access.js';
import { StatusPageIdParam } from '../schema.js';
import { deleteSubscriber, listSubscribers } from './manage.js';
import { PendingAnswer, SubscribeBody, Subscriber, SubscriberIdParam, TokenQuery, WebhookAnswer } from './schema.js';
import { confirmSubscription, subscribe, unsubscribe } from './subscribe.js';
import type { EndpointVerifier } from './webhook.js';

const tags = ['public-status'];
const SlugParam = z.object({ slug: z.string().max(1024) });
/** Spec Limits: 5 per 60 s, per page and client address. */
export const SUBSCRIBE_RULE: RateLimitRule = { name: 'sp-subscribe', limit: 5, windowSeconds: 60 };
const Done = z.object({ status: z.string() });
/** JSON for API and one-click clients; HTML when the page's own form posts (Accept: text/html). */
const jsonOrHtml = (description: string) => ({ description, content: { 'application/json': { schema: Done }, 'text/html': { schema: z.string() } } });

/** `/public/status/:slug/{subscribe,subscriptions/confirm,unsubscribe}` (no credential). */
export function publicSubscriberRoutes(verify: EndpointVerifier) {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{slug}/subscribe',
      tags,
      request: { params: SlugParam, body: jsonBody(SubscribeBody) },
      description:
        'EMAIL: double opt-in; the same address again answers the same 202. WEBHOOK: the endpoint gets a signed `subscription.verification` event with a `challenge` within this request and is ACTIVE only if it answers 2xx echoing it (plain text or `{"challenge": ...}`). One subscription per page and address or URL; a page holds at most its plan\'s `statusPageSubscribers`.',
      responses: {
        201: jsonResponse(WebhookAnswer, 'A webhook subscriber, its signing secret, unsubscribe URL and whether it passed verification'),
        202: jsonResponse(PendingAnswer, 'A confirmation mail is on its way'),
        403: { description: 'The page has reached its subscriber limit (code PLAN_LIMIT_EXCEEDED)' },
        409: { description: 'This webhook URL is already an ACTIVE subscriber of the page (code CONFLICT)' },
        503: { description: 'The confirmation mail could not be sent (code MAIL_UNAVAILABLE); the same request, sent again after Retry-After, mails it' },
      },
    }),
    async (c) => {
      const { deps } = c.var;
      const { slug } = c.req.valid('param');
      await limitPublic(c, deps, SUBSCRIBE_RULE, slug);
      const snapshot = await requireAccess(c, deps, await snapshotBySlug(deps, slug), deps.clock.now());
      const result = await subscribe(deps, snapshot, c.req.valid('json'), verify);
      c.header('Cache-Control', 'no-store');
      return result.status === 201 ? c.json(result.body, 201) : c.json(result.body, 202);
    },
  );
  // Mail scanners follow links: GET renders a page whose button POSTs; only the POST acts.
  const html = { 200: { description: 'A small page with a button that POSTs to this same address; nothing changes', content: { 'text/html': { schema: z.string() } } } };
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/subscriptions/confirm',
      tags,
      summary: 'The confirmation link: a page with a Confirm button (acts on nothing)',
      request: { params: SlugParam, query: TokenQuery },
      responses: html,
    }),
    (c) =>
      renderLinkPage(c, {
        title: 'Confirm your subscription',
        text: 'Press the button to receive status updates of this page at this address. If you did not ask for them, close this page and nothing will be sent.',
        button: 'Confirm subscription',
      }),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{slug}/subscriptions/confirm',
      tags,
      summary: 'Confirm an e-mail subscription',
      request: { params: SlugParam, query: TokenQuery },
      responses: { 200: jsonOrHtml('The subscription is active') },
    }),
    async (c) => {
      await confirmSubscription(c.var.deps, c.req.valid('param').slug, c.req.valid('query').token);
      if (wantsHtml(c)) return renderLinkDone(c, 'Subscription confirmed', 'This address will receive status updates of this page. Every mail has a link to unsubscribe.');
      return c.json({ status: 'ACTIVE' }, 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{slug}/unsubscribe',
      tags,
      summary: 'The unsubscribe link: a page with an Unsubscribe button (acts on nothing)',
      request: { params: SlugParam, query: TokenQuery },
      responses: html,
    }),
    (c) => renderLinkPage(c, { title: 'Unsubscribe', text: 'Press the button to stop status updates of this page to this address.', button: 'Unsubscribe' }),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{slug}/unsubscribe',
      tags,
      summary: "End a subscription (the page's button, RFC 8058 one-click, or an API client)",
      request: { params: SlugParam, query: TokenQuery },
      responses: { 200: jsonOrHtml('The subscription has ended') },
    }),
    async (c) => {
      await unsubscribe(c.var.deps, c.req.valid('param').slug, c.req.valid('query').token);
      if (wantsHtml(c)) return renderLinkDone(c, 'Unsubscribed', 'This address will receive no more status updates of this page.');
      return c.json({ status: 'UNSUBSCRIBED' }, 200);
    },
  );
  return r;
}

/** Dashboard `/status-pages/:id/subscribers` (session token; mounted behind the status page routes' auth). */
export function subscriberDashboardRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/subscribers',
      tags: ['status-pages'],
      security: sessionSecurity,
      request: { params: StatusPageIdParam },
      responses: { 200: jsonResponse(z.array(Subscriber), 'Subscribers') },
    }),
    async (c) => c.json(await listSubscribers(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/{id}/subscribers/{subscriberId}',
      tags: ['status-pages'],
      security: sessionSecurity,
      request: { params: SubscriberIdParam },
      responses: { 204: { description: 'Deleted' } },
    }),
    async (c) => {
      const { id, subscriberId } = c.req.valid('param');
      await deleteSubscriber(requestCtx(c), id, subscriberId);
      return c.body(null, 204);
    },
  );
  return r;
}
