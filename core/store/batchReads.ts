/**
 * Reads shared by the messages of one queue batch (core/outbox/consumer.ts): a project's window
 * holds, a workspace's escalation policies and channels, the status components showing a target.
 * A mass outage brings batches of messages about checks of the same projects, and each message
 * read the same configuration again (a third of a flip's store requests). A batch's worker makes
 * one of these and passes it down in its deps (`Deps.batchReads`); whatever runs without one reads
 * the store each time.
 *
 * What a message sees is then as of the batch's first read of it, a few milliseconds earlier at
 * most: the same race a message handled a moment sooner would have run. Only configuration that
 * a message's own handling never writes is read through here, with one exception: an alert
 * channel that answers 410 Gone is disabled mid-batch, and that write clears the batch's reads
 * (core/alerting/delivery.ts), so no later message of the batch sends to it. What is cached is
 * the read's promise, so messages handled at once share one request. A failed read is not kept.
 */
export type BatchReads = Map<string, Promise<unknown>>;

export const newBatchReads = (): BatchReads => new Map();

export function readOncePerBatch<T>(deps: { batchReads?: BatchReads | undefined }, key: string, read: () => Promise<T>): Promise<T> {
  const reads = deps.batchReads;
  if (!reads) return read();
  const found = reads.get(key);
  if (found) return found as Promise<T>;
  const pending = read();
  reads.set(key, pending);
  pending.catch(() => reads.delete(key));
  return pending;
}

/** A value the batch already knows (what a message carries), for later reads of `key` in the batch; the first one known is kept. */
export function knownForBatch<T>(deps: { batchReads?: BatchReads | undefined }, key: string, value: T): void {
  if (deps.batchReads && !deps.batchReads.has(key)) deps.batchReads.set(key, Promise.resolve(value));
}
