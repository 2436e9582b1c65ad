import { validateHeaderName, validateHeaderValue } from 'node:http';
import { nodeConnect } from './connect.js';
import { classifyNetworkError } from './failures.js';
import { decideTarget, systemResolver } from './guard.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  MAX_CUSTOM_HEADERS,
  MAX_REDIRECTS_LIMIT,
  OutboundInputError,
  type ConnectResponse,
  type GuardedFailure,
  type GuardedRequestDeps,
  type GuardedRequestInput,
  type GuardedResult,
  type OutboundFailureReason,
} from './types.js';
import { parseTargetUrl, type UrlCheck } from './url.js';

/**
 * guardedRequest: one HTTP exchange with a user-chosen URL. Every hop goes through the guard
 * (parse, resolve once, check every address, pin) before the connector is called, redirects are
 * followed here rather than by a client library so that each hop is judged, and one deadline
 * covers the whole exchange. Network trouble comes back as `{ ok: false, failureReason }`.
 */

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
// Framing and routing stay under the module's control: a caller-set length or Host would let the
// request say something other than what the guard approved.
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);
// A cross-origin hop keeps none of the caller's headers: any of them (an `x-api-key`, not only
// `authorization`) may be a credential meant for the first origin, never for whoever it redirects to.
// Past 2^31-1 ms setTimeout fires at once; nothing Vigil sends needs more than a few minutes.
const MAX_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_HEADERS: Readonly<Record<string, string>> = { 'user-agent': 'Vigil-Probe/1.0', accept: '*/*' };

class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}
/**
 * The reason every finished exchange is torn down with: one instance, since nothing reads it but
 * what was still open, and a new Error per request (its stack captured each time) was about 0.3%
 * of a mass outage's CPU, one per alert sent.
 */
const EXCHANGE_FINISHED = new DeadlineExceeded('exchange finished');

function validateInput(input: GuardedRequestInput): Record<string, string> {
  const fail = (message: string): never => {
    throw new OutboundInputError(message);
  };
  if (!Number.isInteger(input.timeoutMs) || input.timeoutMs <= 0 || input.timeoutMs > MAX_TIMEOUT_MS) {
    fail(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  }
  if (!Number.isInteger(input.maxRedirects) || input.maxRedirects < 0 || input.maxRedirects > MAX_REDIRECTS_LIMIT) {
    fail(`maxRedirects must be an integer from 0 to ${MAX_REDIRECTS_LIMIT}`);
  }
  const cap = input.maxBodyBytes;
  if (cap !== undefined && (!Number.isInteger(cap) || cap < 0)) fail('maxBodyBytes must be a non-negative integer');
  if (!METHODS.has(input.method.toUpperCase())) fail(`method ${input.method} is not supported`);
  const custom = Object.entries(input.headers ?? {});
  if (custom.length > MAX_CUSTOM_HEADERS) fail(`at most ${MAX_CUSTOM_HEADERS} custom headers`);
  const headers: Record<string, string> = { ...DEFAULT_HEADERS };
  for (const [name, value] of custom) {
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch (error) {
      fail(`header ${JSON.stringify(name)} is invalid: ${error instanceof Error ? error.message : String(error)}`);
    }
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) fail(`header ${name} may not be set by the caller`);
    headers[lower] = value;
  }
  return headers;
}

/** Races `work` against the deadline; a result that arrives too late is discarded, not leaked. */
function untilDeadline<T>(work: Promise<T>, signal: AbortSignal, discardLate?: (late: T) => void): Promise<T> {
  if (signal.aborted) {
    work.then(discardLate ?? (() => undefined), () => undefined);
    return Promise.reject(new DeadlineExceeded());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new DeadlineExceeded());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted && discardLate !== undefined) discardLate(value);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function readCapped(response: ConnectResponse, cap: number, signal: AbortSignal): Promise<{ text: string; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  const iterator = response.body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await untilDeadline(iterator.next(), signal);
      if (next.done === true) break;
      const room = cap - kept;
      if (next.value.byteLength > room) {
        chunks.push(next.value.subarray(0, room));
        kept = cap;
        truncated = true;
        break;
      }
      chunks.push(next.value);
      kept += next.value.byteLength;
    }
  } finally {
    // Whatever is left is never read: past the cap, after an error, or after the deadline.
    response.discard();
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks, kept)), truncated };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

