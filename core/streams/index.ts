/**
 * The streams (docs/guide/streams.md): one connect path and one scoping rule for the WebSocket transports,
 * API Gateway on AWS (`aws.ts`, behind functions/streams.ts) and the embedded server's upgrade
 * (`local.ts`, at `/api/ws`). The SSE paths (core/signals/stream.ts) share the same scope.
 */
export { streamsHandler, type WebSocketEvent, type WebSocketResult } from './aws.js';
export { connectStream, statusPageChannel, STATUS_STREAM_CONNECTION_LIMIT, type ConnectOptions, type StatusPageAccess, type StreamScope } from './connect.js';
export { attachLocalStreams, LOCAL_STREAM_PATH, type LocalStreams } from './local.js';
