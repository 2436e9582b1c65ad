import { describe, expect, it } from 'vitest';
import { classifyAddress, isBlockedAddress } from './addresses.js';
import { LOOPBACK_RANGES, rangeEdgeCases } from '../../test/support/outbound.js';

// Well-known targets an attacker would pick, in the spelling a resolver or URL parser yields.
const NAMED_BLOCKED: readonly [string, string][] = [
  ['169.254.169.254', 'cloud metadata (AWS, GCP, Azure)'],
  ['fd00:ec2::254', 'AWS metadata over IPv6 (ULA)'],
  ['100.100.100.200', 'Alibaba metadata (CGNAT)'],
  ['0.0.0.0', 'unspecified, reaches local services on Linux'],
  ['127.0.0.1', 'loopback'],
  ['10.1.2.3', 'RFC 1918'],
  ['172.31.255.255', 'RFC 1918'],
  ['192.168.1.1', 'RFC 1918'],
  ['255.255.255.255', 'broadcast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['::', 'IPv6 unspecified'],
  ['::1', 'IPv6 loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
  ['::ffff:808:808', 'IPv4-mapped public: the whole ::ffff:0:0/96 is refused'],
  ['::7f00:1', 'IPv4-compatible loopback (::/96)'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
  ['64:ff9b:1::a00:1', 'local-use NAT64 of 10.0.0.1'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['fe80::1', 'IPv6 link-local'],
  ['fec0::1', 'IPv6 site-local'],
  ['ff02::1', 'IPv6 multicast'],
  ['1::1', 'outside 2000::/3, not global unicast'],
  ['4000::1', 'outside 2000::/3, not global unicast'],
];

const ALLOWED: readonly string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '1.0.0.0',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001::1',
  '2003::1',
  '2001:200::1',
];

const NOT_CANONICAL: readonly string[] = [
  '',
  'example.com',
  '127.1',
  '2130706433',
  '0x7f.0.0.1',
  '010.0.0.1',
  '[::1]',
  ' 8.8.8.8',
  '8.8.8.8 ',
  '256.0.0.1',
  'fe80::1%eth0',
  '2606:4700::1%eth0',
];

describe('isBlockedAddress', () => {
  it.each(rangeEdgeCases)('blocks $ip (blocked range $cidr)', ({ ip }) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(NAMED_BLOCKED)('blocks %s (%s)', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(ALLOWED)('allows global unicast %s', (ip) => {
    expect(classifyAddress(ip)).toEqual({ blocked: false, family: ip.includes(':') ? 6 : 4 });
  });

  it.each(NOT_CANONICAL)('refuses the non-canonical spelling %j instead of interpreting it', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it('explains its refusals', () => {
    expect(classifyAddress('10.0.0.1')).toEqual({ blocked: true, reason: '10.0.0.1 is in blocked range 10.0.0.0/8' });
    expect(classifyAddress('::ffff:7f00:1')).toMatchObject({ blocked: true });
  });
});

describe('isBlockedAddress with allowLoopback (VIGIL_PROBE_ALLOW_PRIVATE)', () => {
  const policy = { allowLoopback: true };

  it.each(['127.0.0.1', '127.0.0.2', '127.255.255.255', '::1'])('opens loopback %s', (ip) => {
    expect(isBlockedAddress(ip, policy)).toBe(false);
  });

  const stillBlocked = rangeEdgeCases.filter(({ cidr }) => !LOOPBACK_RANGES.has(cidr));
  it.each(stillBlocked)('keeps $ip ($cidr) blocked', ({ ip }) => {
    expect(isBlockedAddress(ip, policy)).toBe(true);
  });

  it.each(['::ffff:7f00:1', '::7f00:1', '0.0.0.0', '::', '169.254.169.254', '10.0.0.1', '64:ff9b::7f00:1'])('does not open %s, which is not literally 127/8 or ::1', (ip) => {
    expect(isBlockedAddress(ip, policy)).toBe(true);
  });
});
