import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Deps } from '../deps.js';
import { hears, streamMessage } from '../ports/index.js';
import { KEEP_ALIVE_MS } from '../signals/stream.js';
import { canSubscribe } from '../signals/streamEvents.js';
import { signalScopeStillHolds } from '../signals/streamScope.js';
import { answerClientMessage, connectStream, refusal, type ConnectOptions, type StreamScope } from './connect.js';
import { admitStream, STREAM_LIMITS } from '../http/streamLimits.js';

/** The local WebSocket path, under `{base_url}` like everything else. */
export const LOCAL_STREAM_PATH = '/api/ws';
/** A client that stops reading loses events past this many buffered bytes instead of growing memory. */
const MAX_BUFFERED_BYTES = 1 << 20;
/** Close codes in the application range: the access granted at connect no longer holds. */
const ACCESS_CHANGED = 4401;
/** An anonymous connection that sent nothing for the idle bound ends as API Gateway ends idle ones ("going away"). */
const IDLE = 1001;

export type LocalStreams = { clients(): number; close(): void };

/** What is needed of the HTTP server: its upgrade event (`@hono/node-server` types it as a union of server kinds). */
type UpgradeSource = { on(event: 'upgrade', listener: (request: IncomingMessage, socket: Duplex, head: Buffer) => void): unknown };

/**
 * The WebSocket protocol of AWS, served by the embedded server on its HTTP upgrade: the same
 * connect logic and scoping (`connectStream`, `hears`) and the same broadcaster port (the local
 * hub the SSE paths listen on). Refusals are plain HTTP answers to the upgrade request, with the
 * spec's error body, as API Gateway answers a refused `$connect`.
 */
export function attachLocalStreams(server: UpgradeSource, deps: Deps, options: ConnectOptions = {}): LocalStreams {
  // ws closes a connection whose frame or message passes maxPayload with 1009 (message too big).
  const wss = new WebSocketServer({ noServer: true, maxPayload: STREAM_LIMITS.maxPayloadBytes });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== LOCAL_STREAM_PATH) return refuse(socket, 404, JSON.stringify({ statusCode: 404, message: 'Not found', error: 'Not Found' }));
    const query = Object.fromEntries(url.searchParams);
    const address = request.socket.remoteAddress ?? 'unknown';
    connectStream(deps, query, { ip: address }, options)
      .then((scope) => {
        // Over a cap the upgrade is refused with 429 and Retry-After, as API Gateway refuses a `$connect`.
        const admission = canSubscribe(deps.broadcaster)
          ? admitStream(deps.broadcaster.streams, {
              address,
              userId: scope.userId,
              sessionId: scope.sessionId,
              statusPageId: scope.stream === 'status' ? scope.statusPageId : undefined,
            })
          : undefined;
        // Released when the socket closes, upgraded or not (handleUpgrade drops a socket that died meanwhile).
        socket.once('close', () => admission?.release());
        wss.handleUpgrade(request, socket, head, (ws) => {
          admission?.onClose(() => ws.close(ACCESS_CHANGED, 'access changed'));
          serve(deps, ws, scope);
        });
      })
      .catch((err: unknown) => {
        try {
          const { status, body, headers } = refusal(err);
          refuse(socket, status, body, headers);
        } catch (unexpected) {
          console.error('stream connect failed', unexpected);
          refuse(socket, 500, JSON.stringify({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' }));
        }
      });
  });
  return {
    clients: () => wss.clients.size,
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

function serve(deps: Deps, ws: WebSocket, scope: StreamScope): void {
  const broadcaster = deps.broadcaster;
  if (!canSubscribe(broadcaster)) {
    ws.close(1011, 'no local stream hub');
    return;
  }
  const unsubscribe = broadcaster.subscribe((event) => {
    if (hears(scope.subscriptions, event) && ws.bufferedAmount < MAX_BUFFERED_BYTES) ws.send(streamMessage(event));
  });
  const unwatch = broadcaster.onUserStreamsClosed((userId) => {
    if (userId === scope.userId) ws.close(ACCESS_CHANGED, 'access changed');
  });
  // Backstop for revocations that did not go through closeUserStreams, as the SSE keep-alive does.
  const recheck =
    scope.stream === 'signals'
      ? setInterval(() => {
          void signalScopeStillHolds(deps, scope.signal).then(
            (holds) => holds || ws.close(ACCESS_CHANGED, 'access changed'),
            () => undefined,
          );
        }, KEEP_ALIVE_MS)
      : undefined;
  recheck?.unref();
  // An anonymous connection lives while its client speaks (`{"action":"ping"}`), as on API Gateway.
  let heardAt = deps.clock.now().getTime();
  const idle =
    scope.stream === 'status'
      ? setInterval(() => {
          if (deps.clock.now().getTime() - heardAt >= STREAM_LIMITS.anonymousIdleSeconds * 1000) ws.close(IDLE, 'idle');
        }, KEEP_ALIVE_MS)
      : undefined;
  idle?.unref();
  ws.on('message', (data, isBinary) => {
    heardAt = deps.clock.now().getTime();
    ws.send(answerClientMessage(isBinary ? '' : rawText(data)));
  });
  ws.on('error', () => ws.terminate());
  ws.once('close', () => {
    clearInterval(idle);
    clearInterval(recheck);
    unsubscribe();
    unwatch();
  });
}

const rawText = (data: RawData): string => (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');

function refuse(socket: Duplex, status: number, body: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  const reason = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' }[status] ?? 'Error';
  // Our own header values only (Retry-After, RateLimit-*): nothing a client sent is echoed here.
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
