import type { Context } from 'hono';
import type { PingKind } from '../checks/status.js';
import { clientIp } from '../http/clientIp.js';
import type { AppEnv } from '../http/env.js';
import { DEFAULT_RATE_LIMIT, consumeRateLimit, enforce } from '../http/rateLimit.js';
import { readPingBody } from './body.js';
import { checkNotFound } from './history.js';
import type { PingHints } from './hints.js';
import { ingestPing } from './ingest.js';
import { PING_RATE_LIMIT } from './schema.js';

export const PING_VARIANTS = [
  { suffix: '', kind: 'success' },
  { suffix: '/start', kind: 'start' },
  { suffix: '/fail', kind: 'fail' },
] as const satisfies readonly { suffix: string; kind: PingKind }[];

/** Unknown tokens cost a lookup each: they are limited per client address (DESIGN 6). */
export const UNKNOWN_TOKEN_LIMIT = { ...DEFAULT_RATE_LIMIT, name: 'ping-unknown' };

/** Only POST carries a body (fetch refuses one on GET and HEAD). */
export const pingBody = (c: Context<AppEnv>): Promise<string> => (c.req.method === 'POST' ? readPingBody(c.req.raw) : Promise.resolve(''));

/**
 * Records one ping of `token` and answers like the spec: 200 `{message: "OK"}` once the check and
 * the signal are both stored (or the ping was a duplicate within the dedup window).
 */
export async function answerPing(c: Context<AppEnv>, hints: PingHints, token: string, kind: PingKind, body?: string): Promise<void> {
  const deps = c.var.deps;
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
