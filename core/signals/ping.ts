import type { Context } from 'hono';
import type { PingKind } from '../checks/status.js';
import { isRunId, MAX_OPEN_RUNS } from '../checks/runs.js';
import { clientIp } from '../http/clientIp.js';
import { badRequest, HttpError } from '../http/httpError.js';
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
  { suffix: '/log', kind: 'log' },
] as const satisfies readonly { suffix: string; kind: PingKind }[];

/** What a ping says besides its kind: the run id and the exit code. */
export type PingOptions = { rid?: string | undefined; exitCode?: number | undefined };

/**
 * The last path segment of `/ping/:token/<segment>` that is none of the named variants: an exit
 * code 0-255 (0 is a success, anything else a fail), a number out of that range is a 400, and
 * anything else is no route (404).
 */
export function exitCodePing(segment: string): { kind: PingKind; exitCode: number } {
  if (!/^\d+$/.test(segment)) throw new HttpError('NOT_FOUND', 'No such ping: the suffix is start, fail, log or an exit code 0-255');
  const exitCode = segment.length > 3 ? 256 : Number(segment);
  if (exitCode > 255) throw badRequest('Exit codes are 0-255', [{ path: 'exitCode', message: 'must be between 0 and 255' }]);
  return { kind: exitCode === 0 ? 'success' : 'fail', exitCode };
}

/** `?rid=` must be a UUID (any version); absent is fine. */
export function pingOptions(c: Context, exitCode?: number): PingOptions {
  const rid = c.req.query('rid');
  if (rid !== undefined && !isRunId(rid)) throw badRequest('rid must be a UUID', [{ path: 'rid', message: 'must be a UUID such as 3f2c1d9e-8b7a-4c6d-9e0f-1a2b3c4d5e6f' }]);
  return { rid, exitCode };
}

/** Unknown tokens cost a lookup each: they are limited per client address. */
export const UNKNOWN_TOKEN_LIMIT = { ...DEFAULT_RATE_LIMIT, name: 'ping-unknown' };

/** The methods a ping path answers (HEAD works like GET). */
export const PING_METHODS = ['get', 'post'] as const;

/** Only POST carries a body (fetch refuses one on GET and HEAD). */
export const pingBody = (c: Context): Promise<string> => (c.req.method === 'POST' ? readPingBody(c.req.raw) : Promise.resolve(''));

/**
 * Records one ping of `token` and answers like the spec: 200 `{message: "OK"}` once the check and
 * the signal are both stored (or the ping was a duplicate within the dedup window).
 */
export async function answerPing(deps: PingDeps, c: Context, hints: PingHints, token: string, kind: PingKind, body?: string, options: PingOptions = pingOptions(c)): Promise<void> {
  body ??= await pingBody(c);
  const result = await ingestPing(deps, hints, {
    token,
    kind,
    now: deps.clock.now(),
    method: c.req.method,
    sourceIp: clientIp(c),
    userAgent: c.req.header('user-agent'),
    body,
    rid: options.rid,
    exitCode: options.exitCode,
  });
  if (result.outcome === 'rate_limited') {
    const refused = { allowed: false, limit: PING_RATE_LIMIT.limit, remaining: 0, resetSeconds: result.retryAfterSeconds };
    enforce(refused, 'Too many pings for this check');
  }
  if (result.outcome === 'too_many_runs') {
    throw new HttpError('CONFLICT', `This job already has ${MAX_OPEN_RUNS} open runs: end some (or let them be counted missed) before starting more`, [
      { path: 'rid', message: `at most ${MAX_OPEN_RUNS} runs may be open at once` },
    ]);
  }
  if (result.outcome === 'unknown') {
    enforce(await consumeRateLimit(deps, UNKNOWN_TOKEN_LIMIT, `ip:${clientIp(c)}`));
    throw checkNotFound();
  }
}
