import { forgetConnection, subscribeConnection } from '../adapters/aws/streamConnections.js';
import type { Deps } from '../deps.js';
import { answerClientMessage, connectStream, refusal, type ConnectOptions } from './connect.js';

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

export type WebSocketResult = { statusCode: number; body?: string };

/**
 * The one Lambda behind the WebSocket API. `$connect` runs the shared connect logic and stores
 * the connection's subscriptions (a non-2xx answer refuses the upgrade: 400, 401, 404, 429);
 * `$disconnect` forgets it; `$default` answers each client message, the route returning the
 * reply to the sender (`{"action":"ping"}` -> `{"event":"pong"}`). Events reach connections
 * through the broadcaster (core/adapters/aws/broadcaster.ts), never through this handler.
 */
export function streamsHandler(deps: Deps, options: ConnectOptions = {}) {
  return async (event: WebSocketEvent): Promise<WebSocketResult> => {
    const { routeKey, connectionId } = event.requestContext;
    if (routeKey === '$connect') {
      try {
        const scope = await connectStream(deps, event.queryStringParameters ?? {}, { ip: event.requestContext.identity?.sourceIp ?? 'unknown' }, options);
        await subscribeConnection(deps.store, { connectionId, subscriptions: scope.subscriptions, userId: scope.userId, now: deps.clock.now() });
        return { statusCode: 200 };
      } catch (err) {
        const { status, body } = refusal(err);
        return { statusCode: status, body };
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
