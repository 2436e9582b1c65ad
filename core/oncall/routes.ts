import { createRoute, z } from '@hono/zod-openapi';
import { byClientIp, sessionAuth } from '../auth/middleware.js';
import { requestCtx } from '../context.js';
import { jsonBody as body, jsonResponse as json, sessionSecurity as security } from '../http/openapi.js';
import { pageSchema } from '../http/pagination.js';
import { DEFAULT_RATE_LIMIT, rateLimit } from '../http/rateLimit.js';
import { createRouter } from '../http/router.js';
import { IdParam } from '../identity/schema.js';
import { createOverride, deleteOverride } from './overrides.js';
import { Gap, HoursReportEntry, OnCallQuery, Override, OverrideCreate, RangeQuery, Schedule, ScheduleCreate, ScheduleUpdate, Shift, TimelineQuery } from './schema.js';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, updateSchedule } from './schedules.js';
import { teamMemberRoutes, teamRoutes } from './teamRoutes.js';
import { WorkspaceListQuery } from './teamSchema.js';
import {
  calendarBySecret,
  hoursReport,
  listGaps,
  listOverrides,
  listShifts,
  revokeCalendarSecret,
  rotateCalendarSecret,
  scheduleCalendarForViewer,
  scheduleTimeline,
  whoIsOnCall,
} from './coverage.js';

const tags = ['on-call'];
const deleted = { 204: { description: 'Deleted' } };
const items = <T extends z.ZodType>(item: T, name: string) => z.object({ items: z.array(item) }).openapi(name);
const ics = (description: string) => ({ description, content: { 'text/calendar': { schema: z.string() } } });
const CALENDAR_HEADERS = { 'content-type': 'text/calendar; charset=utf-8', 'cache-control': 'private, max-age=300' };

const Person = z.object({ id: z.number().int(), email: z.string(), name: z.string().nullable() });
const OnCallNow = z
  .object({
    scheduleId: z.number().int(),
    at: z.string(),
    user: Person.nullable(),
    layerPosition: z.number().int().nullable(),
    rotationId: z.number().int().nullable(),
    overrideId: z.number().int().nullable(),
    shiftStart: z.string().nullable(),
    shiftEnd: z.string().nullable(),
  })
  .openapi('OnCallNow');
const HoursReport = z
  .object({ scheduleId: z.number().int(), timezone: z.string(), from: z.string(), to: z.string(), items: z.array(HoursReportEntry) })
  .openapi('OnCallHoursReport');
const TimelineLayer = z
  .object({
    rotationId: z.number().int(),
    layerPosition: z.number().int(),
    turns: z.array(z.object({ userId: z.number().int(), startAt: z.string(), endAt: z.string() })),
  })
  .openapi('OnCallTimelineLayer');
const Timeline = z
  .object({
    schedule: Schedule,
    fromDate: z.string().describe('The first local day shown (YYYY-MM-DD)'),
    days: z.number().int(),
    from: z.string().describe('Start of fromDate in the zone'),
    to: z.string().describe('Start of the day after the last one in the zone'),
    dayStarts: z.array(z.string()).describe('The start of each local day shown, in order (a DST day is 23 or 25 hours long)'),
    layers: z.array(TimelineLayer).describe("Each rotation's own turns overlapping the range, unclipped, by layer position (before overrides and the layers above it)"),
    onCall: OnCallNow,
    shifts: z.array(Shift),
    overrides: z.array(Override),
    gaps: z.array(Gap),
  })
  .openapi('OnCallTimeline');
const CalendarSecret = z.object({ token: z.string(), url: z.string().describe('The secret calendar URL; shown once, the old one stops working') }).openapi('OnCallCalendarSecret');

