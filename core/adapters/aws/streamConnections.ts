import type { Store } from '../../store/service.js';
import { STREAM_CONNECTION_TTL_SECONDS } from '../../store/entities/streamConnection.js';

const epochSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

/**
 * The WebSocket connection registry in the table: a `$connect` handler subscribes a connection to
 * the channels its caller may see, `$disconnect` (or a post answering Gone) forgets it. Rows carry
 * a TTL, so a connection whose `$disconnect` never ran still disappears.
 */
export async function subscribeConnection(
  store: Store,
  input: { connectionId: string; channels: string[]; userId?: number; now: Date },
): Promise<void> {
  const expiresAt = epochSeconds(input.now) + STREAM_CONNECTION_TTL_SECONDS;
  const rows = input.channels.map((channel) => ({
    channel,
    connectionId: input.connectionId,
    connectedAt: input.now.toISOString(),
    expiresAt,
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
  }));
  if (rows.length > 0) await store.entities.streamConnection.put(rows).go();
}

/** Connection ids subscribed to a channel and not yet expired, across every page. */
export async function connectionsOf(store: Store, channel: string, now: Date): Promise<string[]> {
  const nowSeconds = epochSeconds(now);
  const result = await store.entities.streamConnection.query
    .byChannel({ channel })
    .where((attr, op) => op.gt(attr.expiresAt, nowSeconds))
    .go({ pages: 'all', attributes: ['connectionId'] });
  return result.data.map((row) => row.connectionId);
}

/** Removes every subscription of a connection (idempotent). */
export async function forgetConnection(store: Store, connectionId: string): Promise<void> {
  const result = await store.entities.streamConnection.query
    .byConnection({ connectionId })
    .go({ pages: 'all', attributes: ['channel', 'connectionId'] });
  if (result.data.length === 0) return;
  await store.entities.streamConnection.delete(result.data.map(({ channel }) => ({ channel, connectionId }))).go();
}
