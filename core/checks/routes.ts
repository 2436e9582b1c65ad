import { requestCtx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { byClientIp, sessionAuth } from '../auth/middleware.js';
import type { AppEnv } from '../http/env.js';
import { jsonBody, jsonResponse, sessionSecurity } from '../http/openapi.js';
import { rateLimit } from '../http/rateLimit.js';
import { createRouter } from '../http/router.js';
import { badgeKeyFor, checkForBadge, checkForBadgeKey, renderBadge } from './badge.js';
import { createDashboardCheck, deleteCheck, pauseCheckAsUser, resumeCheckAsUser, transferCheck, updateDashboardCheck } from './dashboard.js';
import { rotateCheckToken } from './rotate.js';
import { findDashboardChecks } from './listing.js';
import { bulkChecks } from './bulk.js';
import {
  DEFAULT_BADGE_LABEL,
  CheckBulkBody,
  CheckBulkResult,
  CheckIdParam,
  CheckListQuery,
  CheckPage,
  CheckTransfer,
  DashboardCheck,
  DashboardCheckCreate,
  DashboardCheckUpdate,
} from './schema.js';
import { toDashboardCheck } from './present.js';
import { ErrorBody } from '../http/errors.js';
import { signingSecret } from '../auth/tokens.js';

const security = sessionSecurity;
const tags = ['checks'];
/** The view for the caller's role in `workspaceId` (header values are masked below MEMBER). */
async function viewIn(c: Context<AppEnv>, workspaceId: number | undefined) {
  const role = workspaceId === undefined ? 'VIEWER' : (await authorize(c.var.deps, c.var.actor, workspaceId, 'VIEWER')).role;
  const badgeSecret = await signingSecret(c.var.deps.store, c.var.deps.clock.now());
  return (check: Parameters<typeof toDashboardCheck>[1]) => toDashboardCheck(c.var.deps.config, check, role, badgeSecret);
}
/** For a check the verb just wrote or read (VIEWER at least): one role lookup, then the view. core/dashboard/checkRoutes.ts uses it too. */
export const view = async (c: Context<AppEnv>, check: Parameters<typeof toDashboardCheck>[1]) => (await viewIn(c, check.workspaceId))(check);

// Badges are embedded in READMEs and fetched through image proxies: a roomier per-IP budget.
const BADGE_RATE_LIMIT = { name: 'badge', limit: 600, windowSeconds: 60 };
const BADGE_CACHE = 'public, max-age=60';

/**
 * `GET /checks/:badgeKey/badge` (public): mounted at /checks BEFORE the session-auth router. The
 * key is the check's `badgeUrl` key (`<id>-<MAC>`); a bare numeric id is 404, so the install's
 * checks cannot be walked by id.
 */
export function checkBadgeRoutes() {
  const r = createRouter();
  r.use('/:id/badge', rateLimit(BADGE_RATE_LIMIT, byClientIp));
  r.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/badge',
      tags,
      summary: 'Redirect to the check status badge (public)',
      request: {
        params: z.object({
          id: z
            .string()
            .max(64)
            .openapi({ description: 'The badge key from the check’s `badgeUrl` (`<id>-<MAC>`); a bare check id is 404', example: '12-0123456789abcdef0123456789abcdef' }),
        }),
      },
      responses: { 302: { description: 'Redirect to the badge SVG' }, 404: jsonResponse(ErrorBody, 'Unknown badge key, a bare check id, or a deleted check') },
    }),
    async (c) => {
      const deps = c.var.deps;
      const check = await checkForBadgeKey(deps, c.req.valid('param').id);
      c.header('Cache-Control', BADGE_CACHE);
      return c.redirect(`${deps.config.publicUrl}/api/badges/checks/${await badgeKeyFor(deps, check.checkId)}.svg`, 302);
    },
  );
  return r;
}

/** `GET /badges/checks/:badgeKey.svg` (public), mounted at /badges. */
export function badgeFileRoutes() {
  const r = createRouter();
  r.use('*', rateLimit(BADGE_RATE_LIMIT, byClientIp));
  r.openapi(
    createRoute({
      method: 'get',
      path: '/checks/{file}',
      tags,
      summary: 'Check status badge SVG (public)',
      request: { params: z.object({ file: z.string().max(64).openapi({ example: '12-0123456789abcdef0123456789abcdef.svg' }) }) },
      responses: { 200: { description: 'SVG badge', content: { 'image/svg+xml': { schema: z.string() } } } },
    }),
    async (c) => {
      const check = await checkForBadge(c.var.deps, c.req.valid('param').file);
      return c.body(renderBadge(check.badgeLabel ?? DEFAULT_BADGE_LABEL, check.status), 200, {
        'Content-Type': 'image/svg+xml; charset=utf-8',
        'Cache-Control': BADGE_CACHE,
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      });
    },
  );
  return r;
}

