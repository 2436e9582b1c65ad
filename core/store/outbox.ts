import { QUEUE_NAMES, type QueueName } from '../ports/index.js';

/**
 * The outbox as the table stores it (docs/adr/0004-outbox.md). An item whose state change owes
 * messages carries them in `outbox`, appended by the same conditional write that makes the change,
 * and sits in the sparse outbox-due index (`gsi4`) until a relay has published them and cleared
 * them. Any entity joins by spreading `OUTBOX_ATTRIBUTES` into its attributes: the index fields are
 * plain attributes (not an ElectroDB index), so one key format serves every entity and the safety
 * net reads them all with one query per shard.
 */

/**
 * Where an owed message goes: a queue, or `broadcast` (a live stream event, `body` a
 * BroadcastEvent, handed to the Broadcaster port: the status page streams hear each change once).
 */
export const OUTBOX_DESTINATIONS = [...QUEUE_NAMES, 'broadcast'] as const;
export type OutboxDestination = QueueName | 'broadcast';

/** One owed message. `body` is the message as JSON: ElectroDB keeps only declared keys of a map. */
export type OutboxEntry = { id: string; queue: OutboxDestination; body: string };

/**
 * A clear of an item's whole outbox, offered to the item's next write to fold in (one request
 * where two were): that write removes the outbox fields on the clear's own condition (the outbox
 * still ends with `lastId`, as core/outbox/relay.ts conditions its clear). A write that cannot
 * take it (it owes messages itself, or its condition failed) runs `separately()`, the relay's own
 * clear, before writing. `separately` runs once however often it is called.
 */
export type OutboxClear = { lastId: string; separately(): Promise<void> };

export const OUTBOX_INDEX = 'gsi4';
export const OUTBOX_FIELDS = { entries: 'outbox', lastId: 'outboxId', due: 'gsi4pk', dueAt: 'gsi4sk' } as const;

/** One shard serves a great many pending items; raising it means writers spread and the relay reads each. */
export const OUTBOX_SHARDS: readonly string[] = ['outbox#0'];
export const outboxShardFor = (_id: string): string => OUTBOX_SHARDS[0] ?? 'outbox#0';

export const OUTBOX_ATTRIBUTES = {
  /** Messages owed by this item's last state changes, oldest first; relays remove them once published. */
  outbox: {
    type: 'list',
    items: {
      type: 'map',
      properties: {
        id: { type: 'string', required: true },
        queue: { type: OUTBOX_DESTINATIONS, required: true },
        body: { type: 'string', required: true },
      },
    },
  },
  /** The id of the last entry appended: a relay that saw it clears the whole outbox on that condition. */
  outboxId: { type: 'string' },
  /** The outbox-due index: shard, and when the last entry was written (the safety net reads older ones). */
  outboxDue: { type: 'string', field: OUTBOX_FIELDS.due },
  outboxDueAt: { type: 'string', field: OUTBOX_FIELDS.dueAt },
} as const;
