import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.js';
import { requestCtx } from '../context.js';
import { sessionAuth } from '../auth/middleware.js';
import { ErrorBody } from '../http/errors.js';
import { createRouter } from '../http/router.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { IdParam, WorkspaceQuery } from '../identity/schema.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { bearerSecret, receiveIntake } from './intake.js';
import { createIntegration, deleteIntegration, listIntegrations, rotateIntegrationSecret, updateIntegration, viewIntegration } from './integrations.js';
import { IntakeAccepted, Integration, IntegrationCreate, IntegrationCreated, IntegrationUpdate } from './schema.js';

const tags = ['integrations'];
const security = sessionSecurity;
const INTAKE_BODY =
  "The sender's own payload (Alertmanager webhook version 4, Grafana Alerting webhook, ...), at most 1 MiB. A wrong, rotated or disabled secret: 404. A payload the integration's kind cannot read: 400, nothing changes";

/** `POST /integrations/intake[/{secret}]`: the senders' side, authenticated by the secret alone. */
function intakeRoutes() {
  const r = createRouter();
  const responses = {
    200: jsonResponse(IntakeAccepted, 'Taken: the alerts opened, raised or resolved these incidents (a repeated delivery changes nothing)'),
    202: {
      description:
        'PAGERDUTY_EVENTS: the event taken, as PagerDuty answers it: `{status: "success", message: "Event processed", dedup_key, incidentIds}`. Taken without alerts: an SNS subscription confirmed, an SNS INSUFFICIENT_DATA, a PagerDuty change event',
    },
    401: { description: 'SNS: the message signature does not verify, its SigningCertURL or SubscribeURL is not on an SNS host, or its Timestamp is over an hour old' },
    502: jsonResponse(ErrorBody, 'SNS: SNS itself could not be reached for a signing certificate or a subscription confirmation (code UPSTREAM_FAILED); SNS delivers again'),
    503: jsonResponse(
      ErrorBody,
      'A resolve or acknowledge arrived while the request opening its incident was still writing it (code INCIDENT_OPENING, Retry-After): nothing changed; send it again',
    ),
  };
  // The parsers' own answers (an SNS confirmation) have their own shapes: sent as they are.
  const answer = async (c: Context<AppEnv>, secret: string | undefined): Promise<Response> => {
    const result = await receiveIntake(c.var.deps, secret, await c.req.text(), c.req.raw.headers);
    return new Response(JSON.stringify(result.body), { status: result.status, headers: { 'content-type': 'application/json' } });
  };
  r.openapi(
    createRoute({
      method: 'post',
      path: '/intake/{secret}',
      operationId: 'sendIntegrationAlerts',
      tags,
      summary: 'Alerts in: the intake URL an integration was given',
      description: INTAKE_BODY,
      request: { params: z.object({ secret: z.string().max(256) }) },
      responses,
    }),
    (c) => answer(c, c.req.valid('param').secret),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/intake',
      operationId: 'sendIntegrationAlertsWithBearer',
      tags,
      summary: 'Alerts in, the secret as `Authorization: Bearer <secret>`',
      description: INTAKE_BODY,
      responses,
    }),
    (c) => answer(c, bearerSecret(c.req.header('authorization'))),
  );
  return r;
}

/** `/integrations` on the dashboard surface: VIEWER reads, ADMIN manages. */
export function integrationRoutes() {
  const outer = createRouter();
  outer.route('/', intakeRoutes());
  outer.route('/', sessionIntegrationRoutes());
  return outer;
}

function sessionIntegrationRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({ method: 'get', path: '/', tags, security, request: { query: WorkspaceQuery }, responses: { 200: jsonResponse(z.array(Integration), 'Integrations') } }),
    async (c) => {
      const ctx = requestCtx(c);
      return c.json(await listIntegrations(ctx, await resolveWorkspaceId(ctx, c.req.valid('query').workspaceId)), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      security,
      request: { body: jsonBody(IntegrationCreate) },
      responses: { 201: jsonResponse(IntegrationCreated, 'Created; the intake URL and its secret are shown once') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      return c.json(await createIntegration(ctx, { ...input, workspaceId: await resolveWorkspaceId(ctx, input.workspaceId) }), 201);
    },
  );
  r.openapi(createRoute({ method: 'get', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 200: jsonResponse(Integration, 'Integration') } }), async (c) =>
    c.json(await viewIntegration(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      tags,
      security,
      request: { params: IdParam, body: jsonBody(IntegrationUpdate) },
      responses: { 200: jsonResponse(Integration, 'Updated') },
    }),
    async (c) => c.json(await updateIntegration(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/rotate-secret',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: jsonResponse(IntegrationCreated, 'A new intake URL, shown once; the old one answers 404 from now on') },
    }),
    async (c) => c.json(await rotateIntegrationSecret(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 204: { description: 'Deleted; its incidents stay' } } }),
    async (c) => {
      await deleteIntegration(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}
