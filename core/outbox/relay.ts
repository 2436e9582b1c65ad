import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../deps.js';
import type { BroadcastEvent } from '../ports/index.js';
import { isConditionalFailure } from '../store/conditional.js';
import { OUTBOX_FIELDS, OUTBOX_INDEX, OUTBOX_SHARDS, type OutboxEntry } from '../store/outbox.js';

/**
 * The relay (design/reliability.md): publishes an item's pending messages, then removes them on
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

/** Pending entries younger than this are left to the fast path of the write that made them. */
export const OUTBOX_GRACE_MS = 10_000;
const PAGE_SIZE = 100;
const CONCURRENCY = 16;

export type RelayOutcome = 'cleared' | 'partly_cleared' | 'taken';

/**
 * Publishes `entries` (the item's whole outbox as read or written) in order, then clears them.
 * Entries in `delivered` are cleared unpublished: the writer already did their work itself.
 */
export async function relayOutbox(deps: Deps, key: OutboxKey, entries: readonly OutboxEntry[], delivered?: ReadonlySet<string>): Promise<RelayOutcome> {
  const first = entries[0];
  const last = entries.at(-1);
  if (!first || !last) return 'taken';
  for (const run of runsByQueue(entries.filter((entry) => !delivered?.has(entry.id)))) {
    // A stream event goes to the Broadcaster port; one it could not hand over stays owed like a message.
    if (run.queue === 'broadcast') for (const body of run.bodies) await deps.broadcaster.publish(body as BroadcastEvent);
    else await deps.queue.publish(run.queue, run.bodies);
  }
  const names = { '#o': OUTBOX_FIELDS.entries, '#oid': OUTBOX_FIELDS.lastId, '#due': OUTBOX_FIELDS.due, '#dueAt': OUTBOX_FIELDS.dueAt };
  const { table, client } = deps.store;
  try {
    // Nothing was appended since: the item owes nothing any more and leaves the index.
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: 'REMOVE #o, #oid, #due, #dueAt',
        ConditionExpression: '#oid = :last',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':last': last.id },
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
    await client.send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression: `REMOVE ${entries.map((_, i) => `#o[${i}]`).join(', ')}`,
        ConditionExpression: `#o[0].#id = :first AND #o[${n - 1}].#id = :last`,
        ExpressionAttributeNames: { '#o': OUTBOX_FIELDS.entries, '#id': 'id' },
        ExpressionAttributeValues: { ':first': first.id, ':last': last.id },
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
export async function relayAfterWrite(deps: Deps, key: OutboxKey, entries: readonly OutboxEntry[] | undefined, delivered?: ReadonlySet<string>): Promise<void> {
  if (!entries || entries.length === 0) return;
  try {
    await relayOutbox(deps, key, entries, delivered);
  } catch (err) {
    console.error('outbox relay failed; the sweep will publish the messages', err);
  }
}

export type OutboxSweepReport = { read: number; relayed: number; failed: number };

/**
 * The safety net, a sweep step: reads only the items in the outbox-due index written more than
 * `OUTBOX_GRACE_MS` ago (O(pending)), re-reads each consistently (an index read may lag a clear)
 * and relays what it still owes. A failure is counted and retried by the next sweep.
 */
export async function relayPendingOutboxes(deps: Deps, now: Date): Promise<OutboxSweepReport> {
  const report: OutboxSweepReport = { read: 0, relayed: 0, failed: 0 };
  const cutoff = new Date(now.getTime() - OUTBOX_GRACE_MS).toISOString();
  for (const shard of OUTBOX_SHARDS) {
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await deps.store.client.send(
        new QueryCommand({
          TableName: deps.store.table,
          IndexName: OUTBOX_INDEX,
          KeyConditionExpression: '#due = :shard AND #dueAt <= :cutoff',
          ExpressionAttributeNames: { '#due': OUTBOX_FIELDS.due, '#dueAt': OUTBOX_FIELDS.dueAt },
          ExpressionAttributeValues: { ':shard': shard, ':cutoff': cutoff },
          ProjectionExpression: 'pk, sk',
          Limit: PAGE_SIZE,
          ExclusiveStartKey: cursor,
        }),
      );
      const keys = (page.Items ?? []).map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
      report.read += keys.length;
      for (let i = 0; i < keys.length; i += CONCURRENCY) {
        await Promise.all(
          keys.slice(i, i + CONCURRENCY).map(async (key) => {
            try {
              const entries = await pendingEntries(deps, key);
              if (entries.length === 0) return;
              await relayOutbox(deps, key, entries);
              report.relayed += entries.length;
            } catch (err) {
              console.error('outbox sweep: could not relay', key, err);
              report.failed++;
            }
          }),
        );
      }
      cursor = page.LastEvaluatedKey;
    } while (cursor);
  }
  return report;
}

async function pendingEntries(deps: Deps, key: OutboxKey): Promise<OutboxEntry[]> {
  const read = await deps.store.client.send(
    new GetCommand({ TableName: deps.store.table, Key: key, ConsistentRead: true, ProjectionExpression: '#o', ExpressionAttributeNames: { '#o': OUTBOX_FIELDS.entries } }),
  );
  const entries = read.Item?.[OUTBOX_FIELDS.entries];
  return Array.isArray(entries) ? (entries as OutboxEntry[]) : [];
}

/** Consecutive entries for the same queue go out as one publish; the order of the entries is kept. */
function runsByQueue(entries: readonly OutboxEntry[]): { queue: OutboxEntry['queue']; bodies: unknown[] }[] {
  const runs: { queue: OutboxEntry['queue']; bodies: unknown[] }[] = [];
  for (const entry of entries) {
    const body: unknown = JSON.parse(entry.body);
    const current = runs.at(-1);
    if (current?.queue === entry.queue) current.bodies.push(body);
    else runs.push({ queue: entry.queue, bodies: [body] });
  }
  return runs;
}
