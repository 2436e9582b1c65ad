import { BatchWriteItemCommand, PutItemCommand, type AttributeValue, type BatchWriteItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { untilProcessed } from '../store/batch.js';
import { marshallItem } from '../store/flatItems.js';
import type { Store } from '../store/service.js';

type StoredItem = Record<string, AttributeValue>;
type Pending = { item: StoredItem; resolve: () => void; reject: (err: unknown) => void };

const BATCH_LIMIT = 25; // DynamoDB's BatchWriteItem maximum
/** One request at a time: the pings that arrive meanwhile share the next one (fewest requests). */
const MAX_IN_FLIGHT = 1;
/** Requests one batch may take before its unprocessed signals are refused. */
const ATTEMPTS = 6;

/**
 * Group commit for signal puts. Puts that arrive while a request is in flight wait and leave
 * together in one BatchWriteItem. A put that finds the writer idle goes out at once, unless a
 * ping's check update is in flight (`updateInFlight`): that ping's signal follows within a turn of
 * its answer, so the put waits for the updates in flight when it arrived (never for later ones)
 * and leaves with their signals. A lone ping (and every Lambda invocation) therefore still makes
 * one PutItem at once, while pings that overlap, even at a steady 200 a second, share one request:
 * the same write units, fewer requests, and no wait longer than an update already under way. Each
 * caller's promise settles only when its own item is stored, so a ping still answers 200 only
 * after its signal is (docs/adr/0011-one-update-per-ping.md).
 */
export class SignalWriter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  /** Check updates of pings in flight: each one's signal is about to follow. */
  private readonly updates = new Set<object>();
  /** The updates the queued puts wait for (those in flight when the first of them arrived). */
  private awaited: Set<object> | undefined;

  constructor(
    private readonly store: Pick<Store, 'hot' | 'table'>,
    /** The wait before the first resend of unprocessed items (doubled for each one after). */
    private readonly backoffMs = 20,
  ) {}

  /** Stores `item` (as the document client would write it); settles once it is stored. */
  write(item: Record<string, unknown>): Promise<void> {
    const stored = marshallItem(item);
    return new Promise<void>((resolve, reject) => {
      // Puts queued behind a request in flight go when it ends: they have waited already.
      if (this.inFlight === 0 && this.queue.length === 0 && this.updates.size > 0) this.awaited = new Set(this.updates);
      this.queue.push({ item: stored, resolve, reject });
      this.pump();
    });
  }

  /**
   * Says that a ping's check update is being sent; the returned function says it has answered
   * (call it however the update ended). A put waiting for it leaves a turn later: by then the
   * ping's own put has joined it, unless the ping had more to do first or stores no signal.
   */
  updateInFlight(): () => void {
    const update = {};
    this.updates.add(update);
    return () => {
      this.updates.delete(update);
      if (this.awaited?.delete(update) && this.awaited.size === 0) setImmediate(() => this.pump());
    };
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      if (this.awaited && this.awaited.size > 0) return;
      this.awaited = undefined;
      const batch = this.queue.splice(0, BATCH_LIMIT);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    const [only] = batch;
    if (batch.length === 1 && only) {
      try {
        await this.store.hot.send(new PutItemCommand({ TableName: this.store.table, Item: only.item }));
        only.resolve();
      } catch (err) {
        only.reject(err);
      }
      return;
    }
    // A batch may not name one key twice (an idempotent signal written by concurrent requests):
    // such puts share one request item, the last one's, and settle together.
    const byKey = new Map<string, { item: StoredItem; pendings: Pending[] }>();
    for (const pending of batch) {
      const key = keyOf(pending.item);
      const group = byKey.get(key);
      if (group) {
        group.item = pending.item;
        group.pendings.push(pending);
      } else byKey.set(key, { item: pending.item, pendings: [pending] });
    }
    // What the store has not taken yet: rejected with the error if that is how the batch ends.
    let waiting = [...byKey.entries()];
    try {
      await untilProcessed(
        waiting,
        async (pending) => {
          const items = pending.map(([, group]) => ({ PutRequest: { Item: group.item } }));
          const result = await this.store.hot.send(new BatchWriteItemCommand({ RequestItems: { [this.store.table]: items } }));
          const left = unprocessedKeys(result, this.store.table);
          // Each caller hears as soon as its own item is stored, not when the whole batch is.
          for (const [key, group] of pending) if (!left.has(key)) group.pendings.forEach((settled) => settled.resolve());
          waiting = pending.filter(([key]) => left.has(key));
          return waiting;
        },
        'signals',
        { attempts: ATTEMPTS, firstDelayMs: this.backoffMs },
      );
    } catch (err) {
      for (const [, group] of waiting) group.pendings.forEach((pending) => pending.reject(err));
    }
  }
}

const keyOf = (item: StoredItem): string => `${String(item.pk?.S)}\u0000${String(item.sk?.S)}`;

function unprocessedKeys(result: BatchWriteItemCommandOutput, table: string): Set<string> {
  const keys = new Set<string>();
  for (const request of result.UnprocessedItems?.[table] ?? []) {
    if (request.PutRequest?.Item) keys.add(keyOf(request.PutRequest.Item));
  }
  return keys;
}

const writers = new WeakMap<object, SignalWriter>();

/** One writer per store, so every path of one process shares the group commit. */
export function signalWriterFor(store: Pick<Store, 'hot' | 'table'>): SignalWriter {
  let writer = writers.get(store);
  if (!writer) {
    writer = new SignalWriter(store);
    writers.set(store, writer);
  }
  return writer;
}
