import { PostToConnectionCommand, type ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Clock } from '../../clock.js';
import { streamMessage, type BroadcastEvent, type Broadcaster } from '../../ports/index.js';
import type { Store } from '../../store/service.js';
import { connectionsOf, forgetConnection } from './connectionRows.js';

/** Posts in parallel, a bounded number at a time, so a busy channel does not hit the API's burst limit. */
const PARALLEL_POSTS = 25;

/** A WebSocket message carries the stream's one event format (`streamMessage` in core/ports). */
export const encodeStreamEvent = (event: BroadcastEvent): string => streamMessage(event);

export const isGone = (err: unknown): boolean => (err as { name?: string }).name === 'GoneException';

/**
 * The publishing half of the `Broadcaster` port on API Gateway WebSockets: subscribers are rows
 * in the table (streamConnections.ts), read and forgotten with plain requests (connectionRows.ts),
 * so the ping Lambda publishes with this alone. WebSocketBroadcaster (broadcaster.ts) adds closing
 * a user's streams. Stream delivery is best-effort and live-only, so a failed post is logged and
 * never fails the caller's work.
 */
export class WebSocketPublisher implements Pick<Broadcaster, 'publish'> {
  constructor(
    protected readonly store: Pick<Store, 'hot' | 'table'>,
    protected readonly clock: Clock,
    /** Absent when no WebSocket API is deployed: then no connection can exist and publish is a no-op. */
    protected readonly client: ApiGatewayManagementApiClient | undefined,
  ) {}

  async publish(event: BroadcastEvent): Promise<void> {
    if (!this.client) return;
    const connectionIds = await connectionsOf(this.store, event.channel, this.clock.now(), event.topic);
    const data = new TextEncoder().encode(encodeStreamEvent(event));
    await inBatches(connectionIds, (id) => this.post(id, data));
  }

  private async post(connectionId: string, data: Uint8Array): Promise<void> {
    try {
      await this.client?.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: data }));
    } catch (err) {
      if (isGone(err)) return this.forget(connectionId);
      console.error(`stream post to ${connectionId} failed`, err);
    }
  }

  protected async forget(connectionId: string): Promise<void> {
    await forgetConnection(this.store, connectionId).catch((cleanupErr: unknown) => {
      console.error(`forgetting stream connection ${connectionId} failed`, cleanupErr);
    });
  }
}

export async function inBatches(ids: string[], work: (id: string) => Promise<void>): Promise<void> {
  for (let start = 0; start < ids.length; start += PARALLEL_POSTS) {
    await Promise.all(ids.slice(start, start + PARALLEL_POSTS).map(work));
  }
}