function scheduleRouter() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      request: { query: WorkspaceListQuery },
      responses: { 200: json(pageSchema(Schedule, 'OnCallSchedulePage'), 'Schedules of the workspace, by id') },
    }),
    async (c) => c.json(await listSchedules(requestCtx(c), c.req.valid('query')), 200),
  );
  r.openapi(createRoute({ method: 'post', path: '/', tags, security, request: { body: body(ScheduleCreate) }, responses: { 201: json(Schedule, 'Created') } }), async (c) =>
    c.json(await createSchedule(requestCtx(c), c.req.valid('json')), 201),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
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
      path: '/{id}',
      tags,
      security,
      request: { params: IdParam, body: body(ScheduleUpdate) },
      responses: { 200: json(Schedule, 'Updated; a supplied rotations array replaces all rotations') },
    }),
    async (c) => c.json(await updateSchedule(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: deleted }), async (c) => {
    await deleteSchedule(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/on-call',
      tags,
      security,
      request: { params: IdParam, query: OnCallQuery },
      responses: { 200: json(OnCallNow, 'Who is on call at `at` (default now)') },
    }),
    async (c) => c.json(await whoIsOnCall(requestCtx(c), c.req.valid('param').id, c.req.valid('query').at), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/timeline',
      tags,
      security,
      request: { params: IdParam, query: TimelineQuery },
      responses: { 200: json(Timeline, 'The schedule view in one read: the schedule, who is on call now, and the final shifts, overrides and gaps of local days in its zone') },
    }),
    async (c) => c.json(await scheduleTimeline(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/shifts',
      tags,
      security,
      request: { params: IdParam, query: RangeQuery },
      responses: { 200: json(items(Shift, 'OnCallShiftList'), 'The final shifts in [from, to)') },
    }),
    async (c) => c.json(await listShifts(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/overrides',
      tags,
      security,
      request: { params: IdParam, query: RangeQuery },
      responses: { 200: json(items(Override, 'OnCallOverrideList'), 'Overrides overlapping [from, to)') },
    }),
    async (c) => c.json(await listOverrides(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/gaps',
      tags,
      security,
      request: { params: IdParam, query: RangeQuery },
      responses: { 200: json(items(Gap, 'OnCallGapList'), 'Stretches of [from, to) with nobody on call') },
    }),
    async (c) => c.json(await listGaps(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/report',
      tags,
      security,
      request: { params: IdParam, query: RangeQuery },
      responses: { 200: json(HoursReport, 'On-call hours per user in [from, to)') },
    }),
    async (c) => c.json(await hoursReport(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({ method: 'get', path: '/{id}/calendar.ics', tags, security, request: { params: IdParam }, responses: { 200: ics('The final schedule as iCalendar') } }),
    async (c) => c.body(await scheduleCalendarForViewer(requestCtx(c), c.req.valid('param').id), 200, CALENDAR_HEADERS),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/calendar-secret',
      tags,
      security,
      description: 'Creates or rotates the secret calendar URL (ADMIN). The previous URL stops working at once.',
      request: { params: IdParam },
      responses: { 201: json(CalendarSecret, 'The new secret URL, shown once') },
    }),
    async (c) => c.json(await rotateCalendarSecret(requestCtx(c), c.req.valid('param').id), 201),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/{id}/calendar-secret',
      tags,
      security,
      description: 'Turns the secret calendar URL off (ADMIN).',
      request: { params: IdParam },
      responses: deleted,
    }),
    async (c) => {
      await revokeCalendarSecret(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  return r;
}

function overrideRouter() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      security,
      description: 'ADMIN, or a MEMBER putting themselves on call.',
      request: { body: body(OverrideCreate) },
      responses: { 201: json(Override, 'Created') },
    }),
    async (c) => c.json(await createOverride(requestCtx(c), c.req.valid('json')), 201),
  );
  r.openapi(createRoute({ method: 'delete', path: '/{id}', tags, security, request: { params: IdParam }, responses: deleted }), async (c) => {
    await deleteOverride(requestCtx(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  return r;
}

/** The secret calendar URL: the token is the credential, so no session is asked for; the default limit counts by client address. */
function calendarRouter() {
  const r = createRouter();
  r.use('*', rateLimit(DEFAULT_RATE_LIMIT, byClientIp));
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{token}/calendar.ics',
      tags,
      request: { params: z.object({ token: z.string().max(100) }) },
      responses: { 200: ics('The final schedule as iCalendar') },
    }),
    async (c) => c.body(await calendarBySecret(c.var.deps, c.req.valid('param').token), 200, CALENDAR_HEADERS),
  );
  return r;
}

/** Teams, schedules, overrides and the secret calendar URL of the dashboard surface, each at its own prefix. */
export function onCallRoutes() {
  const r = createRouter();
  r.route('/teams', teamRoutes());
  r.route('/team-members', teamMemberRoutes());
  r.route('/on-call-schedules', scheduleRouter());
  r.route('/on-call-overrides', overrideRouter());
  r.route('/on-call-calendars', calendarRouter());
  return r;
}
