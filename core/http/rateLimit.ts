import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../deps.js';
import type { AppEnv } from './env.js';
import { HttpError } from './errors.js';
import { isConditionalFailure } from '../store/conditional.js';

export type RateLimitRule = { name: string; limit: number; windowSeconds: number };

export const DEFAULT_RATE_LIMIT: RateLimitRule = { name: 'api', limit: 100, windowSeconds: 60 };

export type RateDecision = { allowed: boolean; limit: number; remaining: number; resetSeconds: number };

/**
 * Fixed-window counter `RL#<rule>#<scope>#<windowStart>` in the table: one UpdateItem ADD with a
 * condition on the limit, expired by TTL. Lambdas share no memory, so the table is the counter.
 * If the table itself fails the limiter fails open: monitoring traffic matters more than limiting.
 */
export async function consumeRateLimit(deps: Deps, rule: RateLimitRule, scope: string): Promise<RateDecision> {
  const nowMs = deps.clock.now().getTime();
  const windowMs = rule.windowSeconds * 1000;
  const windowStart = Math.floor(nowMs / windowMs) * windowMs;
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000));
  try {
    const result = await deps.store.client.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: { pk: `RL#${rule.name}#${scope}#${windowStart}`, sk: 'rl' },
        UpdateExpression: 'ADD #count :one SET #expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':limit': rule.limit,
          ':expiresAt': Math.floor((windowStart + windowMs) / 1000) + 60,
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const count = Number(result.Attributes?.count ?? rule.limit);
    return { allowed: true, limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetSeconds };
  } catch (err) {
    if (isConditionalFailure(err)) return { allowed: false, limit: rule.limit, remaining: 0, resetSeconds };
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

export function enforce(decision: RateDecision): void {
  if (!decision.allowed) {
    throw new HttpError('RATE_LIMITED', 'Rate limit exceeded', undefined, {
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
