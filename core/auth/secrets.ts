import { createHash, randomBytes, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';
import { zlib } from './zlib.js';

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64 } as const;

function scryptAsync(password: BinaryLike, salt: BinaryLike, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, so the cost can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
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
