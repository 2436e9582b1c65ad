import { requestCtx } from '../context.js';
import { createRoute } from '@hono/zod-openapi';
import { sessionAuth } from '../auth/middleware.js';
import { OutboundConfigPatch } from '../checks/outboundSchema.js';
import { CheckIdParam } from '../checks/schema.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { getOutbound, listCheckRuns, patchOutbound } from './outbound.js';
import { OutboundDetails, OutboundStats, OutboundTimeline, ProbeRunPage, RunsQuery, StatsQuery, TimelineQuery } from './schema.js';
import { outboundStats, outboundTimeline } from './stats.js';

const security = sessionSecurity;
const tags = ['checks'];

// Session auth on these paths only: this router is mounted at /checks before the checks router,
// whose own `*` middleware must stay the only one for its paths (one auth, one rate-limit count).
const PATHS = ['/:id/outbound', '/:id/runs', '/:id/outbound-stats', '/:id/outbound-timeline'] as const;

/** The outbound probe routes of a check (spec "Dashboard: checks"), mounted at `/checks`. */
export function probeRoutes() {
  const r = createRouter();
  for (const path of PATHS) r.use(path, sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/outbound',
      tags,
      security,
      summary: 'Outbound config and latest probe state',
      request: { params: CheckIdParam },
      responses: { 200: jsonResponse(OutboundDetails, 'Config with defaults filled in, status streaks and each region’s newest run') },
    }),
    async (c) => c.json(await getOutbound(requestCtx(c), c.req.valid('param').id), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}/outbound',
      tags,
      security,
      summary: 'Change the probe configuration (url, headers, timeout, thresholds, regions)',
      request: { params: CheckIdParam, body: jsonBody(OutboundConfigPatch) },
      responses: { 200: jsonResponse(OutboundDetails, 'Updated config and probe state') },
    }),
    async (c) => c.json(await patchOutbound(requestCtx(c), c.req.valid('param').id, c.req.valid('json')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/runs',
      tags,
      security,
      summary: 'Probe runs, newest first',
      request: { params: CheckIdParam, query: RunsQuery },
      responses: { 200: jsonResponse(ProbeRunPage, 'Paginated probe runs (one per region per round)') },
    }),
    async (c) => c.json(await listCheckRuns(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/outbound-stats',
      tags,
      security,
      summary: 'Uptime, average and P95 latency over a window (default 24h)',
      request: { params: CheckIdParam, query: StatsQuery },
      responses: { 200: jsonResponse(OutboundStats, 'Stats from the rollups') },
    }),
    async (c) => c.json(await outboundStats(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/outbound-timeline',
      tags,
      security,
      summary: 'Bucketed probe results (default 5-minute buckets over 24h)',
      request: { params: CheckIdParam, query: TimelineQuery },
      responses: { 200: jsonResponse(OutboundTimeline, 'One entry per bucket, oldest first') },
    }),
    async (c) => c.json(await outboundTimeline(requestCtx(c), c.req.valid('param').id, c.req.valid('query')), 200),
  );
  return r;
}
