import { clientIp } from '../http/clientIp.js';
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { requestCtx, type ApiKeyActor, type Ctx } from '../context.js';
import { authenticateApiKey, bearerToken } from '../auth/middleware.js';
import { findCheckBySlug } from '../checks/repository.js';
import { createHeartbeatJob } from '../checks/v1.js';
import type { PingKind } from '../checks/status.js';
import type { AppEnv } from '../http/env.js';
import { badRequest, conflict, forbidden, HttpError } from '../http/errors.js';
import { apiKeySecurity, jsonResponse } from '../http/openapi.js';
import { createRouter } from '../http/router.js';
import { DEFAULT_RATE_LIMIT, consumeRateLimit, enforce } from '../http/rateLimit.js';
import { listProjects } from '../identity/projects.js';
import type { CheckItem } from '../store/entities/check.js';
import { hintOf, type PingHints } from './hints.js';
import { PingAck, SlugParam, SlugPingQuery, DeprecatedSlugParam } from './schema.js';
import { answerPing, checkNotFound, PING_VARIANTS, pingBody } from './ping.js';

const SLUG = /^[a-z0-9_-]{1,64}$/;
export const SUNSET = 'Sun, 11 Apr 2027 00:00:00 GMT';

/**
 * Slug pings: `/signals/s/:slug[/start|/fail]` with the API key in the Authorization header
 * (service or ping keys, read_write), and the deprecated `/signals/p/:pingKey/:slug[...]` that
 * takes a ping key in the URL and says so in `Deprecation`/`Sunset` headers.
 */
export function slugPingRoutes(hints: PingHints) {
  const r = createRouter();
  r.use('/p/*', async (c, next) => {
    await next();
    c.res.headers.set('Deprecation', 'true');
    c.res.headers.set('Sunset', SUNSET);
  });
  for (const variant of PING_VARIANTS) {
    for (const method of ['get', 'post'] as const) {
      r.openapi(
        createRoute({
          method,
          path: `/s/{slug}${variant.suffix}`,
          tags: ['signals'],
          summary: `Slug ${variant.kind} ping (API key with read_write)`,
          security: apiKeySecurity,
          request: { params: SlugParam, query: SlugPingQuery },
          responses: { 200: jsonResponse(PingAck, 'Recorded'), 201: jsonResponse(PingAck, 'Job created by create=1, ping recorded') },
        }),
        async (c) => {
          const actor = await authenticateApiKey(c.var.deps, bearerToken(c), clientIp(c));
          const created = await slugPing(c, hints, actor, c.req.valid('param').slug, variant.kind, c.req.valid('query'));
          return c.json({ message: 'OK' as const }, created ? 201 : 200);
        },
      );
      r.openapi(
        createRoute({
          method,
          path: `/p/{pingKey}/{slug}${variant.suffix}`,
          tags: ['signals'],
          summary: `Deprecated: slug ${variant.kind} ping with a ping key in the URL (sunsets 2027-04-11)`,
          deprecated: true,
          request: { params: DeprecatedSlugParam, query: SlugPingQuery },
          responses: { 200: jsonResponse(PingAck, 'Recorded'), 201: jsonResponse(PingAck, 'Job created by create=1, ping recorded') },
        }),
        async (c) => {
          const { pingKey, slug } = c.req.valid('param');
          const actor = await authenticateApiKey(c.var.deps, pingKey, clientIp(c));
          if (actor.keyKind !== 'ping') throw forbidden('The key-in-URL form accepts only ping keys');
          const created = await slugPing(c, hints, actor, slug, variant.kind, c.req.valid('query'));
          return c.json({ message: 'OK' as const }, created ? 201 : 200);
        },
      );
    }
  }
  return r;
}

type SlugQuery = { create?: string | undefined; project?: number | undefined };

/** Resolves the slug in the key's workspace (creating the job on request) and pings it. */
async function slugPing(c: Context<AppEnv>, hints: PingHints, actor: ApiKeyActor, slug: string, kind: PingKind, query: SlugQuery): Promise<boolean> {
  if (actor.permission !== 'read_write') throw forbidden('Slug pings need a read_write key');
  // These routes authenticate inside the handler: from here on the key is the request's actor.
  c.set('actor', actor);
  // The key's own request budget, as on the Integration API (the per-check ping limit still applies).
  enforce(await consumeRateLimit(c.var.deps, DEFAULT_RATE_LIMIT, `key:${actor.apiKeyId}`));
  // Read (and size-check) the body first: a refused ping must not have created a job.
  const body = await pingBody(c);
  const deps = c.var.deps;
  const create = query.create === '1' || query.create === 'true';
  let check = SLUG.test(slug) ? await findCheckBySlug(deps, actor.workspaceId, slug) : undefined;
  // A slug ping is a heartbeat for a job: an outbound check's slug is not something to ping.
  if (check && check.checkMode !== 'INBOUND') {
    if (create) throw conflict('That slug belongs to an outbound check', 'SLUG_TAKEN');
    throw checkNotFound();
  }
  let created = false;
  if (!check) {
    if (!create) throw checkNotFound();
    if (!SLUG.test(slug)) throw badRequest('Invalid slug', [{ path: 'slug', message: 'must match ^[a-z0-9_-]{1,64}$' }]);
    ({ check, created } = await createJob(requestCtx(c), actor.workspaceId, slug, query.project));
  }
  if (!hints.get(check.token)) hints.set(check.token, hintOf(check));
  await answerPing(deps, c, hints, check.token, kind, body);
  return created;
}

async function createJob(ctx: Ctx, workspaceId: number, slug: string, projectId: number | undefined): Promise<{ check: CheckItem; created: boolean }> {
  const project = projectId ?? (await listProjects(ctx, workspaceId))[0]?.projectId;
  if (project === undefined) throw badRequest('The workspace has no project to create the job in', [{ path: 'project', message: 'Required' }]);
  try {
    return { check: await createHeartbeatJob(ctx, { name: slug, projectId: project, slug }), created: true };
  } catch (err) {
    // Two first pings at once: the other one created it.
    if (!(err instanceof HttpError && err.code === 'SLUG_TAKEN')) throw err;
    const existing = await findCheckBySlug(ctx.deps, workspaceId, slug);
    if (!existing) throw err;
    return { check: existing, created: false };
  }
}
