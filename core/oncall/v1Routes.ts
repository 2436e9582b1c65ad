import { createRoute } from '@hono/zod-openapi';
import { requestCtx } from '../context.js';
import { apiKeySecurity as security, jsonBody as body, jsonResponse as json } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { resolveWorkspaceId } from '../identity/workspaceScope.js';
import { Schedule, ScheduleCreateV1, ScheduleUpdate } from './schema.js';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, updateSchedule } from './schedules.js';
import { Team, WorkspaceListQueryV1 } from './teamSchema.js';
import { getTeam, listTeams } from './teams.js';

/**
 * `/v1/on-call-schedules` (the dashboard's verbs for a read_write key) and `/v1/teams` (read
 * only, so a file can name a team). Mounted by v1Routes.
 */
export function v1OnCallRoutes() {
  const r = createRouter();
  const tags = ['v1', 'on-call'];
  r.openapi(
    createRoute({
      method: 'get',
      path: '/on-call-schedules',
      tags,
      security,
      request: { query: WorkspaceListQueryV1 },
      responses: { 200: json(pageSchema(Schedule, 'OnCallSchedulePage'), 'Schedules of the workspace, by id') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const query = c.req.valid('query');
      return c.json(await listSchedules(ctx, { ...query, workspaceId: await resolveWorkspaceId(ctx, query.workspaceId) }), 200);
    },
  );
  r.openapi(
    createRoute({ method: 'post', path: '/on-call-schedules', tags, security, request: { body: body(ScheduleCreateV1) }, responses: { 201: json(Schedule, 'Created') } }),
    async (c) => {
      const ctx = requestCtx(c);
      const input = c.req.valid('json');
      return c.json(await createSchedule(ctx, { ...input, workspaceId: await resolveWorkspaceId(ctx, input.workspaceId) }), 201);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/on-call-schedules/{id}',
      tags,
      security,
      request: { params: IdParam },
      responses: { 200: json(Schedule, 'The schedule with rotations, participants and upcoming overrides') },
    }),
    async (c) => c.json(await getSchedule(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'put',
      path: '/on-call-schedules/{id}',
      tags,
      security,
      request: { params: IdParam, body: body(ScheduleUpdate) },
      responses: { 200: json(Schedule, 'Updated; a supplied rotations array replaces all rotations') },
    }),
    async (c) => c.json(await updateSchedule(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({ method: 'delete', path: '/on-call-schedules/{id}', tags, security, request: { params: IdParam }, responses: { 204: { description: 'Deleted' } } }),
    async (c) => {
      await deleteSchedule(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );

  const teamTags = ['v1', 'teams'];
  r.openapi(
    createRoute({
      method: 'get',
      path: '/teams',
      tags: teamTags,
      security,
      request: { query: WorkspaceListQueryV1 },
      responses: { 200: json(pageSchema(Team, 'TeamPage'), 'Teams of the workspace with their members, by id') },
    }),
    async (c) => {
      const ctx = requestCtx(c);
      const query = c.req.valid('query');
      return c.json(await listTeams(ctx, { ...query, workspaceId: await resolveWorkspaceId(ctx, query.workspaceId) }), 200);
    },
  );
  r.openapi(
    createRoute({ method: 'get', path: '/teams/{id}', tags: teamTags, security, request: { params: IdParam }, responses: { 200: json(Team, 'The team with its members') } }),
    async (c) => c.json(await getTeam(requestCtx(c), c.req.valid('param').id), 200),
  );
  return r;
}
