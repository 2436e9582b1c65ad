import { ChangeMessageVisibilityBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { QueueMessage } from '../../ports/index.js';
import { queueUrlOf, sqsHandler } from './sqsHandler.js';

const record = (messageId: string, body: string) => ({ messageId, body });

describe('sqsHandler', () => {
  it('maps records to QueueMessages and reports the consumer failures as batchItemFailures', async () => {
    const seen: QueueMessage[] = [];
    const handler = sqsHandler(async (messages) => {
      seen.push(...messages);
      return { failedIds: ['m2'] };
    });
    const response = await handler({
      Records: [record('m1', '{"type":"check.status_changed","checkId":1}'), record('m2', '{"checkId":2}')],
    });
    expect(seen).toEqual([
      { id: 'm1', body: { type: 'check.status_changed', checkId: 1 } },
      { id: 'm2', body: { checkId: 2 } },
    ]);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
  });

  it('returns no failures when every message succeeded', async () => {
    const handler = sqsHandler(async () => ({ failedIds: [] }));
    expect(await handler({ Records: [record('m1', '1')] })).toEqual({ batchItemFailures: [] });
  });

  it('fails a body that is not JSON without handing it to the consumer', async () => {
    const seen: string[] = [];
    const handler = sqsHandler(async (messages) => {
      seen.push(...messages.map((m) => m.id));
      return { failedIds: [] };
    });
    const response = await handler({ Records: [record('bad', '{not json'), record('good', '{}')] });
    expect(seen).toEqual(['good']);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
  });

  it('fails the whole batch when the consumer throws', async () => {
    const handler = sqsHandler(async () => {
      throw new Error('store unavailable');
    });
    const response = await handler({ Records: [record('a', '{}'), record('b', '{}')] });
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['a', 'b']);
  });

  it('does not call the consumer for an empty or all-unreadable batch', async () => {
    let calls = 0;
    const handler = sqsHandler(async () => {
      calls++;
      return { failedIds: [] };
    });
    await handler({ Records: [] });
    await handler({ Records: [record('x', '')] });
    expect(calls).toBe(0);
  });
});

const ARN = 'arn:aws:sqs:us-east-1:123456789012:test-vigil-alerts';
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/test-vigil-alerts';
const received = (messageId: string, receiveCount: number) => ({
  messageId,
  body: '{}',
  receiptHandle: `rh-${messageId}`,
  eventSourceARN: ARN,
  attributes: { ApproximateReceiveCount: String(receiveCount) },
});

describe('sqsHandler retry delays (ChangeMessageVisibility)', () => {
  const client = new SQSClient({ region: 'us-east-1' });
  const sqs = mockClient(client);
  beforeEach(() => {
    sqs.reset();
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({ Successful: [], Failed: [] });
  });

  it("holds each failed message back for its backoff, or the receiver's Retry-After when longer", async () => {
    const seen: QueueMessage[] = [];
    const handler = sqsHandler(
      async (messages) => {
        seen.push(...messages);
        return { failedIds: ['busy', 'broken'], retryAfterSeconds: { busy: 120 } };
      },
      { sqs: client, random: () => 0 },
    );
    const response = await handler({ Records: [received('fine', 1), received('busy', 1), received('broken', 3)] });
    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['busy', 'broken']);
    expect(seen.map((m) => m.receiveCount)).toEqual([1, 1, 3]);
    const calls = sqs.commandCalls(ChangeMessageVisibilityBatchCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      QueueUrl: QUEUE_URL,
      Entries: [
        { Id: '0', ReceiptHandle: 'rh-busy', VisibilityTimeout: 120 },
        // Third receive: backoff ceiling 30 * 2^2 = 120 s, jitter pinned to its low half.
        { Id: '1', ReceiptHandle: 'rh-broken', VisibilityTimeout: 60 },
      ],
    });
  });

  it('still reports the failures when SQS refuses the visibility change', async () => {
    sqs.on(ChangeMessageVisibilityBatchCommand).rejects(new Error('throttled'));
    const handler = sqsHandler(async () => ({ failedIds: ['a'] }), { sqs: client });
    expect(await handler({ Records: [received('a', 2)] })).toEqual({ batchItemFailures: [{ itemIdentifier: 'a' }] });
  });

  it('changes nothing when every message succeeded', async () => {
    const handler = sqsHandler(async () => ({ failedIds: [] }), { sqs: client });
    await handler({ Records: [received('a', 1)] });
    expect(sqs.commandCalls(ChangeMessageVisibilityBatchCommand)).toHaveLength(0);
  });

  it('derives the queue URL from the event source ARN', () => {
    expect(queueUrlOf(ARN)).toBe(QUEUE_URL);
    expect(queueUrlOf('arn:aws-cn:sqs:cn-north-1:1:q')).toBe('https://sqs.cn-north-1.amazonaws.com.cn/1/q');
    expect(queueUrlOf('not an arn')).toBeUndefined();
  });
});