/**
 * The session routes of the checks area, mounted at `/checks` behind one `*` session auth: mount
 * them after every other router under `/checks` (core/dashboard/checkRoutes.ts says why).
 */
export function checkSessionRoutes() {
  const r = createRouter();
  r.use('*', sessionAuth());
  r.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags,
      security,
      description:
        'A page of checks in id order. Without q, status, checkType and cursor: page `page` with the exact `total`. With any of them: a cursor page that reads at most 1,000 checks per request, so it may be short (even empty) while `nextCursor` is not null; follow `nextCursor` until null to see every match exactly once.',
      request: { query: CheckListQuery },
      responses: { 200: jsonResponse(CheckPage, 'Paginated checks') },
    }),
    async (c) => {
      const page = await findDashboardChecks(requestCtx(c), c.req.valid('query'));
      return c.json({ ...page, items: page.items.map(await viewIn(c, page.items[0]?.workspaceId)) }, 200);
    },
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/bulk',
      tags,
      security,
      description:
        "Pause, resume or delete up to 100 checks of one workspace (MEMBER or above, else 403 and nothing changes). Each id answers on its own, in the order given; an unknown, deleted or foreign id is that item's NOT_FOUND.",
      request: { body: jsonBody(CheckBulkBody) },
      responses: { 200: jsonResponse(CheckBulkResult, 'One result per id, in the order given') },
    }),
    async (c) => c.json({ results: await bulkChecks(requestCtx(c), c.req.valid('json')) }, 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/',
      tags,
      security,
      request: { body: jsonBody(DashboardCheckCreate) },
      responses: { 201: jsonResponse(DashboardCheck, 'Created check, including its ping token') },
    }),
    async (c) => c.json(await view(c, await createDashboardCheck(requestCtx(c), c.req.valid('json'))), 201),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      tags,
      security,
      request: { params: CheckIdParam, body: jsonBody(DashboardCheckUpdate) },
      responses: { 200: jsonResponse(DashboardCheck, 'Updated check') },
    }),
    async (c) => c.json(await view(c, await updateDashboardCheck(requestCtx(c), c.req.valid('param').id, c.req.valid('json'))), 200),
  );
  r.openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      tags,
      security,
      request: { params: CheckIdParam },
      responses: { 204: { description: 'Deleted; signals removed, open incidents resolved' } },
    }),
    async (c) => {
      await deleteCheck(requestCtx(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  r.openapi(
    createRoute({ method: 'put', path: '/{id}/pause', tags, security, request: { params: CheckIdParam }, responses: { 200: jsonResponse(DashboardCheck, 'Paused check') } }),
    async (c) => c.json(await view(c, await pauseCheckAsUser(requestCtx(c), c.req.valid('param').id)), 200),
  );
  r.openapi(
    createRoute({ method: 'put', path: '/{id}/resume', tags, security, request: { params: CheckIdParam }, responses: { 200: jsonResponse(DashboardCheck, 'Resumed check') } }),
    async (c) => c.json(await view(c, await resumeCheckAsUser(requestCtx(c), c.req.valid('param').id)), 200),
  );
  r.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/rotate-token',
      tags,
      security,
      request: { params: CheckIdParam },
      responses: { 200: jsonResponse(DashboardCheck, 'The check under a new ping token; the old one answers 404') },
    }),
    async (c) => c.json(await view(c, await rotateCheckToken(requestCtx(c), c.req.valid('param').id)), 200),
  );
  r.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}/transfer',
      tags,
      security,
      request: { params: CheckIdParam, body: jsonBody(CheckTransfer) },
      responses: { 200: jsonResponse(DashboardCheck, 'Check moved to the project') },
    }),
    async (c) => c.json(await view(c, await transferCheck(requestCtx(c), c.req.valid('param').id, c.req.valid('json').projectId)), 200),
  );
  return r;
}
