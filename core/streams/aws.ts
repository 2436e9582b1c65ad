import { forgetConnection, openConnections, subscribeConnection } from '../adapters/aws/streamConnections.js';
import type { Deps } from '../deps.js';
import { answerClientMessage, connectStream, refusal, type ConnectOptions } from './connect.js';
import { STREAM_LIMITS, tooManyStreams } from '../http/streamLimits.js';

/** The parts of an API Gateway WebSocket (v2) event the stream handler reads. */
export type WebSocketEvent = {
  requestContext: {
    routeKey: string;
    connectionId: string;
    identity?: { sourceIp?: string };
  };
  queryStringParameters?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
};

export type WebSocketResult = { statusCode: number; body?: string; headers?: Record<string, string> };

/**
 * The one Lambda behind the WebSocket API. `$connect` runs the shared connect logic and stores
 * the connection's subscriptions (a non-2xx answer refuses the upgrade: 400, 401, 404, 429, the
 * last also for an address or user already at its open-connection cap, counted on the table's
 * by-address and by-user indexes);
 * `$disconnect` forgets it; `$default` answers each client message, the route returning the
 * reply to the sender (`{"action":"ping"}` -> `{"event":"pong"}`). Events reach connections
 * through the broadcaster (core/adapters/aws/broadcaster.ts), never through this handler.
 */
export function streamsHandler(deps: Deps, options: ConnectOptions = {}) {
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const { routeKey, connectionId } = event.requestContext;
    if (routeKey === '$connect') {
      try {
        const address = event.requestContext.identity?.sourceIp ?? 'unknown';
        const scope = await connectStream(deps, event.queryStringParameters ?? {}, { ip: address }, options);
        const now = deps.clock.now();
        const open = await openConnections(deps.store, { address, userId: scope.userId, now });
        if (open.fromAddress >= STREAM_LIMITS.perAddress) throw tooManyStreams('address');
        if (open.ofUser >= STREAM_LIMITS.perUser) throw tooManyStreams('user');
        await subscribeConnection(deps.store, { connectionId, subscriptions: scope.subscriptions, userId: scope.userId, address, sessionId: scope.sessionId, now });
        return { statusCode: 200 };
      } catch (err) {
        const { status, body, headers } = refusal(err);
        return { statusCode: status, body, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
      }
    }
    if (routeKey === '$disconnect') {
      await forgetConnection(deps.store, connectionId);
      return { statusCode: 200 };
    }
    const raw = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : (event.body ?? '');
    return { statusCode: 200, body: answerClientMessage(raw) };
  };
}
