import type { QueueConsumer, QueueMessage } from '../../ports/index.js';

/** The parts of Lambda's SQS event that Vigil reads. */
export type SqsRecord = { messageId: string; body: string };
export type SqsEvent = { Records: SqsRecord[] };
export type SqsBatchResponse = { batchItemFailures: { itemIdentifier: string }[] };

/**
 * Turns a `QueueConsumer` into a Lambda SQS handler with partial batch responses (the event source
 * mapping has ReportBatchItemFailures). A body that is not JSON is reported failed, so after the
 * queue's maxReceiveCount it lands in the DLQ where it can be inspected; a consumer that throws
 * fails the whole batch the same way.
 */
export function sqsHandler(consumer: QueueConsumer): (event: SqsEvent) => Promise<SqsBatchResponse> {
  return async (event) => {
    const messages: QueueMessage[] = [];
    const unreadable: string[] = [];
    for (const record of event.Records) {
      try {
        messages.push({ id: record.messageId, body: JSON.parse(record.body) as unknown });
      } catch {
        console.error(`queue message ${record.messageId} is not JSON; leaving it for the DLQ`);
        unreadable.push(record.messageId);
      }
    }
    let failedIds: string[];
    try {
      failedIds = messages.length > 0 ? (await consumer(messages)).failedIds : [];
    } catch (err) {
      console.error('queue consumer threw; retrying the whole batch', err);
      failedIds = messages.map((message) => message.id);
    }
    return { batchItemFailures: [...unreadable, ...failedIds].map((id) => ({ itemIdentifier: id })) };
  };
}
