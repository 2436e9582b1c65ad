import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { StackContext } from 'sst/constructs';
import { CONSUMER_TIMEOUT_SECONDS, MAX_RECEIVE_COUNT, QUEUE_NAMES, VISIBILITY_TIMEOUT_SECONDS, type QueueName } from '../core/ports/index.js';
import { resourceNames } from './settings.js';

// Defined beside the queue port, so the local queue dead-letters after the same count and holds
// a received message as long.
export { CONSUMER_TIMEOUT_SECONDS, MAX_RECEIVE_COUNT };

/** The `incidents` and `alerts` queues, each with a dead-letter queue. Consumers are in WorkerStack. */
export function QueueStack({ app, stack }: StackContext) {
  const names = resourceNames(app);
  const queues = {} as Record<QueueName, Queue>;
  const deadLetterQueues = {} as Record<QueueName, Queue>;
  for (const name of QUEUE_NAMES) {
    const deadLetterQueue = new Queue(stack, `${name}-dlq`, {
      queueName: names.deadLetterQueue(name),
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    queues[name] = new Queue(stack, name, {
      queueName: names.queue(name),
      visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    deadLetterQueues[name] = deadLetterQueue;
  }
  stack.addOutputs({ IncidentsQueueUrl: queues.incidents.queueUrl, AlertsQueueUrl: queues.alerts.queueUrl });
  return { queues, deadLetterQueues };
}
