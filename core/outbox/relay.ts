import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { BroadcastEvent, Broadcaster, Queue } from '../ports/index.js';
import { isConditionalFailure } from '../store/conditional.js';
import { OUTBOX_FIELDS, type OutboxEntry } from '../store/outbox.js';
import type { Store } from '../store/service.js';

/**
 * The relay (docs/adr/0004-outbox.md): publishes an item's pending messages, then removes them on
 * the condition that they are still the ones it published. It runs right after the write that
 * owed them (the fast path) and in every sweep for whatever is left (the safety net), so a crash
 * or a queue outage between the write and the publish delays a message, never loses it. A relay
 * that dies between publish and clear publishes again next time: consumers are idempotent.
 */

/** The table key of an item that carries an outbox (`pk`/`sk`). */
export type OutboxKey = Record<string, string>;

/** The key of an ElectroDB get, e.g. `itemKey(entities.check.get({ token }))`. */
export function itemKey(request: { params(): Record<string, unknown> }): OutboxKey {
  const key = request.params().Key;
  if (typeof key !== 'object' || key === null) throw new Error('no key in the request');
  return key as OutboxKey;
}

/**
 * What a relay uses: the queue, and the table through its plain client (the relay's two updates
 * are built here as low-level requests, so the ping path relays without the document client).
 * Deps fits; so do the ping Lambda's PingDeps.
 */
export type RelayDeps = {
  queue: Queue;
  store: Pick<Store, 'hot' | 'table'>;
  /** For `broadcast` entries (status page stream events); paths that never owe one (pings) have none. */
  broadcaster?: Pick<Broadcaster, 'publish'>;
};

export type RelayOutcome = 'cleared' | 'partly_cleared' | 'taken';

/**
 * Publishes `entries` (the item's whole outbox as read or written) in order, then clears them.
 * Entries in `delivered` are cleared unpublished: the writer already did their work itself.
 */
