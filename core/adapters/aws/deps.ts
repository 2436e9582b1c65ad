import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { systemClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import type { Deps } from '../../deps.js';
import { createDynamoClient } from '../../store/client.js';
import { createStore } from '../../store/service.js';
import { WebSocketBroadcaster } from './broadcaster.js';
import { readAwsEnv } from './env.js';
import { SesMailer } from './mailer.js';
import { SqsQueue } from './queue.js';
import { EventBridgeScheduler } from './scheduler.js';

/**
 * The Deps of a Lambda, built once per cold start from the environment `stacks/` sets. The table
 * and the queues live in the home region; a probe Lambda in another region reaches them there.
 * Nothing here calls AWS until a port is used.
 */
export function awsDeps(env: Record<string, string | undefined> = process.env): Deps {
  const config = loadConfig(env);
  const aws = readAwsEnv(env);
  const region = config.homeRegion;
  const store = createStore(createDynamoClient({ region, ...(config.dynamoEndpoint ? { endpoint: config.dynamoEndpoint } : {}) }), config.tableName);
  const scheduler =
    aws.scheduleGroup && aws.schedulerRoleArn
      ? new EventBridgeScheduler({ group: aws.scheduleGroup, roleArn: aws.schedulerRoleArn, probeFunctionArns: aws.probeFunctionArns })
      : undefined;
  const mailer = aws.mailFrom
    ? new SesMailer(new SESv2Client({ region }), { from: aws.mailFrom, configurationSet: aws.mailConfigurationSet })
    : undefined;
  return {
    store,
    clock: systemClock,
    config,
    queue: new SqsQueue(new SQSClient({ region }), aws.queueUrls),
    // A function that was not given a scheduler or a mail identity fails loudly if it tries to use one.
    scheduler: scheduler ?? {
      upsert: () => Promise.reject(new Error(missing('VIGIL_SCHEDULE_GROUP', 'VIGIL_SCHEDULER_ROLE_ARN'))),
      remove: () => Promise.reject(new Error(missing('VIGIL_SCHEDULE_GROUP', 'VIGIL_SCHEDULER_ROLE_ARN'))),
    },
    mailer: mailer ?? { send: () => Promise.reject(new Error(missing('VIGIL_MAIL_FROM'))) },
    broadcaster: new WebSocketBroadcaster(
      store,
      systemClock,
      aws.streamEndpoint ? new ApiGatewayManagementApiClient({ region, endpoint: aws.streamEndpoint }) : undefined,
    ),
  };
}

const missing = (...variables: string[]): string => `${variables.join(' and ')} not set for this function`;
