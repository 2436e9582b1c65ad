import { PostToConnectionCommand, type ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Clock } from '../../clock.js';
import type { BroadcastEvent, Broadcaster } from '../../ports/index.js';
import type { Store } from '../../store/service.js';
import { connectionsOf, forgetConnection } from './streamConnections.js';

/** Posts in parallel, a bounded number at a time, so a busy channel does not hit the API's burst limit. */
const PARALLEL_POSTS = 25;

/** A WebSocket message carries the stream's one event format, `{type, data}` (core/signals/streamEvents.ts). */
export const encodeStreamEvent = (event: BroadcastEvent): string => JSON.stringify({ type: event.type, data: event.data });

/**
 * The `Broadcaster` port on API Gateway WebSockets. Subscribers are rows in the table (see
 * streamConnections.ts); a connection that answers Gone is forgotten. Stream delivery is
 * best-effort and live-only, so a failed post is logged and never fails the caller's work.
 */
export class WebSocketBroadcaster implements Broadcaster {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Absent when no WebSocket API is deployed: then no connection can exist and publish is a no-op. */
    private readonly client: ApiGatewayManagementApiClient | undefined,
  ) {}

  async publish(event: BroadcastEvent): Promise<void> {
    if (!this.client) return;
    const connectionIds = await connectionsOf(this.store, event.channel, this.clock.now());
    const data = new TextEncoder().encode(encodeStreamEvent(event));
    for (let start = 0; start < connectionIds.length; start += PARALLEL_POSTS) {
      await Promise.all(connectionIds.slice(start, start + PARALLEL_POSTS).map((id) => this.post(id, data)));
    }
  }

  private async post(connectionId: string, data: Uint8Array): Promise<void> {
    try {
      await this.client?.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: data }));
    } catch (err) {
      if ((err as { name?: string }).name === 'GoneException') {
        await forgetConnection(this.store, connectionId).catch((cleanupErr: unknown) => {
          console.error(`forgetting stream connection ${connectionId} failed`, cleanupErr);
        });
        return;
      }
      console.error(`stream post to ${connectionId} failed`, err);
    }
  }
}