type Hop = { method: string; body: string | Uint8Array | undefined; headers: Record<string, string> };

// The body's own type travels with the body; it says nothing about the caller.
const pick = (headers: Record<string, string>, name: string): Record<string, string> => (headers[name] !== undefined ? { [name]: headers[name] } : {});

/** Method and body for the next hop, as browsers and fetch do it (RFC 9110 15.4). */
function nextHop(status: number, hop: Hop, sameOrigin: boolean): Hop {
  const becomesGet = (status === 303 && hop.method !== 'HEAD') || ((status === 301 || status === 302) && hop.method === 'POST');
  const kept = sameOrigin ? { ...hop.headers } : { ...DEFAULT_HEADERS, ...pick(hop.headers, 'content-type') };
  const headers: Record<string, string> = kept;
  if (becomesGet) delete headers['content-type'];
  return becomesGet ? { method: 'GET', body: undefined, headers } : { method: hop.method, body: hop.body, headers };
}

export async function guardedRequest(input: GuardedRequestInput, deps: GuardedRequestDeps = {}): Promise<GuardedResult> {
  const initialHeaders = validateInput(input);
  const now = deps.now ?? (() => performance.now());
  const resolve = deps.resolve ?? systemResolver;
  const connect = deps.connect ?? nodeConnect;
  const allowLoopback = deps.allowLoopback === true;
  const cap = input.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const started = now();
  const elapsed = (): number => Math.max(0, Math.round(now() - started));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded()), input.timeoutMs);
  const signal = controller.signal;

  let lastStatus: number | undefined;
  const failure = (failureReason: OutboundFailureReason, message: string): GuardedFailure => ({
    ok: false,
    failureReason,
    message,
    latencyMs: elapsed(),
    ...(lastStatus === undefined ? {} : { statusCode: lastStatus }),
  });

  let hop: Hop = { method: input.method.toUpperCase(), body: input.body, headers: initialHeaders };
  let check: UrlCheck = parseTargetUrl(input.url);
  try {
    for (let redirects = 0; ; redirects++) {
      if (!check.ok) return failure('SSRF_BLOCKED', check.message);
      const decision = await untilDeadline(decideTarget(check.target, { resolve, allowLoopback }), signal);
      if (!decision.ok) return failure(decision.failureReason, decision.message);

      const current = decision.target.url;
      const response = await untilDeadline(connect({ ...decision.target, ...hop, signal }), signal, (late) => late.discard());
      lastStatus = response.statusCode;
      const location = firstHeader(response.headers['location']);

      if (input.followRedirects && REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
        response.discard();
        if (redirects >= input.maxRedirects) {
          return failure('TOO_MANY_REDIRECTS', `more than ${input.maxRedirects} redirects (next: ${location.slice(0, 200)})`);
        }
        check = parseTargetUrl(location, current);
        if (check.ok && input.blockHttpDowngrade && current.protocol === 'https:' && check.target.url.protocol === 'http:') {
          return failure('HTTP_DOWNGRADE_BLOCKED', `redirect from ${current.origin} to ${check.target.url.origin} downgrades to http`);
        }
        if (check.ok) hop = nextHop(response.statusCode, hop, check.target.url.origin === current.origin);
        continue;
      }

      const { text, truncated } = await readCapped(response, cap, signal);
      return {
        ok: true,
        statusCode: response.statusCode,
        headers: response.headers,
        bodyText: text,
        bodyTruncated: truncated,
        latencyMs: elapsed(),
        finalUrl: current.href,
        ...(response.tlsCertValidTo === undefined ? {} : { tlsCertValidTo: response.tlsCertValidTo }),
      };
    }
  } catch (error) {
    if (signal.aborted || error instanceof DeadlineExceeded) {
      return failure('TIMEOUT', `no complete answer within ${input.timeoutMs} ms`);
    }
    const classified = classifyNetworkError(error);
    return failure(classified.failureReason, classified.message);
  } finally {
    clearTimeout(timer);
    // Tears down anything still open (a connector that ignored the deadline included).
    controller.abort(EXCHANGE_FINISHED);
  }
}
