import ipaddr from 'ipaddr.js';

/**
 * Parses a user-chosen URL exactly once with the WHATWG parser and says what it points at.
 * The WHATWG host parser already turns every IPv4 spelling (decimal `2130706433`, hex `0x7f.1`,
 * short `127.1`, octal, percent-encoded, full-width digits, a trailing dot) into dotted decimal
 * and drops userinfo from the host, so after parsing the host is either a canonical IPv4, a
 * bracketed IPv6, or a domain name; nothing here re-parses addresses by hand.
 */

export type TargetHost = { readonly kind: 'ip'; readonly address: string; readonly family: 4 | 6 } | { readonly kind: 'name'; readonly hostname: string };

export type ParsedTarget = {
  readonly url: URL;
  /** Host without IPv6 brackets: what TLS SNI and the pinned lookup see. */
  readonly hostname: string;
  readonly host: TargetHost;
  readonly port: number;
};

export type UrlCheck = { readonly ok: true; readonly target: ParsedTarget } | { readonly ok: false; readonly message: string };

const ALLOWED_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:']);

/** `localhost`, `localhost.` and any `*.localhost(.)` name (RFC 6761): loopback by definition. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function describeHost(hostname: string): TargetHost {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    return { kind: 'ip', address: hostname.slice(1, -1), family: 6 };
  }
  // Canonical dotted decimal is the only IPv4 form the WHATWG parser leaves behind.
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) return { kind: 'ip', address: hostname, family: 4 };
  return { kind: 'name', hostname };
}

/**
 * `input` relative to `base` when given (a redirect's Location against the current URL).
 * Refuses what can never be fetched: unparsable URLs, schemes other than http/https, localhost.
 */
export function parseTargetUrl(input: string | URL, base?: URL): UrlCheck {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    return { ok: false, message: `not a valid URL: ${String(input).slice(0, 200)}` };
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
    return { ok: false, message: `scheme ${url.protocol} is not allowed (http and https only)` };
  }
  const host = describeHost(url.hostname);
  if (host.kind === 'name' && isLocalhostName(host.hostname)) {
    return { ok: false, message: `host ${host.hostname} is a loopback name` };
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const hostname = host.kind === 'ip' ? host.address : host.hostname;
  return { ok: true, target: { url, hostname, host, port } };
}
