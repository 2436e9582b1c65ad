import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createHash } from 'node:crypto';
import { DestinationPools } from './pool.js';
import type { Connect, ConnectRequest, ConnectResponse } from './types.js';

/**
 * The node:http/https connector: the only code in Vigil that opens a socket to a user-chosen
 * destination. It never resolves a name itself: the host name stays on the request (so TLS SNI,
 * certificate checks and the Host header see it) while `lookup` answers with the address the
 * guard already approved.
 */

/** Answers Node's lookup for `hostname` with the approved address, and refuses any other name. */
export function pinnedLookup(hostname: string, address: string, family: 4 | 6): LookupFunction {
  return (requested, options, callback) => {
    if (requested.toLowerCase() !== hostname.toLowerCase()) {
      const error: NodeJS.ErrnoException = new Error(`pinned lookup refused ${requested} (pinned to ${hostname})`);
      error.code = 'ERR_PINNED_LOOKUP';
      callback(error, '', 0);
      return;
    }
    // Node 20 asks with `all: true` when it races address families (autoSelectFamily).
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

export type NodeConnectOptions = {
  /** Extra trust anchors (PEM), for self-hosted endpoints and for tests; system roots otherwise. */
  readonly ca?: string | readonly string[];
  /**
   * Keeps sockets alive between requests to the same approved destination (pool.ts says how that
   * keeps the guard's guarantee). For alert deliveries only; none for probes, which measure a
   * fresh connection.
   */
  readonly pools?: DestinationPools;
};

/** A request on a kept-alive socket that the server closed meanwhile fails with one of these before any answer. */
const STALE_SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);

function peerCertificateValidTo(socket: unknown): Date | undefined {
  const tlsSocket = socket as Partial<TLSSocket> | null;
  if (tlsSocket === null || typeof tlsSocket.getPeerCertificate !== 'function') return undefined;
  const validTo = tlsSocket.getPeerCertificate().valid_to;
  if (typeof validTo !== 'string' || validTo === '') return undefined;
  const date = new Date(validTo);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function isIpLiteral(request: ConnectRequest): boolean {
  return request.hostname === request.address;
}

export function createNodeConnect(options: NodeConnectOptions = {}): Connect {
  const { pools } = options;
  // Part of every pooled socket's key: a socket verified against one set of anchors is never lent to a request that trusts another.
  const anchors = options.ca === undefined ? 'system' : createHash('sha256').update([options.ca].flat().join('\n')).digest('hex');
  const connect = (request: ConnectRequest, pooled: boolean): Promise<ConnectResponse> =>
    new Promise<ConnectResponse>((resolve, reject) => {
      const secure = request.url.protocol === 'https:';
      const requestOptions: https.RequestOptions = {
        host: request.hostname,
        port: request.port,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: { host: request.url.host, ...request.headers },
        lookup: pinnedLookup(request.hostname, request.address, request.family),
        // Without pools, none: a kept-alive socket would outlive the decision that approved it.
        // With them, only the pool of this request's own decision (pool.ts).
        agent: pooled && pools ? pools.agentFor(request, anchors) : false,
        signal: request.signal,
      };
      if (secure) {
        // SNI must be a name, never an IP literal (RFC 6066); certificate checks use it too.
        if (!isIpLiteral(request)) requestOptions.servername = request.hostname;
        if (options.ca !== undefined) requestOptions.ca = [...(typeof options.ca === 'string' ? [options.ca] : options.ca)];
      }

      let answered = false;
      const onResponse = (response: http.IncomingMessage): void => {
        answered = true;
        // Errors surface through the body iterator; this keeps an unread, discarded body quiet.
        response.on('error', () => undefined);
        const abortBody = (): void => {
          response.destroy(request.signal.reason instanceof Error ? request.signal.reason : undefined);
        };
        request.signal.addEventListener('abort', abortBody, { once: true });
        response.once('close', () => request.signal.removeEventListener('abort', abortBody));
        const tlsCertValidTo = secure ? peerCertificateValidTo(response.socket) : undefined;
        resolve({
          statusCode: response.statusCode ?? 0,
          headers: response.headers,
          body: response,
          ...(tlsCertValidTo === undefined ? {} : { tlsCertValidTo }),
          discard: () => {
            // A body read to its end has already handed a pooled socket back to its pool.
            if (pooled && response.readableEnded) return;
            response.destroy();
            outgoing.destroy();
          },
        });
      };

      let outgoing: http.ClientRequest;
      try {
        outgoing = secure ? https.request(requestOptions, onResponse) : http.request(requestOptions, onResponse);
      } catch (error) {
        reject(error);
        return;
      }
      // Stays attached after the response too, so a late socket error cannot go unhandled.
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        // The server closed an idle socket as it was reused (the race every keep-alive client
        // has): sent again once on a fresh connection, as Node's documentation advises. Nothing
        // was answered, and a receiver that did see it dedupes on the stable webhook-id.
        if (outgoing.reusedSocket && !answered && !request.signal.aborted && STALE_SOCKET_CODES.has(error.code ?? '')) connect(request, false).then(resolve, reject);
        else reject(error);
      });
      outgoing.end(request.body);
    });
  return (request) => connect(request, pools !== undefined);
}

/** The connector used when none is injected: a fresh connection per request (probes, verifications). */
export const nodeConnect: Connect = createNodeConnect();

/** Alert deliveries' connector: sockets kept alive per approved destination (pool.ts). */
export const alertConnect: Connect = createNodeConnect({ pools: new DestinationPools() });
