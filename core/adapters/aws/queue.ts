import { SendMessageBatchCommand, type BatchResultErrorEntry, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import type { Queue, QueueName } from '../../ports/index.js';
import { AGAIN, retry } from '../../retry.js';
import { queueUrlVariable } from './envNames.js';

/** SQS accepts at most 10 entries per batch. */
const MAX_ENTRIES = 10;
/**
 * A batch may carry at most 256 KiB in total in every region (some now allow more); staying under
 * it keeps one oversized body from failing its nine neighbours.
 */
const MAX_BATCH_BYTES = 256 * 1024;
/** Entries SQS refused for a transient reason are sent again this many times before we give up. */
const RETRIES = 2;

/**
 * The `Queue` port on SQS. Bodies are JSON. A publish resolves only when SQS holds every message,
 * so a caller that answers 200 afterwards loses nothing; otherwise it throws.
 */
export class SqsQueue implements Queue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrls: Partial<Record<QueueName, string>>,
  ) {}

  async publish(queue: QueueName, bodies: unknown[]): Promise<void> {
    if (bodies.length === 0) return;
    const queueUrl = this.queueUrls[queue];
    if (!queueUrl) throw new Error(`${queueUrlVariable(queue)} is not set for this function`);
    for (const chunk of chunkEntries(bodies.map((body) => JSON.stringify(body)))) {
      await this.sendChunk(queueUrl, chunk);
    }
  }

  private async sendChunk(queueUrl: string, entries: SendMessageBatchRequestEntry[]): Promise<void> {
    let pending = entries;
    let failed: BatchResultErrorEntry[] = [];
    await retry<undefined>(
      async () => {
        const result = await this.client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }));
        failed = result.Failed ?? [];
        if (failed.length === 0) return undefined;
        if (failed.some((entry) => entry.SenderFault)) throw refused(queueUrl, failed);
        const failedIds = new Set(failed.map((entry) => entry.Id));
        pending = pending.filter((entry) => failedIds.has(entry.Id));
        return AGAIN;
      },
      { attempts: RETRIES + 1 },
      () => {
        throw refused(queueUrl, failed);
      },
    );
  }
}

function refused(queueUrl: string, failed: readonly BatchResultErrorEntry[]): Error {
  const first = failed[0];
  return new Error(`SQS refused ${failed.length} message(s) on ${queueUrl}: ${first?.Code ?? '?'} ${first?.Message ?? ''}`.trim());
}

/** Groups JSON bodies into batches of at most 10 entries and 256 KiB; entry ids are unique per batch. */
export function chunkEntries(jsonBodies: string[]): SendMessageBatchRequestEntry[][] {
  const chunks: SendMessageBatchRequestEntry[][] = [];
  let current: SendMessageBatchRequestEntry[] = [];
  let bytes = 0;
  for (const body of jsonBodies) {
    const size = Buffer.byteLength(body, 'utf8');
    if (size > MAX_BATCH_BYTES) throw new Error(`queue message of ${size} bytes exceeds the ${MAX_BATCH_BYTES}-byte limit`);
    if (current.length === MAX_ENTRIES || bytes + size > MAX_BATCH_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push({ Id: String(current.length), MessageBody: body });
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
