import ipaddr from 'ipaddr.js';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { nodeConnect } from '../../core/outbound/connect.js';
import type { Connect, ConnectRequest, ConnectResponse, ResolvedAddress, Resolver } from '../../core/outbound/types.js';

/**
 * Test helpers. Everything here keeps traffic on 127.0.0.1: "public" addresses exist only as
 * answers of fake resolvers, and the connectors either never connect or send the socket to a
 * loopback test server.
 */

// Written out here on purpose (not imported from the implementation), so the test checks the
// module against an independent list of the ranges an outbound request must never reach.
export const SECURITY_MD_RANGES = [
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

export const LOOPBACK_RANGES: ReadonlySet<string> = new Set(['127.0.0.0/8', '::1/128']);

/** First, last and one middle address of a range, in canonical spelling. */
export function edges(cidr: string): string[] {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  const ipv4 = network.kind() === 'ipv4';
  const first = ipv4 ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
  const last = ipv4 ? ipaddr.IPv4.broadcastAddressFromCIDR(cidr) : ipaddr.IPv6.broadcastAddressFromCIDR(cidr);
  // The midpoint: the first address with the top host bit set (when the range has host bits).
  const bytes = first.toByteArray();
  if (bits < bytes.length * 8) bytes[Math.floor(bits / 8)] = (bytes[Math.floor(bits / 8)] ?? 0) | (0x80 >> (bits % 8));
  const middle = ipaddr.fromByteArray(bytes);
  return [...new Set([first.toString(), middle.toString(), last.toString()])];
}

export const rangeEdgeCases = SECURITY_MD_RANGES.flatMap((cidr) => edges(cidr).map((ip) => ({ cidr, ip })));

export type RecordedRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
};

export type LoopbackServer = {
  port: number;
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

function listen(makeServer: (listener: http.RequestListener) => http.Server | https.Server, handler: Handler, scheme: 'http' | 'https'): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = makeServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        origin: `${scheme}://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** An http server on 127.0.0.1 with an OS-chosen port. */
export function startLoopbackServer(handler: Handler): Promise<LoopbackServer> {
  return listen((listener) => http.createServer(listener), handler, 'http');
}

/** An https server on 127.0.0.1 presenting the given test certificate. */
export function startLoopbackTlsServer(cert: string, key: string, handler: Handler): Promise<LoopbackServer> {
  return listen((listener) => https.createServer({ cert, key }, listener), handler, 'https');
}

/** A port on 127.0.0.1 that was free a moment ago: connecting to it is refused. */
export async function closedLoopbackPort(): Promise<number> {
  const server = await startLoopbackServer(() => undefined);
  await server.close();
  return server.port;
}

/** A resolver answering from a table, recording every question; unknown names are NXDOMAIN. */
export function fakeResolver(answers: Readonly<Record<string, readonly string[]>>): { resolve: Resolver; calls: string[] } {
  const calls: string[] = [];
  const resolve: Resolver = async (hostname) => {
    calls.push(hostname);
    const addresses = answers[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

/** A resolver that must not be asked (literal IPs, refused names). */
export const forbiddenResolver: Resolver = async (hostname) => {
  throw new Error(`test bug: resolver asked for ${hostname}`);
};

/**
 * Records every connect call. Without `forward` it never opens anything (it fails the request),
 * which is what "no socket to a blocked address" tests need.
 */
export function spyConnect(forward?: Connect): { connect: Connect; calls: ConnectRequest[] } {
  const calls: ConnectRequest[] = [];
  const connect: Connect = async (request) => {
    calls.push(request);
    if (forward === undefined) throw Object.assign(new Error('spy connector does not connect'), { code: 'ECONNREFUSED' });
    return forward(request);
  };
  return { connect, calls };
}

/**
 * The real node connector, but every socket goes to 127.0.0.1:port whatever address the guard
 * pinned: lets "public" names from a fake resolver reach a loopback test server.
 */
export function toLoopback(port: number, inner: Connect = nodeConnect): Connect {
  return (request) => inner({ ...request, address: '127.0.0.1', family: 4, port });
}

/** A canned response for connectors that never touch the network. */
export function fakeResponse(
  statusCode: number,
  options: { headers?: Record<string, string>; body?: AsyncIterable<Uint8Array>; tlsCertValidTo?: Date } = {},
): ConnectResponse & { discarded: () => boolean } {
  let discarded = false;
  return {
    statusCode,
    headers: options.headers ?? {},
    body: options.body ?? (async function* () {})(),
    ...(options.tlsCertValidTo === undefined ? {} : { tlsCertValidTo: options.tlsCertValidTo }),
    discard: () => {
      discarded = true;
    },
    discarded: () => discarded,
  };
}

/** An endless body: proves the reader stops at the cap instead of draining the peer. */
export async function* endlessBody(chunkSize: number): AsyncGenerator<Uint8Array> {
  for (;;) yield new Uint8Array(chunkSize).fill(0x61);
}

/**
 * Makes Node's own name lookup fail and record, so a test in which pinning broke fails locally
 * instead of asking a real DNS server. Node's net layer reads `dns.lookup` at connect time.
 * Literal IPs pass through: Node answers those itself without any query (server.listen uses it).
 */
export function installDnsTripwire(): { calls: string[]; restore(): void } {
  const calls: string[] = [];
  const original = dns.lookup;
  const tripwire = (hostname: string, ...rest: unknown[]): void => {
    if (isIP(hostname) !== 0) {
      Reflect.apply(original, dns, [hostname, ...rest]);
      return;
    }
    calls.push(hostname);
    const callback = rest[rest.length - 1];
    if (typeof callback === 'function') {
      process.nextTick(() => callback(Object.assign(new Error(`dns tripwire: lookup of ${hostname}`), { code: 'ENOTFOUND' })));
    }
  };
  Reflect.set(dns, 'lookup', tripwire);
  return { calls, restore: () => Reflect.set(dns, 'lookup', original) };
}
