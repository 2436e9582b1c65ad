import { requestCtx } from '../context.js';
import { keyWorkspaceId } from '../auth/keyScope.js';
import { createRoute } from '@hono/zod-openapi';
import { apiKeySecurity as security, jsonBody, jsonResponse } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { declareIncident } from './declare.js';
import { acknowledgeIncident, getIncident, listIncidents, resolveIncident } from './incidents.js';
import { Incident, IncidentCreate, IncidentListQueryV1 } from './schema.js';

const tags = ['v1'];

/**
 * Integration API incidents (docs/guide/incidents.md): list, declare, get, acknowledge, resolve. Mounted inside
 * the v1 router, whose middleware has already authenticated the key. A key has no user: its
 * acknowledgement leaves acknowledgedBy null and names the key in the timeline.
 */
export function v1IncidentRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'get',
      path: '/incidents',
      tags,
      security,
      request: { query: IncidentListQueryV1 },
      responses: { 200: jsonResponse(pageSchema(Incident, 'IncidentV1Page'), 'Incidents, newest first') },
    }),
    async (c) => c.json(await listIncidents(requestCtx(c), { ...c.req.valid('query'), workspaceId: keyWorkspaceId(c.var.actor) }), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/incidents',
      tags,
      security,
      description: 'Declares an incident. At most one of checkId, jobId, dependencyId (else 400 MULTIPLE_INCIDENT_TARGETS).',
      request: { body: jsonBody(IncidentCreate) },
      responses: { 201: jsonResponse(Incident, 'Declared') },
    }),
    async (c) => c.json(await declareIncident(requestCtx(c), keyWorkspaceId(c.var.actor), c.req.valid('json')), 201),
  );
  r.openapi(
    createRoute({ method: 'get', path: '/incidents/{id}', tags, security, request: { params: IdParam }, responses: { 200: jsonResponse(Incident, 'Incident') } }),
    async (c) => c.json(await getIncident(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/incidents/{id}/acknowledge',
      tags,
      security,
      description: 'Idempotent; 409 INCIDENT_RESOLVED once resolved.',
      request: { params: IdParam },
      responses: { 200: jsonResponse(Incident, 'Acknowledged') },
    }),
    async (c) => c.json(await acknowledgeIncident(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({ method: 'post', path: '/incidents/{id}/resolve', tags, security, request: { params: IdParam }, responses: { 200: jsonResponse(Incident, 'Resolved') } }),
    async (c) => c.json(await resolveIncident(requestCtx(c), c.req.valid('param').id), 200),
  );
  return r;
}
