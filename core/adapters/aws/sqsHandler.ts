import { ChangeMessageVisibilityBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { ConsumerResult, QueueConsumer, QueueMessage } from '../../ports/index.js';
import { retryDelaySeconds } from '../../ports/retry.js';

/** The parts of Lambda's SQS event that Vigil reads. */
export type SqsRecord = {
  messageId: string;
  body: string;
  receiptHandle?: string;
  eventSourceARN?: string;
  attributes?: { ApproximateReceiveCount?: string };
};
export type SqsEvent = { Records: SqsRecord[] };
export type SqsBatchResponse = { batchItemFailures: { itemIdentifier: string }[] };

export type SqsHandlerOptions = {
  /** Changes the visibility of failed messages; built on first use (the function's own region). */
  sqs?: Pick<SQSClient, 'send'>;
  /** The retry jitter's source (tests pin it). */
  random?: () => number;
};

/**
 * Turns a `QueueConsumer` into a Lambda SQS handler with partial batch responses (the event source
 * mapping has ReportBatchItemFailures). A body that is not JSON is reported failed, so after the
 * queue's maxReceiveCount it lands in the DLQ where it can be inspected; a consumer that throws
 * fails the whole batch the same way.
 *
 * Each failed message's visibility is set to its retry delay (`ports/retry.ts`: backoff with
 * jitter, never sooner than a receiver's Retry-After) instead of the queue's fixed timeout.
 */
export function sqsHandler(consumer: QueueConsumer, options: SqsHandlerOptions = {}): (event: SqsEvent) => Promise<SqsBatchResponse> {
  let client = options.sqs;
  return async (event) => {
    const messages: QueueMessage[] = [];
    const unreadable: string[] = [];
    for (const record of event.Records) {
      const receiveCount = Number(record.attributes?.ApproximateReceiveCount);
      try {
        messages.push({ id: record.messageId, body: JSON.parse(record.body) as unknown, ...(Number.isInteger(receiveCount) ? { receiveCount } : {}) });
      } catch {
        console.error(`queue message ${record.messageId} is not JSON; leaving it for the DLQ`);
        unreadable.push(record.messageId);
      }
    }
    let result: ConsumerResult;
    try {
      result = messages.length > 0 ? await consumer(messages) : { failedIds: [] };
    } catch (err) {
      console.error('queue consumer threw; retrying the whole batch', err);
      result = { failedIds: messages.map((message) => message.id) };
    }
    const failed = new Set(result.failedIds);
    const retries = event.Records.filter((record) => failed.has(record.messageId));
    if (retries.length > 0) await delayRetries(retries, result.retryAfterSeconds ?? {}, () => (client ??= new SQSClient({})), options.random);
    return { batchItemFailures: [...unreadable, ...result.failedIds].map((id) => ({ itemIdentifier: id })) };
  };
}

/**
 * ChangeMessageVisibility for each failed record that can be addressed. Best effort: if it fails,
 * the message comes back after the queue's own visibility timeout, which is still a retry.
 */
async function delayRetries(records: SqsRecord[], retryAfter: Record<string, number>, client: () => Pick<SQSClient, 'send'>, random?: () => number): Promise<void> {
  const byQueue = new Map<string, { Id: string; ReceiptHandle: string; VisibilityTimeout: number }[]>();
  for (const record of records) {
    const queueUrl = record.eventSourceARN ? queueUrlOf(record.eventSourceARN) : undefined;
    if (!queueUrl || !record.receiptHandle) continue;
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
    const seconds = retryDelaySeconds({ receiveCount, retryAfterSeconds: retryAfter[record.messageId], ...(random ? { random } : {}) });
    const entries = byQueue.get(queueUrl) ?? [];
    entries.push({ Id: String(entries.length), ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds });
    byQueue.set(queueUrl, entries);
  }
  for (const [queueUrl, entries] of byQueue) {
    for (let start = 0; start < entries.length; start += 10) {
      try {
        const answer = await client().send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries.slice(start, start + 10) }));
        for (const refused of answer.Failed ?? []) console.warn(`retry delay not set on ${queueUrl}: ${refused.Code ?? '?'} ${refused.Message ?? ''}`);
      } catch (err) {
        console.warn(`retry delay not set on ${queueUrl}; the queue's visibility timeout applies`, err);
      }
    }
  }
}

/** `arn:<partition>:sqs:<region>:<account>:<name>` -> the queue's URL. */
export function queueUrlOf(arn: string): string | undefined {
  const [prefix, partition, service, region, account, name] = arn.split(':');
  if (prefix !== 'arn' || service !== 'sqs' || !region || !account || !name) return undefined;
  const suffix = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${suffix}/${account}/${name}`;
}
