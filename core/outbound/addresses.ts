import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses an outbound request may reach. The rule is an allow-list ("plain global
 * unicast"), with an explicit block list (below) applied on top as a second net, so that a
 * future ipaddr.js release that renames or narrows one of its ranges cannot silently open a hole.
 */

/** Every non-public range an outbound request must never reach: each must stay blocked. */
export const BLOCKED_CIDRS = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
  '::/128',
  '::1/128',
  '::ffff:0:0/96',
  '::/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/32',
  '2001:10::/28',
  '2001:20::/28',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
] as const;

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

const blockedRanges: readonly { text: string; cidr: Cidr }[] = BLOCKED_CIDRS.map((text) => ({
  text,
  cidr: ipaddr.parseCIDR(text),
}));

// IANA's global unicast pool; ipaddr.js calls anything it has no name for "unicast", which would
// otherwise let unallocated space such as 1::/16 or 4000::/3 through.
const ipv6GlobalUnicast = ipaddr.parseCIDR('2000::/3');

// The local-testing switch opens exactly these and nothing else (not even their IPv4-mapped forms).
const loopbackRanges: readonly Cidr[] = [ipaddr.parseCIDR('127.0.0.0/8'), ipaddr.parseCIDR('::1/128')];

export type AddressPolicy = {
  /** VIGIL_PROBE_ALLOW_PRIVATE: lets 127/8 and ::1 through for local testing. Off by default. */
  readonly allowLoopback?: boolean;
};

export type AddressVerdict = { readonly blocked: false; readonly family: 4 | 6 } | { readonly blocked: true; readonly reason: string };

function inRange(addr: ipaddr.IPv4 | ipaddr.IPv6, [network, bits]: Cidr): boolean {
  // ipaddr's match throws across families, so compare only like with like.
  return addr.kind() === network.kind() && addr.match(network, bits);
}

function firstBlockedRange(addr: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  return blockedRanges.find((range) => inRange(addr, range.cidr))?.text;
}

/**
 * Only canonical spellings are accepted: the string that is checked is the string handed to the
 * socket, so a form that ipaddr.js and the OS might read differently (`010.0.0.1`, `127.1`) is
 * refused rather than interpreted.
 */
function parseCanonical(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip);
  if (ip.includes(':') && ipaddr.IPv6.isValid(ip)) return ipaddr.IPv6.parse(ip);
  return undefined;
}

function isIPv6(addr: ipaddr.IPv4 | ipaddr.IPv6): addr is ipaddr.IPv6 {
  return addr.kind() === 'ipv6';
}

function isLoopback(addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return loopbackRanges.some((range) => inRange(addr, range));
}

/** Explains why an address is refused, or says which family it is when it may be reached. */
export function classifyAddress(ip: string, policy: AddressPolicy = {}): AddressVerdict {
  const raw = parseCanonical(ip);
  if (raw === undefined) return { blocked: true, reason: `"${ip}" is not a canonical IP address` };
  if (isIPv6(raw) && raw.zoneId !== undefined) {
    return { blocked: true, reason: `${ip} carries an IPv6 zone id` };
  }
  if (policy.allowLoopback === true && isLoopback(raw)) {
    return { blocked: false, family: isIPv6(raw) ? 6 : 4 };
  }

  // Judge the raw form and the IPv4 form behind an IPv4-mapped address; either may block.
  const normalised = ipaddr.process(ip);
  for (const addr of normalised.kind() === raw.kind() ? [raw] : [raw, normalised]) {
    const listed = firstBlockedRange(addr);
    if (listed !== undefined) return { blocked: true, reason: `${ip} is in blocked range ${listed}` };
    const range = addr.range();
    if (range !== 'unicast') return { blocked: true, reason: `${ip} is ${range}, not global unicast` };
  }
  if (isIPv6(raw) && !raw.match(ipv6GlobalUnicast)) {
    return { blocked: true, reason: `${ip} is outside IPv6 global unicast 2000::/3` };
  }
  return { blocked: false, family: isIPv6(raw) ? 6 : 4 };
}

/** True unless the address is plain global unicast (or loopback with `allowLoopback`). */
export function isBlockedAddress(ip: string, policy: AddressPolicy = {}): boolean {
  return classifyAddress(ip, policy).blocked;
}
