import { untilProcessed } from '../../store/batch.js';
import type { QueueMessageItem } from '../../store/entities/queueMessage.js';
import type { Store } from '../../store/service.js';

/*
 * The local queue's batch writes (core/adapters/local/queue.ts). In the embedded runtime every
 * store request costs the one busy thread most of a millisecond of CPU (the SDK client's and
 * dynalite's, whatever the request carries), so messages that move together are written together:
 * published ones in a group commit, leased and acknowledged ones a batch at a time.
 */

/** DynamoDB's bound on one BatchWriteItem. */
const BATCH_WRITE_LIMIT = 25;

type MessageKey = Pick<QueueMessageItem, 'lane' | 'messageId'>;
const idOf = (key: MessageKey): string => `${key.lane}\u0000${key.messageId}`;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += BATCH_WRITE_LIMIT) out.push(items.slice(start, start + BATCH_WRITE_LIMIT));
  return out;
}

/**
 * Puts whole message items in BatchWriteItems of 25 (what the store leaves unprocessed is sent
 * again). `stored` hears of each item as soon as the store holds it, so a caller whose batch ends
 * in an error still knows which of its items were written.
 */
export async function putMessages(store: Store, items: readonly QueueMessageItem[], what: string, stored: (item: QueueMessageItem) => void = () => undefined): Promise<void> {
  for (const chunk of chunks(items)) {
    await untilProcessed(
      chunk,
      async (pending) => {
        const left = new Set((await store.entities.queueMessage.put(pending).go()).unprocessed.map(idOf));
        const again = pending.filter((item) => left.has(idOf(item)));
        for (const item of pending) if (!left.has(idOf(item))) stored(item);
        return again;
      },
      what,
      { pause: store.pause },
    );
  }
}

/** Deletes messages in BatchWriteItems of 25, unconditionally (see `LocalQueue.acknowledgeAll` for why that is safe). */
export async function deleteMessages(store: Store, keys: readonly MessageKey[], what: string): Promise<void> {
  for (const chunk of chunks(keys)) {
    await untilProcessed(
      chunk.map((key) => ({ lane: key.lane, messageId: key.messageId })),
      async (pending) => (await store.entities.queueMessage.delete(pending).go()).unprocessed.map((key) => ({ lane: key.lane, messageId: key.messageId })),
      what,
      { pause: store.pause },
    );
  }
}

type Waiting = { item: QueueMessageItem; resolve: () => void; reject: (err: unknown) => void };

/**
 * Group commit for publishes, as core/signals/signalWriter.ts does for signals: a publish that
 * finds the writer idle goes out at once; those that arrive while its request is in flight wait
 * and leave together in the next one, up to 25 items. A consumer's batch of 25 messages publishes
 * as each message is handled, one message a call, so under load its publishes share two or three
 * requests instead of taking one each. Each caller's promise settles only once its own items are
 * stored (or their batch has failed), so a publish still resolves only when nothing can be lost.
 */
export class PublishCommit {
  private readonly waiting: Waiting[] = [];
  private inFlight = false;

  constructor(private readonly store: Store) {}

  /** Resolves once the store holds every item; rejects if any of them could not be written. */
  async put(items: readonly QueueMessageItem[]): Promise<void> {
    const written = Promise.all(items.map((item) => new Promise<void>((resolve, reject) => this.waiting.push({ item, resolve, reject }))));
    this.pump();
    await written;
  }

  private pump(): void {
    if (this.inFlight || this.waiting.length === 0) return;
    this.inFlight = true;
    const batch = this.waiting.splice(0, BATCH_WRITE_LIMIT);
    void this.flush(batch).finally(() => {
      this.inFlight = false;
      this.pump();
    });
  }

  private async flush(batch: Waiting[]): Promise<void> {
    const byId = new Map(batch.map((waiting) => [idOf(waiting.item), waiting]));
    try {
      await putMessages(
        this.store,
        batch.map((waiting) => waiting.item),
        'messages of the local queue',
        (item) => {
          byId.get(idOf(item))?.resolve();
          byId.delete(idOf(item));
        },
      );
    } catch (err) {
      for (const waiting of byId.values()) waiting.reject(err);
    }
  }
}
