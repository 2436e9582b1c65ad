import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../deps.js';
import type { Store } from '../store/service.js';
import type { AppEnv } from './env.js';
import { HttpError } from './httpError.js';
import { countInWindow, readWindow } from '../store/rateWindows.js';

export type RateLimitRule = { name: string; limit: number; windowSeconds: number };

export const DEFAULT_RATE_LIMIT: RateLimitRule = { name: 'api', limit: 100, windowSeconds: 60 };

/** What a limiter reads: the clock and the table (Deps fits, and so do the ping Lambda's PingDeps). */
export type RateLimitDeps = Pick<Deps, 'clock'> & { store: Pick<Store, 'hot' | 'table'> };

export type RateDecision = { allowed: boolean; limit: number; remaining: number; resetSeconds: number };

/**
 * Fixed windows counted in the table (`store/rateWindows.ts`). A request that carries several
 * units of work (an MCP batch) spends all of them at once, or none when they do not fit (what is
 * left then still serves smaller requests). If the table itself fails the limiter fails open:
 * monitoring traffic matters more than limiting.
 */
export async function consumeRateLimit(deps: RateLimitDeps, rule: RateLimitRule, scope: string, units = 1): Promise<RateDecision> {
  const nowMs = deps.clock.now().getTime();
  const windowMs = rule.windowSeconds * 1000;
  const windowStartMs = Math.floor(nowMs / windowMs) * windowMs;
  const resetSeconds = Math.max(1, Math.ceil((windowStartMs + windowMs - nowMs) / 1000));
  try {
    const count = await countInWindow(deps.store, { rule: rule.name, scope, windowStartMs, windowMs }, rule.limit, units);
    if (count === null) {
      const remaining = units > 1 ? (await peekRateLimit(deps, rule, scope)).remaining : 0;
      return { allowed: false, limit: rule.limit, remaining, resetSeconds };
    }
    return { allowed: true, limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetSeconds };
  } catch (err) {
    console.error('rate limiter unavailable, failing open', err);
    return { allowed: true, limit: rule.limit, remaining: rule.limit, resetSeconds };
  }
}

/** The decision the next consume would get, without counting (same fail-open rule). */
export async function peekRateLimit(deps: RateLimitDeps, rule: RateLimitRule, scope: string): Promise<RateDecision> {
  const nowMs = deps.clock.now().getTime();
  const windowMs = rule.windowSeconds * 1000;
  const windowStartMs = Math.floor(nowMs / windowMs) * windowMs;
  const resetSeconds = Math.max(1, Math.ceil((windowStartMs + windowMs - nowMs) / 1000));
  try {
    const count = await readWindow(deps.store, { rule: rule.name, scope, windowStartMs, windowMs });
    return { allowed: count < rule.limit, limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetSeconds };
  } catch (err) {
    console.error('rate limiter unavailable, failing open', err);
    return { allowed: true, limit: rule.limit, remaining: rule.limit, resetSeconds };
  }
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
}

/** A refused decision becomes the one 429: the RateLimit-* headers and Retry-After. */
export function enforce(decision: RateDecision, message = 'Rate limit exceeded'): void {
  if (!decision.allowed) {
    throw new HttpError('RATE_LIMITED', message, undefined, {
      ...rateLimitHeaders(decision),
      'Retry-After': String(decision.resetSeconds),
    });
  }
}

/** Middleware form: `scope` names who is counted (credential, user or client IP). */
export function rateLimit(rule: RateLimitRule, scope: (c: Context<AppEnv>) => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const decision = await consumeRateLimit(c.var.deps, rule, scope(c));
    enforce(decision);
    await next();
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.res.headers.set(name, value);
  };
}
