import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Function, use, type StackContext } from 'sst/constructs';
import { queueUrlVariable } from '../core/adapters/aws/env.js';
import { ApiStack } from './ApiStack.js';
import { CONSUMER_TIMEOUT_SECONDS, QueueStack } from './QueueStack.js';
import { StorageStack } from './StorageStack.js';
import { StreamStack } from './StreamStack.js';
import { mailEnvironment, publishSms, sendMail, sendTo, storeEnvironment, tableReadWrite } from './permissions.js';
import { deploySettings } from './settings.js';

/**
 * Alert messages per invocation. Each message may wait ALERT_WEBHOOK_SECONDS on a webhook (a
 * message's channels are sent in parallel), so a batch fits in CONSUMER_TIMEOUT_SECONDS with room
 * for the store calls, and the queue's visibility timeout (6x) is longer still.
 */
export const ALERT_BATCH_SIZE = 2;
export const ALERT_WEBHOOK_SECONDS = 10;

/**
 * The queue consumers. They sit after ApiStack (not in QueueStack) so they get the public URL,
 * which the API Gateway decides, without a cycle between stacks.
 */
export function WorkerStack({ stack }: StackContext) {
  const settings = deploySettings();
  const { table } = use(StorageStack);
  const { queues } = use(QueueStack);
  const { publicUrl } = use(ApiStack);
  const { publishing } = use(StreamStack);

  // Publishes to the streams: probe flips (probe Lambdas in other regions post to no WebSocket
  // API) and the status page events its snapshot rebuilds owe.
  const incidentWorker = new Function(stack, 'IncidentWorker', {
    handler: 'functions/incidentWorker.handler',
    description: 'Vigil incidents queue consumer',
    timeout: CONSUMER_TIMEOUT_SECONDS,
    memorySize: 512,
    environment: {
      ...storeEnvironment(table.tableName, settings),
      VIGIL_PUBLIC_URL: publicUrl,
      [queueUrlVariable('alerts')]: queues.alerts.queueUrl,
      ...publishing.environment,
    },
    permissions: [tableReadWrite(table.tableArn), sendTo([queues.alerts.queueArn]), ...publishing.permissions],
  });
  incidentWorker.addEventSource(new SqsEventSource(queues.incidents, { batchSize: 10, reportBatchItemFailures: true }));

  // Sends to no queue (no queue URL, no sqs:SendMessage). Publishes to the streams only the
  // `incident` events of the ALERT_SENT entries it records, so a dashboard sees who was told live.
  const alertWorker = new Function(stack, 'AlertWorker', {
    handler: 'functions/alertWorker.handler',
    description: 'Vigil alerts queue consumer',
    timeout: CONSUMER_TIMEOUT_SECONDS,
    memorySize: 512,
    environment: { ...storeEnvironment(table.tableName, settings), ...mailEnvironment(settings), VIGIL_PUBLIC_URL: publicUrl, ...publishing.environment },
    permissions: [tableReadWrite(table.tableArn), ...sendMail(stack, settings), publishSms(settings), ...publishing.permissions],
  });
  alertWorker.addEventSource(new SqsEventSource(queues.alerts, { batchSize: ALERT_BATCH_SIZE, reportBatchItemFailures: true }));

  return { incidentWorker, alertWorker };
}
