import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { SQSClient } from '@aws-sdk/client-sqs';
import { systemClock } from '../../clock.js';
import { DEFAULT_HOME_REGION, DEFAULT_TABLE_NAME, HOME_REGIONS, TABLE_NAME_PATTERN, type HomeRegion } from '../../configValues.js';
import type { PingDeps } from '../../signals/pingStore.js';
import { baseClient } from '../../store/plainClient.js';
import { queueUrlVariable } from './envNames.js';
import { WebSocketPublisher } from './publisher.js';
import { SqsQueue } from './queue.js';

/** The variables the ping Lambda reads: a subset of config.ts and env.ts, same names, same bounds. */
export type PingEnv = { tableName: string; homeRegion: HomeRegion; dynamoEndpoint: string | undefined; incidentsQueueUrl: string | undefined; streamEndpoint: string | undefined };

const isHomeRegion = (value: string): value is HomeRegion => (HOME_REGIONS as readonly string[]).includes(value);
const isUrl = (value: string): boolean => URL.canParse(value);

/**
 * Reads the ping Lambda's few variables by hand: loadConfig and readAwsEnv validate the whole
 * environment with zod, which this function's cold start must not load. Refuses what they refuse
 * for these variables (pingDeps.test.ts compares the two) with the same kind of message.
 */
export function readPingEnv(env: Record<string, string | undefined>): PingEnv {
  const invalid = (name: string, why: string): Error => new Error(`invalid configuration: ${name}: ${why}`);
  const tableName = env.VIGIL_TABLE_NAME ?? DEFAULT_TABLE_NAME;
  if (!TABLE_NAME_PATTERN.test(tableName)) throw invalid('VIGIL_TABLE_NAME', `must match ${TABLE_NAME_PATTERN.source}`);
  const homeRegion = env.VIGIL_HOME_REGION ?? DEFAULT_HOME_REGION;
  if (!isHomeRegion(homeRegion)) throw invalid('VIGIL_HOME_REGION', `one of ${HOME_REGIONS.join(', ')}`);
  const dynamoEndpoint = env.VIGIL_DYNAMODB_ENDPOINT;
  if (dynamoEndpoint !== undefined && !isUrl(dynamoEndpoint)) throw invalid('VIGIL_DYNAMODB_ENDPOINT', 'not a URL');
  const streamEndpoint = env.VIGIL_STREAM_ENDPOINT;
  if (streamEndpoint !== undefined && !isUrl(streamEndpoint)) throw invalid('VIGIL_STREAM_ENDPOINT', 'not a URL');
  return { tableName, homeRegion, dynamoEndpoint, incidentsQueueUrl: env[queueUrlVariable('incidents')] || undefined, streamEndpoint };
}

/**
 * The ping Lambda's PingDeps, built once per cold start: one plain DynamoDB client (the same
 * construction as createDynamoClient's ping client), the incidents queue on SQS and the stream
 * publisher on API Gateway. No ElectroDB, document client, zod, scheduler or mail client.
 * Nothing here calls AWS until a ping arrives.
 */
export function awsPingDeps(env: Record<string, string | undefined> = process.env): PingDeps {
  const config = readPingEnv(env);
  const region = config.homeRegion;
  const store = { hot: baseClient({ region, ...(config.dynamoEndpoint ? { endpoint: config.dynamoEndpoint } : {}) }), table: config.tableName };
  return {
    store,
    clock: systemClock,
    queue: new SqsQueue(new SQSClient({ region }), config.incidentsQueueUrl ? { incidents: config.incidentsQueueUrl } : {}),
    broadcaster: new WebSocketPublisher(store, systemClock, config.streamEndpoint ? new ApiGatewayManagementApiClient({ region, endpoint: config.streamEndpoint }) : undefined),
  };
}
