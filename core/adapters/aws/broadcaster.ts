import { DeleteConnectionCommand, PostToConnectionCommand, type ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Clock } from '../../clock.js';
import { streamMessage, type BroadcastEvent, type Broadcaster } from '../../ports/index.js';
import type { Store } from '../../store/service.js';
import { connectionsOf, connectionsOfUser, forgetConnection } from './streamConnections.js';

/** Posts in parallel, a bounded number at a time, so a busy channel does not hit the API's burst limit. */
const PARALLEL_POSTS = 25;

/** A WebSocket message carries the stream's one event format (`streamMessage` in core/ports). */
export const encodeStreamEvent = (event: BroadcastEvent): string => streamMessage(event);

const isGone = (err: unknown): boolean => (err as { name?: string }).name === 'GoneException';

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
    const connectionIds = await connectionsOf(this.store, event.channel, this.clock.now(), event.topic);
    const data = new TextEncoder().encode(encodeStreamEvent(event));
    await inBatches(connectionIds, (id) => this.post(id, data));
  }

  /** Drops each of the user's connections at API Gateway (which then runs `$disconnect`) and forgets them now. */
  async closeUserStreams(userId: number): Promise<void> {
    if (!this.client) return;
    const client = this.client;
    try {
      const connectionIds = await connectionsOfUser(this.store, userId);
      await inBatches(connectionIds, async (connectionId) => {
        try {
          await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
        } catch (err) {
          if (!isGone(err)) console.error(`closing stream connection ${connectionId} failed`, err);
        }
        await this.forget(connectionId);
      });
    } catch (err) {
      // The revocation that asked for this is already stored; a stream left open ends at its 2-hour cap.
      console.error(`closing the streams of user ${userId} failed`, err);
    }
  }

  private async post(connectionId: string, data: Uint8Array): Promise<void> {
    try {
      await this.client?.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: data }));
    } catch (err) {
      if (isGone(err)) return this.forget(connectionId);
      console.error(`stream post to ${connectionId} failed`, err);
    }
  }

  private async forget(connectionId: string): Promise<void> {
    await forgetConnection(this.store, connectionId).catch((cleanupErr: unknown) => {
      console.error(`forgetting stream connection ${connectionId} failed`, cleanupErr);
    });
  }
}

async function inBatches(ids: string[], work: (id: string) => Promise<void>): Promise<void> {
  for (let start = 0; start < ids.length; start += PARALLEL_POSTS) {
    await Promise.all(ids.slice(start, start + PARALLEL_POSTS).map(work));
  }
}
