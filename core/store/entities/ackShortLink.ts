import { Entity, type EntityConfiguration } from 'electrodb';

/**
 * A short acknowledge/resolve link (core/alerting/ackLinks.ts): the claims a signed link carries,
 * stored under the SHA-256 of a random 128-bit id, so an SMS spends some 22 characters on the link
 * rather than a whole signed token. Only the hash is stored: a read of the table yields no usable
 * link. `expiresAt` (epoch seconds) is the table's TTL attribute; the reader checks it too, since
 * TTL deletion lags.
 */
export const createAckShortLinkEntity = (config: EntityConfiguration) =>
  new Entity(
    {
      model: { entity: 'ackShortLink', version: '1', service: 'vigil' },
      attributes: {
        idHash: { type: 'string', required: true },
        incidentId: { type: 'number', required: true },
        action: { type: ['acknowledge', 'resolve'] as const, required: true },
        /** The recipient as the signed link encodes it (`c:<channelId>` or `p:<email>`). */
        recipient: { type: 'string', required: true },
        createdAt: { type: 'string', required: true },
        expiresAt: { type: 'number', required: true },
      },
      indexes: {
        byHash: { pk: { field: 'pk', composite: ['idHash'] }, sk: { field: 'sk', composite: [] } },
      },
    },
    config,
  );
