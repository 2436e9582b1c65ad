import { createHash, randomBytes, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';
import type { HashSlot } from './hashSlots.js';
import { zlib } from './zlib.js';

/** OWASP's scrypt floor is N=2^17, r=8, p=1; N comes from the configuration (`passwordHashLogN`). */
const SCRYPT = { r: 8, p: 1, keylen: 64 } as const;
// scrypt needs 128 * N * r bytes; Node refuses more than 32 MB unless told.
const maxmemFor = (N: number, r: number): number => 256 * N * r;

function scryptAsync(password: BinaryLike, salt: BinaryLike, keylen: number, options: ScryptOptions & { N: number; r: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { ...options, maxmem: maxmemFor(options.N, options.r) }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * `scrypt$N$r$p$salt$hash`: the parameters travel with the hash, so the cost can be raised later.
 * Hashing and verifying take a held slot (hashSlots.ts): no caller hashes outside the process's bound.
 */
export async function hashPassword(_slot: HashSlot, password: string, logN: number): Promise<string> {
  const N = 2 ** logN;
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.keylen, { N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** `ok`, and whether the stored hash is cheaper than `logN` asks (re-hash it now that the password is known). */
export async function verifyPassword(_slot: HashSlot, password: string, stored: string, logN: number): Promise<{ ok: boolean; stale: boolean }> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return { ok: false, stale: false };
  const expected = Buffer.from(hash, 'base64');
  const N = Number(n);
  const key = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, { N, r: Number(r), p: Number(p) });
  const ok = key.length === expected.length && timingSafeEqual(key, expected);
  return { ok, stale: ok && (N < 2 ** logN || Number(r) < SCRYPT.r) };
}

const dummies = new Map<number, Promise<string>>();
/**
 * A hash of nothing at the configured cost: an unknown e-mail is verified against it, so the
 * token endpoint spends the same work whether or not the account exists (no timing oracle).
 */
export function dummyHash(slot: HashSlot, logN: number): Promise<string> {
  let dummy = dummies.get(logN);
  if (!dummy) {
    dummy = hashPassword(slot, randomBytes(16).toString('base64'), logN);
    dummies.set(logN, dummy);
  }
  return dummy;
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/**
 * API keys: `<prefix>_<48 hex chars = 192 random bits><8 hex chars of CRC-32>`. The checksum lets
 * a mistyped or made-up key be refused without a table lookup.
 */
export function generateApiKey(prefix: string): string {
  const body = randomBytes(24).toString('hex');
  return `${prefix}_${body}${checksum(body)}`;
}

export function isWellFormedApiKey(key: string, prefix: string): boolean {
  const match = new RegExp(`^${prefix}_([0-9a-f]{48})([0-9a-f]{8})$`).exec(key);
  return match !== null && checksum(match[1] ?? '') === match[2];
}

const checksum = (body: string): string => (zlib.crc32(body) >>> 0).toString(16).padStart(8, '0');
