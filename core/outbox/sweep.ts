import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../deps.js';
import { OUTBOX_FIELDS, OUTBOX_INDEX, OUTBOX_SHARDS, type OutboxEntry } from '../store/outbox.js';
import { relayOutbox, type OutboxKey } from './relay.js';

/** Pending entries younger than this are left to the fast path of the write that made them. */
export const OUTBOX_GRACE_MS = 10_000;
const PAGE_SIZE = 100;
const CONCURRENCY = 16;

export type OutboxSweepReport = { read: number; relayed: number; failed: number };

/**
 * The safety net, a sweep step: reads only the items in the outbox-due index written more than
 * `OUTBOX_GRACE_MS` ago (O(pending)), re-reads each consistently (an index read may lag a clear)
 * unless all it owes is in this process's hands, and relays what it still owes. A failure is
 * counted and retried by the next sweep.
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
          ExpressionAttributeNames: { '#due': OUTBOX_FIELDS.due, '#dueAt': OUTBOX_FIELDS.dueAt, '#o': OUTBOX_FIELDS.entries },
          ExpressionAttributeValues: { ':shard': shard, ':cutoff': cutoff },
          ProjectionExpression: 'pk, sk, #o',
          Limit: PAGE_SIZE,
          ExclusiveStartKey: cursor,
        }),
      );
      const items = page.Items ?? [];
      report.read += items.length;
      for (let i = 0; i < items.length; i += CONCURRENCY) {
        await Promise.all(
          items.slice(i, i + CONCURRENCY).map(async (item) => {
            const key = { pk: String(item.pk), sk: String(item.sk) };
            try {
              // Every entry the index's copy names is handed to this process's consumer and not yet
              // settled: nothing to relay, so no consistent read. Behind a mass outage's backlog
              // (8,000 jobs) that was a get for most flips. A copy that lags a newer entry leaves
              // it to the next sweep; a restarted process holds nothing and reads as before.
              if (allHeld(deps, entriesOf(item[OUTBOX_FIELDS.entries]))) return;
              const entries = await pendingEntries(deps, key);
              if (entries.length === 0 || allHeld(deps, entries)) return;
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

/** Handed to this process's own consumer and not yet settled (relay.ts handOffAfterWrite): being delivered, and the settle clears them. */
const allHeld = (deps: Deps, entries: readonly OutboxEntry[]): boolean => entries.length > 0 && entries.every((entry) => deps.queue.holds?.(entry.id) === true);

const entriesOf = (value: unknown): OutboxEntry[] => (Array.isArray(value) ? (value as OutboxEntry[]) : []);

async function pendingEntries(deps: Deps, key: OutboxKey): Promise<OutboxEntry[]> {
  const read = await deps.store.client.send(
    new GetCommand({ TableName: deps.store.table, Key: key, ConsistentRead: true, ProjectionExpression: '#o', ExpressionAttributeNames: { '#o': OUTBOX_FIELDS.entries } }),
  );
  return entriesOf(read.Item?.[OUTBOX_FIELDS.entries]);
}
