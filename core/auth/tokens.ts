import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { HttpError, unauthorized } from '../http/errors.js';
import { isConditionalFailure } from '../store/conditional.js';
import type { Store } from '../store/service.js';

const SECRET_SETTING = 'token-signing-secret';
const ISSUER = 'vigil';
const AUDIENCE = 'vigil-dashboard';

const secretCache = new WeakMap<Store, Promise<Uint8Array>>();

/**
 * The HS256 signing secret lives in the table, created on first use: every Lambda and the local
 * server share it without extra infrastructure, and it survives restarts.
 */
export function signingSecret(store: Store, now: Date): Promise<Uint8Array> {
  let cached = secretCache.get(store);
  if (!cached) {
    cached = loadOrCreateSecret(store, now);
    cached.catch(() => secretCache.delete(store));
    secretCache.set(store, cached);
  }
  return cached;
}

const jwtKeyCache = new WeakMap<Store, Promise<CryptoKey>>();

/**
 * The signing secret as the HMAC key every JWT of this install is signed and verified with. Handed
 * the secret's bytes, jose imports them as a WebCrypto key on every sign and every verify (a
 * session's every request, every alert's acknowledgement links: about 1% of a mass outage's CPU);
 * imported once, the key is the same for all of them.
 */
export function jwtKey(store: Store, now: Date): Promise<CryptoKey> {
  let cached = jwtKeyCache.get(store);
  if (!cached) {
    cached = signingSecret(store, now).then((secret) => crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));
    cached.catch(() => jwtKeyCache.delete(store));
    jwtKeyCache.set(store, cached);
  }
  return cached;
}

async function loadOrCreateSecret(store: Store, now: Date): Promise<Uint8Array> {
  const { setting } = store.entities;
  const existing = await setting.get({ name: SECRET_SETTING }).go({ consistent: true });
  if (existing.data) return Buffer.from(existing.data.value, 'base64');
  const value = randomBytes(32).toString('base64');
  try {
    await setting.create({ name: SECRET_SETTING, value, createdAt: now.toISOString() }).go();
    return Buffer.from(value, 'base64');
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    const winner = await setting.get({ name: SECRET_SETTING }).go({ consistent: true });
    if (!winner.data) throw err;
    return Buffer.from(winner.data.value, 'base64');
  }
}

/** `epoch` is the user's sessionEpoch at issue: a password change or logout-everywhere voids older tokens. */
/** `familyId`: the sign-in the token belongs to (a logout with its refresh token ends it). */
export type AccessClaims = { userId: number; email: string; epoch: number; familyId?: string | undefined };

export async function issueAccessToken(deps: Deps, claims: AccessClaims, now: Date): Promise<string> {
  const secret = await jwtKey(deps.store, now);
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ email: claims.email, sep: claims.epoch, ...(claims.familyId ? { fid: claims.familyId } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(claims.userId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + deps.config.accessTokenTtlSeconds)
    .sign(secret);
}

/** Expired, tampered, `alg: none` or otherwise wrong tokens are all a 401, never a 5xx. */
export async function verifyAccessToken(deps: Deps, token: string, now: Date): Promise<AccessClaims> {
  const secret = await jwtKey(deps.store, now);
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
    });
    const userId = Number(payload.sub);
    const epoch = payload.sep;
    if (!Number.isSafeInteger(userId) || typeof payload.email !== 'string' || typeof epoch !== 'number' || !Number.isSafeInteger(epoch)) {
      throw unauthorized('Invalid access token');
    }
    const familyId = typeof payload.fid === 'string' ? payload.fid : undefined;
    return { userId, email: payload.email, epoch, familyId };
  } catch (err) {
    if (err instanceof HttpError) throw err;
    if (err instanceof joseErrors.JWTExpired) throw new HttpError('TOKEN_EXPIRED', 'Access token expired');
    throw unauthorized('Invalid access token');
  }
}
