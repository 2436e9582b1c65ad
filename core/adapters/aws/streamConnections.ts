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
  input: { connectionId: string; subscriptions: Subscription[]; userId?: number | undefined; address: string; sessionId?: string | undefined; now: Date },
): Promise<void> {
  const expiresAt = epochSeconds(input.now) + STREAM_CONNECTION_TTL_SECONDS;
  const rows = input.subscriptions.map(({ channel, topic }) => ({
    channel,
    topic,
    connectionId: input.connectionId,
    userId: input.userId ?? NO_USER,
    address: input.address,
    ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
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

/** Connection ids one sign-in opened: the user's rows (at most the per-user cap of connections), those of that session. */
export async function connectionsOfSession(store: Store, userId: number, sessionId: string): Promise<string[]> {
  const result = await store.entities.streamConnection.query.byUser({ userId }).go({ pages: 'all', attributes: ['connectionId', 'sessionId'] });
  return [...new Set(result.data.filter((row) => row.sessionId === sessionId).map((row) => row.connectionId))];
}

/**
 * How many live connections an address and a user hold now (the caps at `$connect`): one query
 * each on the by-address and by-user indexes, expired rows not counted. Two connects racing may
 * both pass at the cap; the next one sees both.
 */
export async function openConnections(store: Store, input: { address: string; userId?: number | undefined; now: Date }): Promise<{ fromAddress: number; ofUser: number }> {
  const live = (rows: { connectionId: string; expiresAt: number }[]) => new Set(rows.filter((row) => row.expiresAt > epochSeconds(input.now)).map((row) => row.connectionId)).size;
  const [byAddress, byUser] = await Promise.all([
    store.entities.streamConnection.query.byAddress({ address: input.address }).go({ pages: 'all', attributes: ['connectionId', 'expiresAt'] }),
    input.userId === undefined || input.userId === NO_USER
      ? Promise.resolve({ data: [] })
      : store.entities.streamConnection.query.byUser({ userId: input.userId }).go({ pages: 'all', attributes: ['connectionId', 'expiresAt'] }),
  ]);
  return { fromAddress: live(byAddress.data), ofUser: live(byUser.data) };
}
