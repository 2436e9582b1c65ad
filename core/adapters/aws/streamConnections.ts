import type { Subscription } from '../../ports/index.js';
import type { Store } from '../../store/service.js';
import { NO_USER, STREAM_CONNECTION_TTL_SECONDS } from '../../store/entities/streamConnection.js';

const epochSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

/**
 * The WebSocket connection registry in the table: `$connect` subscribes a connection to what its
 * caller may hear, `$disconnect` (or a post answering Gone) forgets it. Rows carry a TTL, so a
 * connection whose `$disconnect` never ran still disappears.
 */
export async function subscribeConnection(
  store: Store,
  input: { connectionId: string; subscriptions: Subscription[]; userId?: number | undefined; now: Date },
): Promise<void> {
  const expiresAt = epochSeconds(input.now) + STREAM_CONNECTION_TTL_SECONDS;
  const rows = input.subscriptions.map(({ channel, topic }) => ({
    channel,
    topic,
    connectionId: input.connectionId,
    userId: input.userId ?? NO_USER,
    connectedAt: input.now.toISOString(),
    expiresAt,
  }));
  if (rows.length > 0) await store.entities.streamConnection.put(rows).go();
}

export { connectionsOf, forgetConnection } from './connectionRows.js';

/** Connection ids a user opened (the sparse by-user index), expired ones included: closing them is harmless. */
export async function connectionsOfUser(store: Store, userId: number): Promise<string[]> {
  const result = await store.entities.streamConnection.query.byUser({ userId }).go({ pages: 'all', attributes: ['connectionId'] });
  return [...new Set(result.data.map((row) => row.connectionId))];
}
