import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from './addresses.js';
import { guardedRequest } from './request.js';
import { forbiddenResolver, spyConnect } from '../../test/support/outbound.js';
import { parseTargetUrl } from './url.js';

/**
 * Any address in the ranges an attacker reaches for most, spelled as the single decimal integer
 * a URL parser accepts (`http://2130706433/`), or in hex, lands on a blocked literal.
 */

const RANGES: readonly { name: string; network: number; bits: number }[] = [
  { name: '127/8', network: 127 * 2 ** 24, bits: 8 },
  { name: '10/8', network: 10 * 2 ** 24, bits: 8 },
  { name: '192.168/16', network: (192 * 2 ** 8 + 168) * 2 ** 16, bits: 16 },
  { name: '169.254/16', network: (169 * 2 ** 8 + 254) * 2 ** 16, bits: 16 },
];

const addressInRange = fc.constantFrom(...RANGES).chain((range) => fc.integer({ min: 0, max: 2 ** (32 - range.bits) - 1 }).map((host) => range.network + host));

function literalOf(url: string): string {
  const check = parseTargetUrl(url);
  if (!check.ok || check.target.host.kind !== 'ip') throw new Error(`${url} did not parse to a literal IP`);
  return check.target.host.address;
}

describe('integer spellings of private IPv4 addresses', () => {
  it('decimal: http://<n>/ is blocked', () => {
    fc.assert(
      fc.property(addressInRange, (n) => {
        expect(isBlockedAddress(literalOf(`http://${n}/`))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('hex: http://0x<n>/ is blocked', () => {
    fc.assert(
      fc.property(addressInRange, (n) => {
        expect(isBlockedAddress(literalOf(`http://0x${n.toString(16)}/`))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('guardedRequest refuses them without opening a socket', async () => {
    await fc.assert(
      fc.asyncProperty(addressInRange, async (n) => {
        const spy = spyConnect();
        const result = await guardedRequest(
          { url: `http://${n}/`, method: 'GET', timeoutMs: 1000, followRedirects: true, maxRedirects: 3, blockHttpDowngrade: true },
          { resolve: forbiddenResolver, connect: spy.connect },
        );
        expect(result).toMatchObject({ ok: false, failureReason: 'SSRF_BLOCKED' });
        expect(spy.calls).toHaveLength(0);
      }),
      { numRuns: 300 },
    );
  });
});
