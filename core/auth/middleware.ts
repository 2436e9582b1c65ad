import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { forbidden, unauthorized } from '../http/errors.js';
import { clientIp } from '../http/clientIp.js';
import { DEFAULT_RATE_LIMIT, consumeRateLimit, enforce, peekRateLimit, rateLimitHeaders, type RateLimitRule } from '../http/rateLimit.js';
import type { ApiKeyActor } from '../context.js';
import { isWellFormedApiKey, sha256Hex } from './secrets.js';
import { isConditionalFailure } from '../store/conditional.js';
import { verifyAccessToken, type AccessClaims } from './tokens.js';

export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

const looksLikeApiKey = (token: string, prefix: string): boolean => token.startsWith(`${prefix}_`);

/** Dashboard routes: OAuth session tokens only. An API key here is a 401 (spec rule 1). */
export function sessionAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deps = c.var.deps;
    const claims = await authenticateSession(deps, bearerToken(c));
    c.set('actor', { kind: 'user', userId: claims.userId, email: claims.email, sessionId: claims.familyId });
    await limitAndContinue(c, `user:${claims.userId}`, next);
  };
}

/** A session token, wherever it travels (header, or the WebSocket connect query): its current claims or 401. */
export async function authenticateSession(deps: Deps, token: string | undefined): Promise<AccessClaims> {
  if (!token) throw unauthorized('Missing bearer token');
  if (looksLikeApiKey(token, deps.config.keyPrefix)) throw unauthorized('API keys are not accepted on dashboard routes');
  const claims = await verifyAccessToken(deps, token, deps.clock.now());
  await requireCurrentSession(deps, claims);
  return claims;
}

/**
 * Access tokens are stateless, so "logout everywhere and password change revoke all" needs one
 * read: a token minted before the user's current session epoch is refused.
 */
export async function requireCurrentSession(deps: Deps, claims: AccessClaims): Promise<void> {
  const user = (await deps.store.entities.user.get({ userId: claims.userId }).go({ consistent: true })).data;
  if (!user || user.sessionEpoch !== claims.epoch) throw unauthorized('Session revoked');
  const familyId = claims.familyId;
  if (familyId && (user.endedSessions ?? []).some((entry) => entry.endsWith(`:${familyId}`))) throw unauthorized('Session revoked');
}

/**
 * Integration API and MCP: API keys only. A session token here is a 401. `units` is the work the
 * request carries in the key's rate limit (one, or each message of an MCP batch), read once the
 * key is known.
 */
export function apiKeyAuth(options: { units?: (c: Context<AppEnv>) => Promise<number> } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const actor = await authenticateApiKey(c.var.deps, bearerToken(c), clientIp(c));
    // Ping keys travel in cron lines and URLs; they may ping, never drive the Integration API.
    if (actor.keyKind === 'ping') throw forbidden('Ping keys can only send pings; use a service key');
    c.set('actor', actor);
    await limitAndContinue(c, `key:${actor.apiKeyId}`, next, options.units ? await options.units(c) : 1);
  };
}

async function limitAndContinue(c: Context<AppEnv>, scope: string, next: () => Promise<void>, units = 1): Promise<void> {
  const decision = await consumeRateLimit(c.var.deps, DEFAULT_RATE_LIMIT, scope, units);
  enforce(decision);
  await next();
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.res.headers.set(name, value);
}

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Made-up keys that pass the checksum (CRC-32 is not keyed) each cost a lookup: an address whose
 * keys failed this often in the window is refused before any lookup until the window ends.
 */
export const FAILED_KEY_LIMIT: RateLimitRule = { name: 'api-key-failed', limit: 20, windowSeconds: 60 };

export async function authenticateApiKey(deps: Deps, token: string | undefined, clientAddress: string): Promise<ApiKeyActor> {
  if (!token) throw unauthorized('Missing API key');
  if (!isWellFormedApiKey(token, deps.config.keyPrefix)) throw unauthorized('Invalid API key');
  const scope = `ip:${clientAddress}`;
  enforce(await peekRateLimit(deps, FAILED_KEY_LIMIT, scope), 'Too many invalid API keys from this address');
  const found = await deps.store.entities.apiKey.get({ keyHash: sha256Hex(token) }).go();
  const key = found.data;
  if (!key) {
    await consumeRateLimit(deps, FAILED_KEY_LIMIT, scope);
    throw unauthorized('Invalid API key');
  }
  if (!key.enabled) throw unauthorized('API key is disabled');
  const now = deps.clock.now();
  // lastUsedAt is written at most once a minute so an active key does not pay a write per request.
  if (!key.lastUsedAt || now.getTime() - Date.parse(key.lastUsedAt) > LAST_USED_GRANULARITY_MS) {
    try {
      await deps.store.entities.apiKey.patch({ keyHash: key.keyHash }).set({ lastUsedAt: now.toISOString() }).go();
    } catch (err) {
      // The key was deleted after it was read: this request still passes (it was valid when it came).
      if (!isConditionalFailure(err)) throw err;
    }
  }
  return {
    kind: 'apiKey',
    apiKeyId: key.apiKeyId,
    workspaceId: key.workspaceId,
    permission: key.permission,
    keyKind: key.kind,
    name: key.name,
  };
}

/** For unauthenticated routes (sign-up, token endpoint, pings): count by client address. */
export const byClientIp = (c: Context<AppEnv>): string => `ip:${clientIp(c)}`;
