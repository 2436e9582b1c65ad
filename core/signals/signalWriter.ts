import { BatchWriteItemCommand, PutItemCommand, type AttributeValue, type BatchWriteItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Store } from '../store/service.js';

type StoredItem = Record<string, AttributeValue>;
type Pending = { item: StoredItem; resolve: () => void; reject: (err: unknown) => void };

const BATCH_LIMIT = 25; // DynamoDB's BatchWriteItem maximum
/** One request at a time: the pings that arrive meanwhile share the next one (fewest requests). */
const MAX_IN_FLIGHT = 1;
const UNPROCESSED_RETRIES = 5;

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
    private readonly backoffMs = 10,
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
    let waiting = [...byKey.entries()];
    try {
      for (let attempt = 0; waiting.length > 0; attempt++) {
        if (attempt > UNPROCESSED_RETRIES) throw new Error(`${waiting.length} signals left unprocessed by the store`);
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, this.backoffMs * 2 ** attempt));
        const items = waiting.map(([, group]) => ({ PutRequest: { Item: group.item } }));
        const result = await this.store.hot.send(new BatchWriteItemCommand({ RequestItems: { [this.store.table]: items } }));
        const left = unprocessedKeys(result, this.store.table);
        for (const [key, group] of waiting) if (!left.has(key)) group.pendings.forEach((pending) => pending.resolve());
        waiting = waiting.filter(([key]) => left.has(key));
      }
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