export async function relayOutbox(deps: RelayDeps, key: OutboxKey, entries: readonly OutboxEntry[], delivered?: ReadonlySet<string>): Promise<RelayOutcome> {
  const first = entries[0];
  const last = entries.at(-1);
  if (!first || !last) return 'taken';
  for (const run of runsByQueue(entries.filter((entry) => !delivered?.has(entry.id)))) {
    if (run.queue !== 'broadcast') {
      await deps.queue.publish(run.queue, run.bodies);
      continue;
    }
    // A stream event goes to the Broadcaster port; one it could not hand over stays owed like a message.
    const broadcaster = deps.broadcaster;
    if (!broadcaster) throw new Error('a stream event is owed but this relay has no broadcaster');
    for (const body of run.bodies) await broadcaster.publish(body as BroadcastEvent);
  }
  const names = { '#o': OUTBOX_FIELDS.entries, '#oid': OUTBOX_FIELDS.lastId, '#due': OUTBOX_FIELDS.due, '#dueAt': OUTBOX_FIELDS.dueAt };
  const { table, hot } = deps.store;
  const Key = marshall(key);
  try {
    // Nothing was appended since: the item owes nothing any more and leaves the index.
    await hot.send(
      new UpdateItemCommand({
        TableName: table,
        Key,
        UpdateExpression: 'REMOVE #o, #oid, #due, #dueAt',
        ConditionExpression: '#oid = :last',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: marshall({ ':last': last.id }),
      }),
    );
    return 'cleared';
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
  // A later change appended more: remove only what was published (entries only ever leave from
  // the front), and leave the rest, still indexed, to its own writer's relay or the next sweep.
  const n = entries.length;
  try {
    await hot.send(
      new UpdateItemCommand({
        TableName: table,
        Key,
        UpdateExpression: `REMOVE ${entries.map((_, i) => `#o[${i}]`).join(', ')}`,
        ConditionExpression: `#o[0].#id = :first AND #o[${n - 1}].#id = :last`,
        ExpressionAttributeNames: { '#o': OUTBOX_FIELDS.entries, '#id': 'id' },
        ExpressionAttributeValues: marshall({ ':first': first.id, ':last': last.id }),
      }),
    );
    return 'partly_cleared';
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    // Another relay got there first (it published the same messages: at-least-once).
    return 'taken';
  }
}

/** The fast path: never fails the write it follows, because the sweep re-drives what it leaves. */
export async function relayAfterWrite(deps: RelayDeps, key: OutboxKey, entries: readonly OutboxEntry[] | undefined, delivered?: ReadonlySet<string>): Promise<void> {
  if (!entries || entries.length === 0) return;
  // Behind a hand-off of this item that is not settled yet (a ping's recovery right after the
  // sweep's DOWN), this write's messages go the same way, after it: published, they could reach
  // the consumer first, and this clear would take the handed entries out of the outbox unhandled.
  if (delivered === undefined && entries.some((entry) => deps.queue.holds?.(entry.id)) && handOffInOrder(deps, key, entries)) return;
  await relayOutboxAfterWrite(deps, key, entries, delivered);
}

async function relayOutboxAfterWrite(deps: RelayDeps, key: OutboxKey, entries: readonly OutboxEntry[], delivered?: ReadonlySet<string>): Promise<void> {
  try {
    await relayOutbox(deps, key, entries, delivered);
  } catch (err) {
    console.error('outbox relay failed; the sweep will publish the messages', err);
  }
}

/**
 * The fast path of a write whose messages this process's own consumer can take (`Queue.handOff`,
 * the embedded runtime): they go to it without the queue's store, and the outbox is cleared once
 * it has handled them. A status change otherwise costs a publish, a receive, a lease and an
 * acknowledgement in the queue's store (about 0.45 ms of CPU a message, measured on the 2-core
 * machine: two messages a flipping check in a mass outage), for a message whose durable copy is
 * already in the outbox. A crash before the settle leaves the entries to the sweep's relay, as a
 * crash before a publish does (the sweep skips those still held: `Queue.holds`); a message the
 * consumer failed is published then, and retried by the queue as any other. Elsewhere (AWS, or
 * entries for more than one queue) it is `relayAfterWrite`.
 */
export async function handOffAfterWrite(deps: RelayDeps, key: OutboxKey, entries: readonly OutboxEntry[] | undefined): Promise<void> {
  if (!entries || entries.length === 0 || handOffInOrder(deps, key, entries)) return;
  await relayOutboxAfterWrite(deps, key, entries);
}

/**
 * Hands `entries` off behind the hand-offs of this item still in the queue, if it can (true). An
 * entry an earlier write of the item handed off is owed here too (its LATE, when its DOWN is
 * written before the LATE was settled): that hand-off delivers it, and the queue settles it first,
 * so this one counts it as done. Handed twice it would be delivered twice, and published by
 * whichever settle came first.
 */
function handOffInOrder(deps: RelayDeps, key: OutboxKey, entries: readonly OutboxEntry[]): boolean {
  const queue = entries[0]?.queue;
  const handOff = deps.queue.handOff?.bind(deps.queue);
  if (!handOff || queue === undefined || queue === 'broadcast' || !entries.every((entry) => entry.queue === queue)) return false;
  const earlier = entries.filter((entry) => deps.queue.holds?.(entry.id)).map((entry) => entry.id);
  const messages = entries.filter((entry) => !earlier.includes(entry.id)).map((entry) => ({ id: entry.id, body: JSON.parse(entry.body) as unknown }));
  if (messages.length === 0) return true;
  return handOff(queue, { messages, item: itemIdentity(key), settle: (handled) => relayAfterWrite(deps, key, entries, new Set([...earlier, ...handled])) });
}

/** One string per table key (its attributes in name order), for telling two items' hand-offs apart. */
const itemIdentity = (key: OutboxKey): string =>
  Object.keys(key)
    .sort()
    .map((name) => `${name}=${key[name] ?? ''}`)
    .join('\u0000');

/** Consecutive entries for the same queue go out as one publish; the order of the entries is kept. */
export function runsByQueue(entries: readonly OutboxEntry[]): { queue: OutboxEntry['queue']; bodies: unknown[] }[] {
  const runs: { queue: OutboxEntry['queue']; bodies: unknown[] }[] = [];
  for (const entry of entries) {
    const body: unknown = JSON.parse(entry.body);
    const current = runs.at(-1);
    if (current?.queue === entry.queue) current.bodies.push(body);
    else runs.push({ queue: entry.queue, bodies: [body] });
  }
  return runs;
}
