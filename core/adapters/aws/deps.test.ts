import { ulid } from 'ulid';
import { describe, expect, inject, it } from 'vitest';
import { ConfigError } from '../../config.js';
import { ensureTable } from '../../store/client.js';
import { WebSocketBroadcaster } from './broadcaster.js';
import { awsCoreDeps } from './coreDeps.js';
import { awsDeps } from './deps.js';
import { readAwsEnv } from './env.js';
import { SesMailer } from './mailer.js';
import { SqsQueue } from './queue.js';
import { EventBridgeScheduler } from './scheduler.js';
import { SnsSms } from './sms.js';

const FULL_ENV = {
  VIGIL_TABLE_NAME: 'test-vigil-table',
  VIGIL_HOME_REGION: 'eu-west-1',
  VIGIL_QUEUE_URL_INCIDENTS: 'https://sqs.eu-west-1.amazonaws.com/123456789012/test-vigil-incidents',
  VIGIL_SCHEDULE_GROUP: 'test-vigil-probes',
  VIGIL_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/test-vigil-probe-scheduler',
  VIGIL_PROBE_FUNCTION_ARN_US_EAST_1: 'arn:aws:lambda:us-east-1:123456789012:function:test-vigil-probe',
  VIGIL_PROBE_FUNCTION_ARN_AP_SOUTHEAST_1: 'arn:aws:lambda:ap-southeast-1:123456789012:function:test-vigil-probe',
  VIGIL_MAIL_FROM: 'alerts@vigil.example',
};

describe('readAwsEnv', () => {
  it('collects queue URLs and probe function ARNs by their variable names', () => {
    const env = readAwsEnv(FULL_ENV);
    expect(env.queueUrls).toEqual({ incidents: FULL_ENV.VIGIL_QUEUE_URL_INCIDENTS });
    expect(env.probeFunctionArns).toEqual({
      US_EAST_1: FULL_ENV.VIGIL_PROBE_FUNCTION_ARN_US_EAST_1,
      AP_SOUTHEAST_1: FULL_ENV.VIGIL_PROBE_FUNCTION_ARN_AP_SOUTHEAST_1,
    });
    expect(env.streamEndpoint).toBeUndefined();
  });

  it('refuses a stream endpoint that is not a URL', () => {
    expect(() => readAwsEnv({ VIGIL_STREAM_ENDPOINT: 'not a url' })).toThrow('VIGIL_STREAM_ENDPOINT');
  });
});

describe('awsDeps', () => {
  it('wires the AWS adapters from the environment', () => {
    const deps = awsDeps(FULL_ENV);
    expect(deps.config.tableName).toBe('test-vigil-table');
    expect(deps.config.homeRegion).toBe('eu-west-1');
    expect(deps.store.table).toBe('test-vigil-table');
    expect(deps.queue).toBeInstanceOf(SqsQueue);
    expect(deps.scheduler).toBeInstanceOf(EventBridgeScheduler);
    expect(deps.mailer).toBeInstanceOf(SesMailer);
    expect(deps.sms).toBeInstanceOf(SnsSms);
    expect(deps.broadcaster).toBeInstanceOf(WebSocketBroadcaster);
  });

  it('fails loudly when a function uses a port it was not given', async () => {
    const deps = awsDeps({ VIGIL_TABLE_NAME: 'test-vigil-table' });
    await expect(deps.queue.publish('incidents', [{}])).rejects.toThrow('VIGIL_QUEUE_URL_INCIDENTS');
    await expect(deps.scheduler.remove('probe-1-us-east-1')).rejects.toThrow('VIGIL_SCHEDULE_GROUP');
    await expect(deps.mailer.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow('VIGIL_MAIL_FROM');
  });

  it('never opens the loopback switch on AWS, whatever the environment says', () => {
    expect(awsDeps({ ...FULL_ENV, VIGIL_PROBE_ALLOW_PRIVATE: '1' }).config.probeAllowPrivate).toBe(false);
    expect(awsCoreDeps({ ...FULL_ENV, VIGIL_PROBE_ALLOW_PRIVATE: 'true' }).config.probeAllowPrivate).toBe(false);
  });

  it('stops the cold start on a bad configuration value', () => {
    expect(() => awsDeps({ VIGIL_HOME_REGION: 'mars-north-1' })).toThrow(ConfigError);
  });

  it('reaches the table through the endpoint override (how functions are tested off AWS)', async () => {
    const table = `t_${ulid()}`;
    const deps = awsDeps({ VIGIL_TABLE_NAME: table, VIGIL_DYNAMODB_ENDPOINT: inject('dynamoEndpoint') });
    await ensureTable(deps.store.client, table);
    expect(await deps.store.nextId('probe')).toBe(1);
  });
});

describe('awsCoreDeps (the signals Lambda)', () => {
  it('builds the store, queue and broadcaster, and no scheduler or mailer whatever the environment says', async () => {
    const deps = awsCoreDeps(FULL_ENV);
    expect(deps.store.table).toBe('test-vigil-table');
    expect(deps.queue).toBeInstanceOf(SqsQueue);
    expect(deps.broadcaster).toBeInstanceOf(WebSocketBroadcaster);
    expect(deps.scheduler).not.toBeInstanceOf(EventBridgeScheduler);
    await expect(deps.scheduler.remove('probe-1-us-east-1')).rejects.toThrow('VIGIL_SCHEDULE_GROUP');
    await expect(deps.mailer.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow('VIGIL_MAIL_FROM');
    await expect(deps.sms.send({ to: '+447700900123', text: 't' })).rejects.toThrow('SMS is not available');
  });
});
