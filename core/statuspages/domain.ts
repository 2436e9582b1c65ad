/**
 * Custom domain rules (docs/guide/status-pages.md "Custom domain"). The value becomes a `Host` the
 * install answers for and a lock item, so it is held to plain DNS host-name syntax: a spelling the
 * WHATWG URL parser would read as an address (`127.1`, `0x7f.1`, `[::1]`) never passes.
 */

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** WHATWG reads a host whose last label is numeric (decimal or 0x-hex) as an IPv4 address. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;

/** Lower-cased, one trailing dot dropped: the form stored, locked and compared. */
export const normalizeDomain = (value: string): string => value.trim().toLowerCase().replace(/\.$/, '');

/**
 * Null when `domain` (already normalised) is acceptable, else the 400 message. `installHosts` are
 * the install's own host names (from VIGIL_PUBLIC_URL and friends): a page may not claim them.
 */
export function customDomainProblem(domain: string, installHosts: readonly string[] = []): string | null {
  if (domain.length === 0) return 'must not be empty (send null to remove the domain)';
  if (domain.length > 253) return 'must be at most 253 characters';
  if (/[\s/:@?#[\]\\]/.test(domain)) return 'must be a host name only: no scheme, port, path or address';
  const labels = domain.split('.');
  if (labels.length < 2) return 'must be a fully qualified host name such as status.example.com';
  if (NUMERIC_LABEL.test(labels[labels.length - 1] ?? '')) return 'must be a host name, not an IP address';
  if (!labels.every((label) => LABEL.test(label))) {
    return 'must be letters, digits and hyphens in dot-separated labels of 1-63 characters (use the xn-- form for international names)';
  }
  if (labels[labels.length - 1] === 'localhost') return 'must not be a localhost name';
  if (installHosts.some((host) => normalizeDomain(host) === domain)) return 'is a host name of this Vigil install';
  return null;
}

/** CNAME answers compare case- and trailing-dot-insensitively. */
export const sameHost = (a: string, b: string): boolean => normalizeDomain(a) === normalizeDomain(b);
