import { createRoute, z } from '@hono/zod-openapi';
import { byClientIp } from '../auth/middleware.js';
import type { Deps } from '../deps.js';
import { HttpError, notFound } from '../http/errors.js';
import { rateLimit, type RateLimitRule } from '../http/rateLimit.js';
import { createRouter } from '../http/router.js';
import { resolveByHand } from '../incidents/incidents.js';
import { applyIncidentInput, readIncident } from '../incidents/repository.js';
import type { ActorRef } from '../incidents/transition.js';
import type { IncidentItem } from '../store/entities/incident.js';
import { renderLinkDone, renderLinkPage, wantsHtml } from '../statuspages/html/action.js';
import { singleLine } from '../statuspages/render/sanitize.js';
import { verifyAckLink, type AckLinkAction, type AckLinkClaims, type LinkRecipient } from './ackLinks.js';

const tags = ['alert-links'];

/**
 * Per client address over both methods. A link's signature is 256 bits of HMAC and a short link's
 * id 128 random bits, so no guessing gets anywhere; the budget keeps a flood of made-up links from
 * costing the store a read each.
 */
export const ACK_LINK_RULE: RateLimitRule = { name: 'ack-link', limit: 20, windowSeconds: 60 };

/** A compact JWS (three base64url parts) or a short link's 22-character id (SMS). Anything else is a 400 before any work. */
const TokenParam = z.object({
  token: z
    .string()
    .max(2048)
    .regex(/^(?:[A-Za-z0-9_-]{22}|[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/),
});
const Done = z.object({
  message: z.string(),
  incidentId: z.number().int(),
  action: z.enum(['acknowledge', 'resolve']),
  changed: z.boolean().describe('false: it was already done (a second press, or someone else first); nothing changed'),
});

const VERBS: Record<AckLinkAction, { verb: string; done: string; button: string; heading: string }> = {
  acknowledge: { verb: 'acknowledge', done: 'acknowledged', button: 'Acknowledge', heading: 'Acknowledged' },
  resolve: { verb: 'resolve', done: 'resolved', button: 'Resolve', heading: 'Resolved' },
};

/** A resolved incident's links act no more, whichever action they name. */
const voidLink = (incidentId: number) => new HttpError('INCIDENT_RESOLVED', `Incident #${incidentId} is resolved: this link no longer acts`);

/** How the timeline names who acted: the person's address, or the channel the alert went to. */
async function recipientLabel(deps: Deps, workspaceId: number, recipient: LinkRecipient): Promise<string> {
  if (recipient.kind === 'person') return singleLine(recipient.email, 320);
  const channel = (await deps.store.entities.alertChannel.get({ channelId: recipient.channelId }).go()).data;
  return channel && channel.workspaceId === workspaceId ? `${channel.type} channel "${singleLine(channel.name, 100)}" (#${channel.channelId})` : `channel #${recipient.channelId}`;
}

/** A valid link of an incident that still exists and is not resolved, and whom it was sent to. */
async function openLink(deps: Deps, token: string, now: Date): Promise<{ claims: AckLinkClaims; incident: IncidentItem; by: string }> {
  const claims = await verifyAckLink(deps, token, now);
  const incident = await readIncident(deps, claims.incidentId);
  if (!incident) throw notFound('Incident');
  if (incident.state === 'RESOLVED') throw voidLink(incident.incidentId);
  return { claims, incident, by: await recipientLabel(deps, incident.workspaceId, claims.recipient) };
}

/**
 * The POST: through the incident's one write path (applyIncidentInput; a resolution also ends the
 * check's episode, as one by hand does). Both transitions are idempotent, so a second press, or a
 * press after someone else acted, changes nothing and says so.
 */
async function actOnLink(deps: Deps, token: string): Promise<z.infer<typeof Done>> {
  const now = deps.clock.now();
  const { claims, by } = await openLink(deps, token, now);
  const actor: ActorRef = { kind: 'link', recipient: by };
  const { incidentId, action } = claims;
  if (action === 'acknowledge') {
    const { incident, result } = await applyIncidentInput(deps, incidentId, { type: 'acknowledge', by: actor }, now);
    if (!result.ok) throw voidLink(incidentId);
    const message = result.changed
      ? `Incident #${incidentId} is acknowledged: its escalation stops.`
      : `Incident #${incidentId} was already acknowledged (${incident.acknowledgedAt ?? 'earlier'}); nothing changed.`;
    return { message, incidentId, action, changed: result.changed };
  }
  const { result } = await resolveByHand(deps, incidentId, actor, now);
  const changed = result.ok && result.changed;
  return { message: changed ? `Incident #${incidentId} is resolved.` : `Incident #${incidentId} was already resolved; nothing changed.`, incidentId, action, changed };
}

const ERRORS = {
  400: { description: 'Not a link Vigil makes (code VALIDATION_ERROR)' },
  401: { description: 'A tampered or otherwise invalid link (code UNAUTHORIZED), or an expired one (code TOKEN_EXPIRED)' },
  404: { description: 'The incident no longer exists (code NOT_FOUND)' },
  409: { description: 'The incident is resolved: its links act no more (code INCIDENT_RESOLVED)' },
  429: { description: `More than ${ACK_LINK_RULE.limit} requests to links from one address in ${ACK_LINK_RULE.windowSeconds} s (code RATE_LIMITED, Retry-After)` },
};

/**
 * `GET|POST /ack/{token}` (public, no sign-in): the acknowledge and resolve links alerts carry
 * (docs/guide/alerting.md "Acknowledge from the message"). Mail scanners and chat previews follow
 * links, so GET only shows the incident and a button; the button's POST acts.
 */
export function ackLinkRoutes() {
  const r = createRouter();
  r.use('/*', rateLimit(ACK_LINK_RULE, byClientIp));
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{token}',
      tags,
      summary: 'An alert link: a page naming the incident and the action, with a button (acts on nothing)',
      request: { params: TokenParam },
      responses: { 200: { description: 'A small page whose button POSTs to this same address', content: { 'text/html': { schema: z.string() } } }, ...ERRORS },
    }),
    async (c) => {
      const deps = c.var.deps;
      const { claims, incident, by } = await openLink(deps, c.req.valid('param').token, deps.clock.now());
      const words = VERBS[claims.action];
      const about = `Incident #${incident.incidentId}: "${singleLine(incident.title, 500)}" (${incident.severity}, ${incident.state === 'MONITORING' ? 'monitoring' : 'open'} since ${incident.startedAt}).`;
      if (claims.action === 'acknowledge' && incident.acknowledgedAt !== undefined) {
        return renderLinkDone(c, 'Already acknowledged', `${about} It was acknowledged at ${incident.acknowledgedAt}; there is nothing to do here.`);
      }
      return renderLinkPage(c, {
        title: `${words.button} this incident?`,
        text: `${about} This link was sent to ${by}; pressing the button will ${words.verb} the incident, and its timeline will say "${words.done} via link by ${by}". Nothing changes until you press it.`,
        button: words.button,
      });
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{token}',
      tags,
      summary: 'Act on an alert link: acknowledge or resolve the incident it names, once',
      request: { params: TokenParam },
      responses: {
        200: {
          description: "Done, or already done (`changed: false`); HTML for the page's own form (Accept: text/html)",
          content: { 'application/json': { schema: Done }, 'text/html': { schema: z.string() } },
        },
        ...ERRORS,
      },
    }),
    async (c) => {
      const done = await actOnLink(c.var.deps, c.req.valid('param').token);
      if (wantsHtml(c)) return renderLinkDone(c, done.changed ? VERBS[done.action].heading : 'Already done', done.message);
      c.header('Cache-Control', 'no-store');
      return c.json(done, 200);
    },
  );
  return r;
}
