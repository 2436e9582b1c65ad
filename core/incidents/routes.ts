import { requestCtx } from '../context.js';
import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { jsonBody, jsonResponse, sessionSecurity as security } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { acknowledgeIncident, getIncident, incidentTimeline, listIncidents, monitorIncident, resolveIncident } from './incidents.js';
import { createNote, deleteNote, listNotes, updateNote } from './notes.js';
import { Incident, IncidentEvent, IncidentIdParam, IncidentListQuery, IncidentNote, NoteBody, NoteParams } from './schema.js';

function incidentRouter() {
  const r = createRouter();
  const tags = ['incidents'];
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      description: 'Newest first. `state` is ACTIVE (aliases OPEN, MONITORING: every unresolved incident) or RESOLVED, case-insensitive.',
      request: { query: IncidentListQuery },
      responses: { 200: jsonResponse(pageSchema(Incident, 'IncidentPage'), 'Enriched incidents') },
    }),
    async (c) => c.json(await listIncidents(requestCtx(c), c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({ method: 'get', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 200: jsonResponse(Incident, 'Enriched incident') } }),
    async (c) => c.json(await getIncident(requestCtx(c), c.req.valid('param').id), 200),
  );
  const actions = [
    ['acknowledge', acknowledgeIncident, 'Idempotent; 409 INCIDENT_RESOLVED once resolved.'],
    ['resolve', resolveIncident, 'Manual resolution; resolving a resolved incident returns it unchanged.'],
    ['monitor', monitorIncident, 'ACTIVE -> MONITORING; idempotent; 409 INCIDENT_RESOLVED once resolved.'],
  ] as const;
  for (const [action, verb, description] of actions) {
    r.openapi(
      createRoute({
        method: 'post',
        path: `/{id}/${action}`,
        tags,
        security,
        description,
        request: { params: IdParam },
        responses: { 200: jsonResponse(Incident, 'The incident') },
      }),
      async (c) => c.json(await verb(requestCtx(c), c.req.valid('param').id), 200),
    );
  }
  return r;
}

function eventRouter() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{incidentId}',
      tags: ['incidents'],
      security,
      request: { params: IncidentIdParam },
      responses: { 200: jsonResponse(z.array(IncidentEvent), 'The immutable timeline, oldest first') },
    }),
    async (c) => c.json(await incidentTimeline(requestCtx(c), c.req.valid('param').incidentId), 200),
  );
  return r;
}

function noteRouter() {
  const r = createRouter();
  const tags = ['incidents'];
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{incidentId}',
      tags,
      security,
      request: { params: IncidentIdParam },
      responses: { 200: jsonResponse(z.array(IncidentNote), 'Notes, oldest first') },
    }),
    async (c) => c.json(await listNotes(requestCtx(c), c.req.valid('param').incidentId), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{incidentId}',
      tags,
      security,
      request: { params: IncidentIdParam, body: jsonBody(NoteBody) },
      responses: { 201: jsonResponse(IncidentNote, 'Created') },
    }),
    async (c) => c.json(await createNote(requestCtx(c), c.req.valid('param').incidentId, c.req.valid('json').body), 201),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{incidentId}/{noteId}',
      tags,
      security,
      description: 'Only the author may change a note.',
      request: { params: NoteParams, body: jsonBody(NoteBody) },
      responses: { 200: jsonResponse(IncidentNote, 'Updated') },
    }),
    async (c) => {
      const { incidentId, noteId } = c.req.valid('param');
      return c.json(await updateNote(requestCtx(c), incidentId, noteId, c.req.valid('json').body), 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/{incidentId}/{noteId}',
      tags,
      security,
      description: 'Soft delete; only the author.',
      request: { params: NoteParams },
      responses: { 204: { description: 'Deleted' } },
    }),
    async (c) => {
      const { incidentId, noteId } = c.req.valid('param');
      await deleteNote(requestCtx(c), incidentId, noteId);
      return c.body(null, 204);
    },
  );
  return r;
}

/** Incidents, their timeline and notes on the dashboard surface. */
export function incidentRoutes() {
  const r = createRouter();
  r.route('/incidents', incidentRouter());
  r.route('/incident-events', eventRouter());
  r.route('/incident-notes', noteRouter());
  return r;
}
