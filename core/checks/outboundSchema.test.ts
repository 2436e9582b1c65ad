import { describe, expect, it } from 'vitest';
import { OutboundConfig, OutboundConfigPatch, effectiveRegions, mergeOutboundConfig, parseOutboundConfig, readOutboundConfig, toOutboundView } from './outboundSchema.js';

const url = 'https://example.com/health';
const ok = (extra: Record<string, unknown>) => OutboundConfig.safeParse({ url, ...extra }).success;

describe('outbound probe config schema', () => {
  it('fills every default of the spec', () => {
    expect(OutboundConfig.parse({ url })).toEqual({
      url,
      method: 'GET',
      timeoutMs: 8000,
      expectedStatusMin: 200,
      expectedStatusMax: 399,
      followRedirects: true,
      maxRedirects: 3,
      blockHttpDowngrade: true,
      failAfterConsecutive: 3,
      resolveAfterConsecutiveSuccess: 2,
      sslExpiryWarnDays: 14,
    });
  });

  it.each([
    ['timeoutMs', 1000, 15000],
    ['expectedStatusMin', 100, 599],
    ['maxRedirects', 0, 3],
    ['failAfterConsecutive', 1, 10],
    ['resolveAfterConsecutiveSuccess', 1, 10],
    ['sslExpiryWarnDays', 1, 365],
    ['latencyWarnMs', 1, 60000],
  ])('bounds %s to %i-%i, integers only', (field, min, max) => {
    const extra = field === 'expectedStatusMin' ? { expectedStatusMax: 599 } : {};
    expect(ok({ ...extra, [field]: min })).toBe(true);
    expect(ok({ ...extra, [field]: max })).toBe(true);
    expect(ok({ ...extra, [field]: min - 1 })).toBe(false);
    expect(ok({ ...extra, [field]: max + 1 })).toBe(false);
    expect(ok({ ...extra, [field]: min + 0.5 })).toBe(false);
  });

  it('bounds expectedStatusMax to 100-599 and keeps min <= max', () => {
    expect(ok({ expectedStatusMin: 100, expectedStatusMax: 100 })).toBe(true);
    expect(ok({ expectedStatusMax: 600 })).toBe(false);
    expect(ok({ expectedStatusMin: 100, expectedStatusMax: 99 })).toBe(false);
    const result = OutboundConfig.safeParse({ url, expectedStatusMin: 500, expectedStatusMax: 499 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['expectedStatusMin']);
  });

  it('accepts http and https URLs up to 2048 characters only', () => {
    expect(ok({ url: 'http://example.com' })).toBe(true);
    expect(ok({ url: 'HTTPS://EXAMPLE.COM/' })).toBe(true);
    const long = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    expect(long).toHaveLength(2048);
    expect(ok({ url: long })).toBe(true);
    expect(ok({ url: `${long}a` })).toBe(false);
    for (const bad of ['ftp://example.com', 'example.com', 'javascript:alert(1)', 'https://', 'http://exa mple.com', '']) {
      expect(ok({ url: bad }), bad).toBe(false);
    }
    expect(OutboundConfig.safeParse({}).success).toBe(false);
  });

  it('accepts only the five methods', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH']) expect(ok({ method })).toBe(true);
    for (const method of ['DELETE', 'OPTIONS', 'get', 'TRACE']) expect(ok({ method })).toBe(false);
  });

  it('allows at most 10 valid custom headers', () => {
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));
    expect(ok({ customHeaders: headers(10) })).toBe(true);
    expect(ok({ customHeaders: headers(11) })).toBe(false);
    expect(ok({ customHeaders: { Authorization: 'Bearer abc', 'X-Empty': '' } })).toBe(true);
    expect(ok({ customHeaders: { 'Bad Name': 'v' } })).toBe(false);
    expect(ok({ customHeaders: { 'X-A': 'line\r\nInjected: 1' } })).toBe(false);
    expect(ok({ customHeaders: { 'X-A': 'nul\u0000' } })).toBe(false);
    expect(ok({ customHeaders: { 'X-A': 'x'.repeat(4097) } })).toBe(false);
    expect(ok({ customHeaders: { Host: 'internal' } })).toBe(false);
    expect(ok({ customHeaders: { 'content-length': '5' } })).toBe(false);
    expect(ok({ customHeaders: { 'X-A': '1', 'x-a': '2' } })).toBe(false);
    expect(ok({ customHeaders: { 'X-A': 1 } })).toBe(false);
  });

  it('accepts a non-repeating subset of the three regions', () => {
    expect(ok({ regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'] })).toBe(true);
    expect(ok({ regions: ['eu-west-1'] })).toBe(true);
    expect(ok({ regions: ['us-west-2'] })).toBe(false);
    expect(ok({ regions: ['eu-west-1', 'eu-west-1'] })).toBe(false);
    expect(ok({ regions: [] })).toBe(false);
  });

  it('rejects unknown fields and wrong types', () => {
    expect(ok({ retries: 3 })).toBe(false);
    expect(ok({ followRedirects: 'yes' })).toBe(false);
    expect(ok({ timeoutMs: '8000' })).toBe(false);
  });

  it('resolves no regions to the home region', () => {
    expect(effectiveRegions({}, 'eu-west-1')).toEqual(['eu-west-1']);
    expect(effectiveRegions({ regions: ['ap-southeast-1', 'us-east-1'] }, 'eu-west-1')).toEqual(['ap-southeast-1', 'us-east-1']);
    expect(toOutboundView(OutboundConfig.parse({ url }), 'ap-southeast-1', true).regions).toEqual(['ap-southeast-1']);
  });

  it('patches: absent keeps, null clears, the merged result is validated again', () => {
    const current = OutboundConfig.parse({ url, latencyWarnMs: 500, customHeaders: { 'X-A': '1' }, regions: ['eu-west-1'] });
    const patch = OutboundConfigPatch.parse({ timeoutMs: 2000, latencyWarnMs: null, regions: null });
    const merged = parseOutboundConfig(mergeOutboundConfig(current, patch));
    expect(merged).toMatchObject({ url, timeoutMs: 2000, customHeaders: { 'X-A': '1' } });
    expect(merged).not.toHaveProperty('latencyWarnMs');
    expect(merged).not.toHaveProperty('regions');
    // The patch schema has no defaults: an empty patch changes nothing.
    expect(OutboundConfigPatch.parse({})).toEqual({});
    expect(() => parseOutboundConfig(mergeOutboundConfig(current, OutboundConfigPatch.parse({ expectedStatusMin: 450 })), 'config')).toThrow(/config\.expectedStatusMin/);
    expect(OutboundConfigPatch.safeParse({ timeoutMs: 999 }).success).toBe(false);
  });

  it('reads a stored config back, or null when it is not valid any more', () => {
    expect(readOutboundConfig({ url })?.method).toBe('GET');
    expect(readOutboundConfig(undefined)).toBeNull();
    expect(readOutboundConfig({ url: 'ftp://x' })).toBeNull();
  });
});
