/** Shared shapes of the outbound module: what callers pass in, what they get back, the seams. */

export const OUTBOUND_FAILURE_REASONS = ['SSRF_BLOCKED', 'TIMEOUT', 'DNS_ERROR', 'CONNECTION_ERROR', 'TLS_ERROR', 'TOO_MANY_REDIRECTS', 'HTTP_DOWNGRADE_BLOCKED'] as const;
export type OutboundFailureReason = (typeof OUTBOUND_FAILURE_REASONS)[number];

export const MAX_CUSTOM_HEADERS = 10;
export const MAX_REDIRECTS_LIMIT = 3;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export type GuardedRequestInput = {
  readonly url: string;
  readonly method: string;
  /** Caller-chosen headers, at most MAX_CUSTOM_HEADERS. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** One deadline for the whole exchange: lookups, every redirect hop and the body. */
  readonly timeoutMs: number;
  readonly followRedirects: boolean;
  /** 0-3; a further hop fails with TOO_MANY_REDIRECTS. */
  readonly maxRedirects: number;
  readonly blockHttpDowngrade: boolean;
  /** Bytes of the final body kept; the rest is never read. Default DEFAULT_MAX_BODY_BYTES. */
  readonly maxBodyBytes?: number;
};

export type ResolvedAddress = { readonly address: string; readonly family: number };

/** Answers every address for a name (the shape of `dns.promises.lookup(name, { all: true })`). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** A destination after the guard has approved it: the only address a socket may be opened to. */
export type PinnedTarget = {
  /** The URL as parsed once by the guard: path, query and Host header come from it. */
  readonly url: URL;
  /** Host name without IPv6 brackets; used for TLS SNI and certificate checks when it is a name. */
  readonly hostname: string;
  /** The validated address; connecting anywhere else is a bug. */
  readonly address: string;
  readonly family: 4 | 6;
  readonly port: number;
};

export type ConnectRequest = PinnedTarget & {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Aborted when the overall deadline passes; the connection must be torn down then. */
  readonly signal: AbortSignal;
};

export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

export type ConnectResponse = {
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  readonly body: AsyncIterable<Uint8Array>;
  /** Peer certificate `valid_to` for https, captured while the socket is still attached. */
  readonly tlsCertValidTo?: Date;
  /** Stops reading and releases the connection (the rest of the body is not wanted). */
  discard(): void;
};

/** The single place a socket is opened. Injectable so tests can prove it is never called. */
export type Connect = (request: ConnectRequest) => Promise<ConnectResponse>;

export type GuardedRequestDeps = {
  readonly resolve?: Resolver;
  readonly connect?: Connect;
  /** VIGIL_PROBE_ALLOW_PRIVATE: opens 127/8 and ::1 only. */
  readonly allowLoopback?: boolean;
  /** Monotonic milliseconds for latency; defaults to performance.now. */
  readonly now?: () => number;
};

export type GuardedSuccess = {
  readonly ok: true;
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  /** UTF-8 text of at most maxBodyBytes bytes of the final response. */
  readonly bodyText: string;
  /** True when the body was longer than maxBodyBytes and the rest was not read. */
  readonly bodyTruncated: boolean;
  readonly latencyMs: number;
  readonly finalUrl: string;
  readonly tlsCertValidTo?: Date;
};

export type GuardedFailure = {
  readonly ok: false;
  readonly failureReason: OutboundFailureReason;
  readonly message: string;
  readonly latencyMs: number;
  /** The status of the last response seen, when the failure came after one (e.g. a redirect). */
  readonly statusCode?: number;
};

export type GuardedResult = GuardedSuccess | GuardedFailure;

/**
 * Thrown (never for network trouble) when the caller passes options the API schema should have
 * refused already: more than 10 headers, maxRedirects outside 0-3, a bad timeout or header.
 */
export class OutboundInputError extends Error {
  override readonly name = 'OutboundInputError';
}
