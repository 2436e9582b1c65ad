import { createRoute, z } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { badgeFileRoutes, checkBadgeRoutes, checkSessionRoutes, view } from '../checks/routes.js';
import { CheckIdParam, CheckTokenParam, DashboardCheck, SparklineQuery, Sparklines } from '../checks/schema.js';
import { requestCtx } from '../context.js';
import { Dependency } from '../dependencies/schema.js';
import { jsonResponse, sessionSecurity as security } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { probeRoutes } from '../probes/routes.js';
import { ProbeState } from '../probes/schema.js';
import { Signal } from '../signals/schema.js';
import { getCheckByToken, getCheckWithProbe } from './checkReads.js';
import { checkSparklines } from './sparklines.js';

/** `GET /checks/:id`: outbound checks also carry their latest probe state (null for inbound ones). */
export const CheckDetail = DashboardCheck.extend({ probe: ProbeState.nullable() }).openapi('CheckDetail');

export const CheckWithSignals = DashboardCheck.extend({ signals: z.array(Signal), dependencies: z.array(Dependency) }).openapi('CheckWithSignals');

const tags = ['checks'];

/** The check reads that join areas (checkReads.ts), mounted at `/checks`; each route authenticates itself. */
function checkViewRoutes() {
  const r = createRouter();
  const middleware = [sessionAuth()];
  r.openapi(
    createRoute({
      method: 'get',
      path: '/token/{token}',
      tags,
      security,
      middleware,
      request: { params: CheckTokenParam },
      responses: { 200: jsonResponse(CheckWithSignals, 'Check with its recent signals') },
    }),
    async (c) => {
      const { check, signals, dependencies } = await getCheckByToken(requestCtx(c), c.req.valid('param').token);
      return c.json({ ...(await view(c, check)), signals, dependencies }, 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      tags,
      security,
      middleware,
      request: { params: CheckIdParam },
      responses: { 200: jsonResponse(CheckDetail, 'Check with its outbound config and latest probe state') },
    }),
    async (c) => {
      const { check, probe } = await getCheckWithProbe(requestCtx(c), c.req.valid('param').id);
      return c.json({ ...(await view(c, check)), probe }, 200);
    },
  );
  return r;
}

/** `GET /checks/sparklines` (checks x probes): before the `/{id}` reads, whose id it is not. */
function checkListViewRoutes() {
  const r = createRouter();
  r.openapi(
    createRoute({
      method: 'get',
      path: '/sparklines',
      tags,
      security,
      middleware: [sessionAuth()],
      description:
        "The latency line of each check of a list's page: its last (up to 30) successful probe latencies, oldest first ([] for heartbeat jobs), and its last probe time (the list's check view has none). Ids that are unknown, deleted or in another workspace are left out.",
      request: { query: SparklineQuery },
      responses: { 200: jsonResponse(Sparklines, 'One line per check found, in the order asked') },
    }),
    async (c) => {
      const query = c.req.valid('query');
      return c.json({ items: await checkSparklines(requestCtx(c), query.workspaceId, query.ids.split(',').map(Number)) }, 200);
    },
  );
  return r;
}

/**
 * The dashboard's `/checks` (and `/badges`) paths, from the routers of three areas: probes (a
 * check's outbound config, runs and stats), checks, and the reads that join areas. Mounted in
 * this order because the routers sharing `/checks` authenticate themselves: the public badge
 * routes before any session auth, and the checks area's session routes, whose `*` middleware
 * would run for every path under `/checks`, last, so that it never runs for a path another
 * router answered (one auth, one rate-limit count a request).
 */
export function checkSurfaceRoutes() {
  const r = createRouter();
  r.route('/checks', probeRoutes());
  r.route('/checks', checkBadgeRoutes());
  r.route('/badges', badgeFileRoutes());
  r.route('/checks', checkListViewRoutes());
  r.route('/checks', checkViewRoutes());
  r.route('/checks', checkSessionRoutes());
  return r;
}
