import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { SQSClient } from '@aws-sdk/client-sqs';
import { systemClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import type { Deps } from '../../deps.js';
import { createDynamoClient } from '../../store/client.js';
import { createStore } from '../../store/service.js';
import { WebSocketBroadcaster } from './broadcaster.js';
import { readAwsEnv, type AwsEnv } from './env.js';
import { SqsQueue } from './queue.js';

/** The ports a function adds when it uses them; the rest fail loudly. */
export type OptionalPorts = Partial<Pick<Deps, 'scheduler' | 'mailer' | 'sms'>>;
export type PortFactory = (aws: AwsEnv, region: string) => OptionalPorts;

/**
 * Deps with the store, the queues and the stream broadcaster, which every function uses. The
 * scheduler, the mailer and the SMS sender come from `ports`, so that a function without them (the signals
 * Lambda) does not load their SDK clients on a cold start. Nothing here calls AWS until a port is used.
 */
export function awsCoreDeps(env: Record<string, string | undefined> = process.env, ports: PortFactory = () => ({})): Deps {
  // The loopback switch is for local testing only: on AWS it is off for every function, whatever the env says.
  const config = { ...loadConfig(env), probeAllowPrivate: false };
  const aws = readAwsEnv(env);
  const region = config.homeRegion;
  const store = createStore(createDynamoClient({ region, ...(config.dynamoEndpoint ? { endpoint: config.dynamoEndpoint } : {}) }), config.tableName);
  const { scheduler, mailer, sms } = ports(aws, region);
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
    sms: sms ?? { send: () => Promise.reject(new Error('SMS is not available to this function')) },
    broadcaster: new WebSocketBroadcaster(store, systemClock, aws.streamEndpoint ? new ApiGatewayManagementApiClient({ region, endpoint: aws.streamEndpoint }) : undefined),
  };
}

const missing = (...variables: string[]): string => `${variables.join(' and ')} not set for this function`;
