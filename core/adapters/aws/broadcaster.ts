import { DeleteConnectionCommand, type ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Clock } from '../../clock.js';
import type { Broadcaster } from '../../ports/index.js';
import type { Store } from '../../store/service.js';
import { inBatches, isGone, WebSocketPublisher } from './publisher.js';
import { connectionsOfUser } from './streamConnections.js';

export { encodeStreamEvent } from './publisher.js';

/**
 * The `Broadcaster` port on API Gateway WebSockets: publishing (publisher.ts), plus ending a
 * user's streams when their access changes. Subscribers are rows in the table (see
 * streamConnections.ts); a connection that answers Gone is forgotten.
 */
export class WebSocketBroadcaster extends WebSocketPublisher implements Broadcaster {
  constructor(
    /** The whole store: a user's connections are found through the entity's by-user index. */
    protected override readonly store: Store,
    clock: Clock,
    client: ApiGatewayManagementApiClient | undefined,
  ) {
    super(store, clock, client);
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
}
