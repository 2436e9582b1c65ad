import { backoffDelay } from './backoff';

export type LiveState = 'live' | 'reconnecting';

/** What the signal stream sends (core/signals/streamEvents.ts), as `{event, data}` messages. */
export type StreamMessage =
  | { event: 'check'; data: { checkId: number; workspaceId: number; status: string; lastPingAt: string | null; nextDueAt: string | null } }
  | { event: 'signal'; data: { checkId: number; workspaceId: number } }
  | {
      event: 'incident';
      data: { incidentId: number; workspaceId: number; checkId: number | null; state: string; severity: string; change: 'opened' | 'updated' | 'timeline' };
    }
  | { event: 'pong' | 'error'; data?: unknown };

/** API Gateway closes a connection idle for 10 minutes: a ping well inside that keeps it. */
const KEEP_ALIVE_MS = 4 * 60_000;

function parse(raw: unknown): StreamMessage | null {
  if (typeof raw !== 'string') return null;
  try {
    const message = JSON.parse(raw) as { event?: unknown; data?: unknown };
    return typeof message.event === 'string' ? (message as StreamMessage) : null;
  } catch {
    return null;
  }
}

/**
 * One WebSocket to the signal stream that reconnects after any close with exponential backoff and
 * jitter (the attempt count resets once a connection opens), with a fresh URL (a single-use
 * ticket) each time (see streamUrl.ts). `stop` ends it for good.
 */
export function openLiveConnection(options: {
  url: () => Promise<string | null>;
  onMessage: (message: StreamMessage) => void;
  onState: (state: LiveState) => void;
  /** Called after a reconnect: what happened while disconnected was missed, so caches refetch. */
  onResume: () => void;
}): { stop(): void } {
  let stopped = false;
  let socket: WebSocket | null = null;
  let attempt = 0;
  let everOpened = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let keepAlive: ReturnType<typeof setInterval> | undefined;

  const retry = () => {
    if (stopped) return;
    options.onState('reconnecting');
    retryTimer = setTimeout(() => void connect(), backoffDelay(attempt++));
  };

  const connect = async () => {
    let url: string | null = null;
    try {
      url = await options.url();
    } catch {
      url = null;
    }
    if (stopped) return;
    if (url === null) return retry();
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      options.onState('live');
      if (everOpened) options.onResume();
      everOpened = true;
      keepAlive = setInterval(() => ws.send('{"action":"ping"}'), KEEP_ALIVE_MS);
    };
    ws.onmessage = (event: MessageEvent) => {
      const message = parse(event.data);
      if (message) options.onMessage(message);
    };
    // A refused upgrade (401, 429) and a dropped connection both end here; onerror is always followed by onclose.
    ws.onclose = () => {
      clearInterval(keepAlive);
      if (socket === ws) socket = null;
      retry();
    };
  };

  options.onState('reconnecting');
  void connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(keepAlive);
      socket?.close(1000, 'leaving');
      socket = null;
    },
  };
}
