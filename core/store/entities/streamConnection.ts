import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** API Gateway closes a WebSocket after 2 hours, so no row needs to outlive that. */
export const STREAM_CONNECTION_TTL_SECONDS = 2 * 60 * 60;

/**
 * One subscription of an API Gateway WebSocket connection to a broadcast channel (AWS only; the
 * local runtime keeps its SSE listeners in memory). A connection on several channels has one row
 * per channel. Rows expire by TTL (`expiresAt`, epoch seconds) and readers skip expired rows.
 */
export const createStreamConnectionEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'streamConnection', version: '1', service: 'vigil' },
      attributes: {
        channel: { type: 'string', required: true },
        connectionId: { type: 'string', required: true },
        /** Who opened it, so a later authorization change can close it. */
        userId: { type: 'number' },
        connectedAt: { type: 'string', required: true },
        expiresAt: { type: 'number', required: true },
      },
      indexes: {
        byChannel: {
          pk: { field: 'pk', composite: ['channel'] },
          sk: { field: 'sk', composite: ['connectionId'] },
        },
        byConnection: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['connectionId'] },
          sk: { field: 'gsi1sk', composite: ['channel'] },
        },
      },
    },
    config,
  );

export type StreamConnectionItem = EntityItem<ReturnType<typeof createStreamConnectionEntity>>;
