import { newUlid } from '../ids.js';
import { OUTBOX_FIELDS, outboxShardFor, type OutboxDestination, type OutboxEntry } from '../store/outbox.js';

/** A message a state change owes: where it goes (a queue, or `broadcast`: a stream event) and what it says. */
export type Owed = { queue: OutboxDestination; body: unknown };

/** What a conditional write adds to its item so that it also records `owed`: append the entries, set the rest. */
export type OutboxWrite = {
  entries: OutboxEntry[];
  set: { outboxId: string; outboxDue: string; outboxDueAt: string };
};

/**
 * The outbox part of a state change's write. The entries are appended (never overwritten: an
 * earlier change's messages may still be pending), the item enters the outbox-due index, and
 * `outboxId` names the last entry so a relay can clear exactly what it published.
 */
export function outboxWrite(owed: readonly Owed[], now: Date): OutboxWrite {
  const entries = owed.map(({ queue, body }) => ({ id: newUlid(now.getTime()), queue, body: JSON.stringify(body) }));
  const last = entries.at(-1);
  if (!last) throw new Error('an outbox write owes at least one message');
  return { entries, set: { outboxId: last.id, outboxDue: outboxShardFor(last.id), outboxDueAt: now.toISOString() } };
}

/** The same write in the table's own field names, for requests built without ElectroDB (the ping path). */
export function outboxFields(write: OutboxWrite): { set: Record<string, string>; append: Record<string, OutboxEntry[]> } {
  return {
    set: { [OUTBOX_FIELDS.lastId]: write.set.outboxId, [OUTBOX_FIELDS.due]: write.set.outboxDue, [OUTBOX_FIELDS.dueAt]: write.set.outboxDueAt },
    append: { [OUTBOX_FIELDS.entries]: write.entries },
  };
}
