import { DeleteConnectionCommand, type ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { Clock } from '../../clock.js';
import type { Broadcaster } from '../../ports/index.js';
import type { Store } from '../../store/service.js';
import { inBatches, isGone, WebSocketPublisher } from './publisher.js';
import { statusPageChannel } from '../../statuspages/events.js';
import { connectionsOf, connectionsOfSession, connectionsOfUser } from './streamConnections.js';

export { encodeStreamEvent } from './publisher.js';

/**
 * The `Broadcaster` port on API Gateway WebSockets: publishing (publisher.ts), plus ending a
 * user's, a session's or a status page's streams when access changes. Subscribers are rows in the table (see
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
    await this.drop(`user ${userId}`, () => connectionsOfUser(this.store, userId));
  }

  /** Drops the connections opened with one sign-in's access tokens (found under the user, filtered by session). */
  async closeSessionStreams(userId: number, sessionId: string): Promise<void> {
    await this.drop(`session ${sessionId}`, () => connectionsOfSession(this.store, userId, sessionId));
  }

  /** Drops every connection on a page's channel: its clients reconnect and `$connect` checks them again. */
  async closePageStreams(statusPageId: number): Promise<void> {
    await this.drop(`status page ${statusPageId}`, () => connectionsOf(this.store, statusPageChannel(statusPageId), this.clock.now()));
  }

  private async drop(whose: string, find: () => Promise<string[]>): Promise<void> {
    if (!this.client) return;
    const client = this.client;
    try {
      const connectionIds = await find();
      await inBatches(connectionIds, async (connectionId) => {
        try {
          await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
        } catch (err) {
          if (!isGone(err)) console.error(`closing stream connection ${connectionId} failed`, err);
        }
        await this.forget(connectionId);
      });
    } catch (err) {
      // The change that asked for this is already stored; a stream left open ends at its 2-hour cap.
      console.error(`closing the streams of ${whose} failed`, err);
    }
  }
}
