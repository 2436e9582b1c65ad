import { CreateQueueCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { buildApp } from 'fauxqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunkEntries, SqsQueue } from './queue.js';

const URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/test-vigil-incidents';

describe('SqsQueue with a mocked SDK', () => {
  const client = new SQSClient({ region: 'us-east-1' });
  const sqs = mockClient(client);
  const queue = new SqsQueue(client, { incidents: URL });

  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  });

  it('sends JSON bodies in batches of at most 10', async () => {
    const bodies = Array.from({ length: 23 }, (_, i) => ({ type: 'check.status_changed', checkId: i }));
    await queue.publish('incidents', bodies);
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 3]);
    expect(calls.every((call) => call.args[0].input.QueueUrl === URL)).toBe(true);
    const sent = calls.flatMap((call) => call.args[0].input.Entries ?? []).map((entry) => JSON.parse(entry.MessageBody ?? ''));
    expect(sent).toEqual(bodies);
  });

  it('sends nothing for an empty list', async () => {
    await queue.publish('incidents', []);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(0);
  });

  it('names the missing variable when the function was not given the queue', async () => {
    await expect(queue.publish('alerts', [{ a: 1 }])).rejects.toThrow('VIGIL_QUEUE_URL_ALERTS is not set');
  });

  it('resends only the entries SQS failed transiently', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [{ Id: '0', MessageId: 'm0', MD5OfMessageBody: '' }], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] })
      .resolves({ Successful: [{ Id: '1', MessageId: 'm1', MD5OfMessageBody: '' }], Failed: [] });
    await queue.publish('incidents', [{ n: 0 }, { n: 1 }]);
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.args[0].input.Entries).toEqual([{ Id: '1', MessageBody: '{"n":1}' }]);
  });

  it('throws when SQS keeps failing, so the caller does not report success', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });
    await expect(queue.publish('incidents', [{ n: 0 }])).rejects.toThrow(/refused 1 message.*InternalError/);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
  });

  it('does not retry a sender fault', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InvalidMessageContents', SenderFault: true }] });
    await expect(queue.publish('incidents', [{ n: 0 }])).rejects.toThrow('InvalidMessageContents');
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });
});

describe('chunkEntries', () => {
  it('keeps every batch under 256 KiB', () => {
    const big = JSON.stringify({ blob: 'x'.repeat(100 * 1024) });
    const chunks = chunkEntries([big, big, big, '{}']);
    expect(chunks.map((chunk) => chunk.length)).toEqual([2, 2]);
    expect(chunks.map((chunk) => chunk.map((entry) => entry.Id))).toEqual([
      ['0', '1'],
      ['0', '1'],
    ]);
  });

  it('refuses a single body over the limit', () => {
    expect(() => chunkEntries([JSON.stringify('x'.repeat(256 * 1024))])).toThrow('exceeds');
  });
});

describe('SqsQueue against fauxqs (an SQS-compatible server on loopback)', () => {
  const server = buildApp({ logger: false });
  let client: SQSClient;
  let queueUrl: string;

  beforeAll(async () => {
    const address = await server.listen({ port: 0, host: '127.0.0.1' });
    client = new SQSClient({ region: 'us-east-1', endpoint: address, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const created = await client.send(new CreateQueueCommand({ QueueName: 'vigil-incidents' }));
    queueUrl = created.QueueUrl ?? '';
  });

  afterAll(async () => {
    client.destroy();
    await server.close();
  });

  it('publishes 12 bodies that a consumer receives intact', async () => {
    const queue = new SqsQueue(client, { incidents: queueUrl });
    const bodies = Array.from({ length: 12 }, (_, i) => ({ type: 'check.status_changed', checkId: i, note: 'ünïcødé' }));
    await queue.publish('incidents', bodies);

    const received: unknown[] = [];
    for (let round = 0; round < 5 && received.length < bodies.length; round++) {
      const batch = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      for (const message of batch.Messages ?? []) received.push(JSON.parse(message.Body ?? 'null'));
    }
    expect(received).toHaveLength(12);
    expect(new Set(received.map((body) => (body as { checkId: number }).checkId))).toEqual(new Set(bodies.map((b) => b.checkId)));
    expect(received).toContainEqual(bodies[11]);
  });
});
