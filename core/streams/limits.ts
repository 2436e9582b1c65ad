import { HttpError } from '../http/errors.js';

/**
 * The bounds of open streams, SSE and WebSocket together, in one place (README "Live streams").
 * The 30-new-connections-per-60-s rate limits (core/signals/stream.ts, core/statuspages/events.ts)
 * bound how fast connections open; these bound how many stay open at once.
 */
export const STREAM_LIMITS = {
  /** Open streams from one client address, of every kind: what one machine on the internet may hold. */
  perAddress: 20,
  /** Open signal streams of one user, across their sessions and both transports. */
  perUser: 10,
  /**
   * An anonymous (status page) stream ends after this long without a message from its client. A
   * WebSocket client keeps it with `{"action":"ping"}`; an SSE client cannot send, so its stream
   * lasts this long and EventSource reconnects (and is checked again). API Gateway's own idle
   * timeout is the same 10 minutes.
   */
  anonymousIdleSeconds: 600,
  /** The largest WebSocket frame or message a client may send (ws's default is 100 MiB); larger closes with 1009. */
  maxPayloadBytes: 64 * 1024,
  /** What a refused connection is told to wait before trying again. */
  retryAfterSeconds: 30,
} as const;

/** The 429 of a connection over a cap: the spec's error shape with Retry-After, on both transports. */
export const tooManyStreams = (by: 'address' | 'user'): HttpError =>
  new HttpError(
    'RATE_LIMITED',
    by === 'address'
      ? `Too many open streams from this address (at most ${STREAM_LIMITS.perAddress}); close one first`
      : `Too many open streams for this user (at most ${STREAM_LIMITS.perUser}); close one first`,
    undefined,
    { 'Retry-After': String(STREAM_LIMITS.retryAfterSeconds) },
  );
