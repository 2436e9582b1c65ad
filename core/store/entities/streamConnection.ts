import { Entity, type EntityConfiguration } from 'electrodb';

/** API Gateway closes a WebSocket after 2 hours, so no row needs to outlive that. */
export const STREAM_CONNECTION_TTL_SECONDS = 2 * 60 * 60;
/** The userId of a connection nobody signed in to open (ElectroDB's sparse-index condition needs a value). */
export const NO_USER = 0;

/**
 * One subscription of an API Gateway WebSocket connection (AWS only; the local runtime keeps its
 * listeners in memory): a channel (`workspace:<id>`, `statuspage:<id>`) and a topic in it (`*`,
 * or `check:<id>` for a stream filtered to one check). The table index is keyed by channel and
 * topic, so a broadcast reads only the rows of the connections that hear it. A connection on
 * several channels has one row per channel. Rows expire by TTL (`expiresAt`, epoch seconds) and
 * readers skip expired rows.
 *
 * Version 2 added the topic to the sort key and the by-user index; version 1 rows (at most two
 * hours old) are simply never read again. The address and session (and the by-address index)
 * came later in version 2: older rows lack them, count for no address and close with no session.
 */
export const createStreamConnectionEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'streamConnection', version: '2', service: 'vigil' },
      attributes: {
        channel: { type: 'string', required: true },
        topic: { type: 'string', required: true },
        connectionId: { type: 'string', required: true },
        /** Who opened it (`NO_USER` on public status streams), so a change of their access can close it. */
        userId: { type: 'number', required: true },
        /** The client address that opened it: the per-address cap counts the rows under it. */
        address: { type: 'string' },
        /** The sign-in (refresh family) whose access token opened it: a logout with that refresh token closes it. */
        sessionId: { type: 'string' },
        connectedAt: { type: 'string', required: true },
        expiresAt: { type: 'number', required: true },
      },
      indexes: {
        byChannel: {
          pk: { field: 'pk', composite: ['channel'] },
          sk: { field: 'sk', composite: ['topic', 'connectionId'] },
        },
        byConnection: {
          index: 'gsi1',
          pk: { field: 'gsi1pk', composite: ['connectionId'] },
          sk: { field: 'gsi1sk', composite: ['channel', 'topic'] },
        },
        /** Sparse: public status streams have no user and stay out of it. */
        byUser: {
          index: 'gsi2',
          condition: (attrs) => attrs.userId !== NO_USER,
          pk: { field: 'gsi2pk', composite: ['userId'] },
          sk: { field: 'gsi2sk', composite: ['connectionId', 'channel', 'topic'] },
        },
        /** Every row written since the address was recorded (older rows lack it, stay out and expire within 2 hours). */
        byAddress: {
          index: 'gsi3',
          pk: { field: 'gsi3pk', composite: ['address'] },
          sk: { field: 'gsi3sk', composite: ['connectionId', 'channel', 'topic'] },
        },
      },
    },
    config,
  );
