import { createRoute } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { requestCtx } from '../context.js';
import { jsonBody as body, jsonResponse as json, sessionSecurity as security } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { addTeamMember, createTeam, deleteTeam, getTeam, listTeams, removeTeamMember, updateTeam } from './teams.js';
import { Team, TeamCreate, TeamMember, TeamMemberCreate, TeamUpdate, WorkspaceListQuery } from './teamSchema.js';

const tags = ['teams'];
const deleted = { 204: { description: 'Deleted' } };

/** `/teams`: VIEWER reads, ADMIN writes; deleting a team a policy targets is a 409. */
export function teamRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      request: { query: WorkspaceListQuery },
      responses: { 200: json(pageSchema(Team, 'TeamPage'), 'Teams of the workspace, by id') },
    }),
    async (c) => c.json(await listTeams(requestCtx(c), c.req.valid('query')), 200),
  );
  r.openapi(createRoute({ method: 'post', path: '/', tags, security, request: { body: body(TeamCreate) }, responses: { 201: json(Team, 'Created') } }), async (c) =>
    c.json(await createTeam(requestCtx(c), c.req.valid('json')), 201),
  );
  r.openapi(createRoute({ method: 'get', path: '/{id}', tags, security, request: { params: IdParam }, responses: { 200: json(Team, 'The team with its members') } }), async (c) =>
    c.json(await getTeam(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({ method: 'put', path: '/{id}', tags, security, request: { params: IdParam, body: body(TeamUpdate) }, responses: { 200: json(Team, 'Updated') } }),
    async (c) => c.json(await updateTeam(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: deleted }), async (c) => {
    await deleteTeam(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  return r;
}

/** `/team-members`: a user of the workspace joins a team once (409 on the second time). */
export function teamMemberRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(createRoute({ method: 'post', path: '/', tags, security, request: { body: body(TeamMemberCreate) }, responses: { 201: json(TeamMember, 'Added') } }), async (c) =>
    c.json(await addTeamMember(requestCtx(c), c.req.valid('json')), 201),
  );
  r.openapi(createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: deleted }), async (c) => {
    await removeTeamMember(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  return r;
}
