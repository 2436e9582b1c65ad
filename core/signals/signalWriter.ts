import { BatchWriteItemCommand, PutItemCommand, type AttributeValue, type BatchWriteItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { untilProcessed } from '../store/batch.js';
import type { Store } from '../store/service.js';

type StoredItem = Record<string, AttributeValue>;
type Pending = { item: StoredItem; resolve: () => void; reject: (err: unknown) => void };

const BATCH_LIMIT = 25; // DynamoDB's BatchWriteItem maximum
/** One request at a time: the pings that arrive meanwhile share the next one (fewest requests). */
const MAX_IN_FLIGHT = 1;
/** Requests one batch may take before its unprocessed signals are refused. */
const ATTEMPTS = 6;

/**
 * Group commit for signal puts. A put goes out at once when the writer is idle; puts that arrive
 * while requests are in flight wait and leave together in one BatchWriteItem. A lone ping (and
 * every Lambda invocation) therefore still makes one PutItem, while a busy local server shares
 * one request among many pings: the same write units, far fewer requests. Each caller's promise
 * settles only when its own item is stored, so a ping still answers 200 only after its signal is.
 */
export class SignalWriter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly store: Pick<Store, 'hot' | 'table'>,
    /** The wait before the first resend of unprocessed items (doubled for each one after). */
    private readonly backoffMs = 20,
  ) {}

  /** Stores `item` (as the document client would write it); settles once it is stored. */
  write(item: Record<string, unknown>): Promise<void> {
    const stored = marshall(item, { removeUndefinedValues: true });
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item: stored, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
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
