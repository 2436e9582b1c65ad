import type { Context } from 'hono';
import type { PingKind } from '../checks/status.js';
import { clientIp } from '../http/clientIp.js';
import { HttpError } from '../http/httpError.js';
import { DEFAULT_RATE_LIMIT, consumeRateLimit, enforce } from '../http/rateLimit.js';
import { readPingBody } from './body.js';
import type { PingHints } from './hints.js';
import { ingestPing } from './ingest.js';
import { PING_RATE_LIMIT } from './limits.js';
import type { PingDeps } from './pingStore.js';

/*
 * The HTTP side of a ping, shared by both apps that serve token pings: the API app's OpenAPI
 * routes (routes.ts) and the ping Lambda's plain app (core/signalApp.ts). Both call answerPing,
 * which calls the one ingestPing; a new ping path is added to PING_VARIANTS (or to both apps,
 * which functions/signals.test.ts checks serve the same ping routes).
 */

export const checkNotFound = (): HttpError => new HttpError('CHECK_NOT_FOUND', 'Check not found');

export const PING_VARIANTS = [
  { suffix: '', kind: 'success' },
  { suffix: '/start', kind: 'start' },
  { suffix: '/fail', kind: 'fail' },
] as const satisfies readonly { suffix: string; kind: PingKind }[];

/** Unknown tokens cost a lookup each: they are limited per client address (DESIGN 6). */
export const UNKNOWN_TOKEN_LIMIT = { ...DEFAULT_RATE_LIMIT, name: 'ping-unknown' };

/** The methods a ping path answers (HEAD works like GET). */
export const PING_METHODS = ['get', 'post'] as const;

/** Only POST carries a body (fetch refuses one on GET and HEAD). */
export const pingBody = (c: Context): Promise<string> => (c.req.method === 'POST' ? readPingBody(c.req.raw) : Promise.resolve(''));

/**
 * Records one ping of `token` and answers like the spec: 200 `{message: "OK"}` once the check and
 * the signal are both stored (or the ping was a duplicate within the dedup window).
 */
export async function answerPing(deps: PingDeps, c: Context, hints: PingHints, token: string, kind: PingKind, body?: string): Promise<void> {
  body ??= await pingBody(c);
  const result = await ingestPing(deps, hints, {
    token,
    kind,
    now: deps.clock.now(),
    method: c.req.method,
    sourceIp: clientIp(c),
    userAgent: c.req.header('user-agent'),
    body,
  });
  if (result.outcome === 'rate_limited') {
    const refused = { allowed: false, limit: PING_RATE_LIMIT.limit, remaining: 0, resetSeconds: result.retryAfterSeconds };
    enforce(refused, 'Too many pings for this check');
  }
  if (result.outcome === 'unknown') {
    enforce(await consumeRateLimit(deps, UNKNOWN_TOKEN_LIMIT, `ip:${clientIp(c)}`));
    throw checkNotFound();
  }
}
