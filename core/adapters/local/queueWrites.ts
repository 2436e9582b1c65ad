import { BatchWriteItemCommand, UpdateItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { untilProcessed } from '../../store/batch.js';
import { isConditionalFailure } from '../../store/conditional.js';
import type { QueueMessageItem } from '../../store/entities/queueMessage.js';
import type { Store } from '../../store/service.js';
import { deleteRequest, itemId, leaseInput, messageOf, putRequest, requestId } from './queueItems.js';

/*
 * The local queue's writes of messages (core/adapters/local/queue.ts). In the embedded runtime every
 * store request costs the one busy thread most of a millisecond of CPU (the SDK client's and
 * dynalite's, whatever the request carries), so messages that move together are written together:
 * published ones in a group commit, leased and acknowledged ones a batch at a time. All of them
 * are plain requests on the store's plain client, built by queueItems.ts.
 */

/** DynamoDB's bound on one BatchWriteItem. */
const BATCH_WRITE_LIMIT = 25;

type MessageKey = Pick<QueueMessageItem, 'lane' | 'messageId'>;

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
async function putMessages(store: Store, items: readonly QueueMessageItem[], what: string, stored: (item: QueueMessageItem) => void = () => undefined): Promise<void> {
  for (const chunk of chunks(items)) {
    const byId = new Map(chunk.map((item) => [itemId(item), item]));
    await untilProcessed(
      chunk.map(putRequest),
      async (pending) => {
        const left = await writeBatch(store, pending);
        const again = new Set(left.map(requestId));
        for (const request of pending) {
          const item = byId.get(requestId(request));
          if (item && !again.has(requestId(request))) stored(item);
        }
        return left;
      },
      what,
      { pause: store.pause },
    );
  }
}

/** One BatchWriteItem; answers what the store left unprocessed. */
async function writeBatch(store: Store, requests: WriteRequest[]): Promise<WriteRequest[]> {
  const answer = await store.hot.send(new BatchWriteItemCommand({ RequestItems: { [store.table]: requests } }));
  return answer.UnprocessedItems?.[store.table] ?? [];
}

/** Deletes messages in BatchWriteItems of 25, unconditionally (see `LocalQueue.acknowledgeAll` for why that is safe). */
export async function deleteMessages(store: Store, keys: readonly MessageKey[], what: string): Promise<void> {
  for (const chunk of chunks(keys)) {
    await untilProcessed(chunk.map(deleteRequest), (pending) => writeBatch(store, pending), what, { pause: store.pause });
  }
}

/** One conditional write per message, so they go at once; the batch keeps the query's order. */
export async function leaseEach(store: Store, queue: string, candidates: QueueMessageItem[], leaseEnd: string): Promise<{ taken: QueueMessageItem[]; failure?: unknown }> {
  const claims = await Promise.allSettled(
    candidates.map(async (candidate): Promise<QueueMessageItem | undefined> => {
      try {
        const taken = await store.hot.send(new UpdateItemCommand(leaseInput(store.table, queue, candidate.messageId, candidate.receiveCount, leaseEnd)));
        return { ...candidate, ...(taken.Attributes && messageOf(store, taken.Attributes)) };
      } catch (err) {
        // Acknowledged or taken by another receiver since the query: not ours.
        if (!isConditionalFailure(err)) throw err;
        return undefined;
      }
    }),
  );
  const taken = claims.flatMap((claim) => (claim.status === 'fulfilled' && claim.value !== undefined ? [claim.value] : []));
  const failure = claims.find((claim): claim is PromiseRejectedResult => claim.status === 'rejected');
  return { taken, ...(failure ? { failure: failure.reason } : {}) };
}

/**
 * The leases of a runtime that owns its lanes alone: each message put back whole with its
 * receive count raised, leased until `leaseEnd`, one BatchWriteItem for the batch. Nothing can
 * race the unconditional put: no other runtime receives from these lanes (`ownsStore`), this one
 * runs one delivery pass at a time (`LocalQueue.exclusive`), a pass's parts touch one lane each, and a
 * publish only adds new message ids. The raised count is stored before the consumer sees the
 * message, as with the conditional lease, so a message that kills the process still reaches
 * its dead letter after `maxReceives` receives (`reclaimLeases` at the next boot keeps the count).
 */
export async function leaseTogether(store: Store, candidates: QueueMessageItem[], leaseEnd: string): Promise<{ taken: QueueMessageItem[]; failure?: unknown }> {
  const leased = candidates.map((candidate) => ({ ...candidate, receiveCount: candidate.receiveCount + 1, visibleAt: leaseEnd, leased: true }));
  const stored = new Set<QueueMessageItem>();
  try {
    await putMessages(store, leased, 'leases of the local queue', (item) => stored.add(item));
    return { taken: leased };
  } catch (failure) {
    // Those the store took are leased all the same: handled now, they need not wait out the lease.
    return { taken: leased.filter((item) => stored.has(item)), failure };
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
    const byId = new Map(batch.map((waiting) => [itemId(waiting.item), waiting]));
    try {
      await putMessages(
        this.store,
        batch.map((waiting) => waiting.item),
        'messages of the local queue',
        (item) => {
          byId.get(itemId(item))?.resolve();
          byId.delete(itemId(item));
        },
      );
    } catch (err) {
      for (const waiting of byId.values()) waiting.reject(err);
    }
  }
}
