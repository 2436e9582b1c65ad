import { HttpError } from './httpError.js';

/**
 * The bounds of open streams, SSE and WebSocket together, in one place (docs/guide/streams.md),
 * and the local registry that holds them. Here, below the areas, because the signal and status
 * streams of the domain admit themselves against them. The 30-new-connections-per-60-s rate
 * limits (core/signals/stream.ts, core/statuspages/events.ts) bound how fast connections open;
 * these bound how many stay open at once.
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

/** One open stream on this process (SSE or WebSocket), with what decides whether it must end. */
export type OpenStream = {
  address: string;
  /** The signed-in user of a signal stream; absent on status page streams. */
  userId?: number | undefined;
  /** The sign-in (refresh family) whose access token opened it: a logout with that refresh token ends it. */
  sessionId?: string | undefined;
  /** The page of a status stream: a stricter access rule on the page ends it. */
  statusPageId?: string | undefined;
  close(): void;
};

/**
 * The open streams of the local runtime (one process serves them all), counted per address and
 * per user at connect and closed by session or by page. Admission is synchronous, so the count
 * and the insert cannot interleave with another connect.
 */
export class StreamRegistry {
  private readonly open = new Set<OpenStream>();

  /** Registers a stream, or throws the 429 of the cap it would pass. Answers its release (idempotent). */
  admit(stream: OpenStream): () => void {
    let fromAddress = 0;
    let ofUser = 0;
    for (const other of this.open) {
      if (other.address === stream.address) fromAddress++;
      if (stream.userId !== undefined && other.userId === stream.userId) ofUser++;
    }
    if (fromAddress >= STREAM_LIMITS.perAddress) throw tooManyStreams('address');
    if (ofUser >= STREAM_LIMITS.perUser) throw tooManyStreams('user');
    this.open.add(stream);
    return () => void this.open.delete(stream);
  }

  /** Closes (and forgets) every open stream that `matches`. */
  closeWhere(matches: (stream: OpenStream) => boolean): void {
    for (const stream of [...this.open]) {
      if (!matches(stream)) continue;
      this.open.delete(stream);
      try {
        stream.close();
      } catch (err) {
        console.error('closing a stream failed', err);
      }
    }
  }

  get size(): number {
    return this.open.size;
  }
}

/**
 * Admits a stream whose closing function exists only once its transport is set up (the SSE body,
 * the upgraded socket): a close asked for in between runs as soon as `onClose` is given.
 */
export function admitStream(registry: StreamRegistry, stream: Omit<OpenStream, 'close'>): { release(): void; onClose(close: () => void): void } {
  let closer: (() => void) | undefined;
  let closed = false;
  const release = registry.admit({
    ...stream,
    close: () => {
      closed = true;
      closer?.();
    },
  });
  return {
    release,
    onClose(close) {
      closer = close;
      if (closed) close();
    },
  };
}
