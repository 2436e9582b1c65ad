import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { readAwsEnv } from './env.js';
import { awsPingDeps, readPingEnv } from './pingDeps.js';
import { WebSocketPublisher } from './publisher.js';
import { SqsQueue } from './queue.js';

// The ping Lambda reads its variables without zod: it must agree with loadConfig and readAwsEnv.
const CASES: Record<string, string | undefined>[] = [
  {},
  { VIGIL_TABLE_NAME: 'test-vigil-table', VIGIL_HOME_REGION: 'eu-west-1' },
  { VIGIL_HOME_REGION: 'ap-southeast-1', VIGIL_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', VIGIL_STREAM_ENDPOINT: 'https://abc.execute-api.eu-west-1.amazonaws.com/live' },
  { VIGIL_QUEUE_URL_INCIDENTS: 'https://sqs.us-east-1.amazonaws.com/123456789012/test-vigil-incidents' },
];
const INVALID: Record<string, string>[] = [
  { VIGIL_TABLE_NAME: 'ab' },
  { VIGIL_TABLE_NAME: 'has space' },
  { VIGIL_TABLE_NAME: '' },
  { VIGIL_HOME_REGION: 'us-west-2' },
  { VIGIL_DYNAMODB_ENDPOINT: 'not a url' },
  { VIGIL_STREAM_ENDPOINT: 'not a url' },
];

describe('readPingEnv', () => {
  it('reads what loadConfig and readAwsEnv read from the same variables', () => {
    for (const env of CASES) {
      const config = loadConfig(env);
      const aws = readAwsEnv(env);
      expect(readPingEnv(env), JSON.stringify(env)).toEqual({
        tableName: config.tableName,
        homeRegion: config.homeRegion,
        dynamoEndpoint: config.dynamoEndpoint,
        incidentsQueueUrl: aws.queueUrls.incidents,
        streamEndpoint: aws.streamEndpoint,
      });
    }
  });

  it('refuses what they refuse, naming the variable', () => {
    for (const env of INVALID) {
      const [name] = Object.keys(env);
      expect(() => loadConfig(env) && readAwsEnv(env), JSON.stringify(env)).toThrow(name);
      expect(() => readPingEnv(env), JSON.stringify(env)).toThrow(name);
    }
  });
});

describe('awsPingDeps', () => {
  it('wires the plain table client, the incidents queue and the stream publisher, and nothing else', async () => {
    const deps = awsPingDeps({ VIGIL_TABLE_NAME: 'test-vigil-table', VIGIL_HOME_REGION: 'eu-west-1' });
    expect(deps.store.table).toBe('test-vigil-table');
    expect(await deps.store.hot.config.region()).toBe('eu-west-1');
    expect(deps.queue).toBeInstanceOf(SqsQueue);
    expect(deps.broadcaster).toBeInstanceOf(WebSocketPublisher);
    expect(Object.keys(deps).sort()).toEqual(['broadcaster', 'clock', 'queue', 'store']);
    await expect(deps.queue.publish('incidents', [{}])).rejects.toThrow('VIGIL_QUEUE_URL_INCIDENTS');
  });
});
