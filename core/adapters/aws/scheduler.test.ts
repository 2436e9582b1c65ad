import { ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, SchedulerClient, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ScheduleSpec } from '../../ports/index.js';
import { EventBridgeScheduler, rateExpression } from './scheduler.js';

const ROLE = 'arn:aws:iam::123456789012:role/test-vigil-probe-scheduler';
const ARNS = {
  US_EAST_1: 'arn:aws:lambda:us-east-1:123456789012:function:test-vigil-probe',
  EU_WEST_1: 'arn:aws:lambda:eu-west-1:123456789012:function:test-vigil-probe',
};

const notFound = () => new ResourceNotFoundException({ message: 'Schedule not found', Message: 'Schedule not found', $metadata: {} });

describe('EventBridgeScheduler', () => {
  const clients: Record<string, SchedulerClient> = {
    'us-east-1': new SchedulerClient({ region: 'us-east-1' }),
    'eu-west-1': new SchedulerClient({ region: 'eu-west-1' }),
  };
  const east = mockClient(clients['us-east-1'] as SchedulerClient);
  const west = mockClient(clients['eu-west-1'] as SchedulerClient);
  const scheduler = new EventBridgeScheduler({
    group: 'test-vigil-probes',
    roleArn: ROLE,
    probeFunctionArns: ARNS,
    clientFor: (region) => {
      const client = clients[region];
      if (!client) throw new Error(`unexpected region ${region}`);
      return client;
    },
  });
  const spec: ScheduleSpec = {
    name: 'probe-42-eu-west-1',
    everySeconds: 300,
    payload: { checkId: 42, region: 'eu-west-1' },
    target: 'probe',
    region: 'eu-west-1',
    enabled: true,
  };

  beforeEach(() => {
    east.reset();
    west.reset();
  });

  it('updates an existing schedule in the target region with the full definition', async () => {
    west.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    await scheduler.upsert(spec);
    expect(east.calls()).toHaveLength(0);
    expect(west.commandCalls(CreateScheduleCommand)).toHaveLength(0);
    expect(west.commandCalls(UpdateScheduleCommand)[0]?.args[0].input).toEqual({
      Name: 'probe-42-eu-west-1',
      GroupName: 'test-vigil-probes',
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: ARNS.EU_WEST_1,
        RoleArn: ROLE,
        Input: JSON.stringify({ checkId: 42, region: 'eu-west-1' }),
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
      },
    });
  });

  it('creates the schedule when the update finds none, DISABLED when paused', async () => {
    west.on(UpdateScheduleCommand).rejects(notFound());
    west.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    await scheduler.upsert({ ...spec, enabled: false });
    const created = west.commandCalls(CreateScheduleCommand)[0]?.args[0].input;
    expect(created?.State).toBe('DISABLED');
    expect(created?.Target?.Arn).toBe(ARNS.EU_WEST_1);
  });

  it('falls back to an update when a concurrent upsert created it first', async () => {
    west.on(UpdateScheduleCommand).rejectsOnce(notFound()).resolves({ ScheduleArn: 'arn' });
    west.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    await scheduler.upsert(spec);
    expect(west.commandCalls(UpdateScheduleCommand)).toHaveLength(2);
  });

  it('passes other errors through', async () => {
    west.on(UpdateScheduleCommand).rejects(new Error('AccessDenied'));
    await expect(scheduler.upsert(spec)).rejects.toThrow('AccessDenied');
    expect(west.commandCalls(CreateScheduleCommand)).toHaveLength(0);
  });

  it('refuses a region without a probe function, naming the variable', async () => {
    await expect(scheduler.upsert({ ...spec, region: 'ap-southeast-1' })).rejects.toThrow('VIGIL_PROBE_FUNCTION_ARN_AP_SOUTHEAST_1');
  });

  it('refuses a name EventBridge would reject', async () => {
    await expect(scheduler.upsert({ ...spec, name: 'probe 42/eu' })).rejects.toThrow('invalid schedule name');
  });

  it('removes in every probe region and ignores the ones that do not exist', async () => {
    east.on(DeleteScheduleCommand).rejects(notFound());
    west.on(DeleteScheduleCommand).resolves({});
    await scheduler.remove('probe-42-eu-west-1');
    expect(east.commandCalls(DeleteScheduleCommand)[0]?.args[0].input).toEqual({ Name: 'probe-42-eu-west-1', GroupName: 'test-vigil-probes' });
    expect(west.commandCalls(DeleteScheduleCommand)).toHaveLength(1);
  });

  it('fails a remove on any other error', async () => {
    east.on(DeleteScheduleCommand).rejects(new Error('ThrottlingException'));
    west.on(DeleteScheduleCommand).resolves({});
    await expect(scheduler.remove('probe-42-eu-west-1')).rejects.toThrow('ThrottlingException');
  });
});

describe('rateExpression', () => {
  it('rounds up to whole minutes, Scheduler has no finer rate', () => {
    expect(rateExpression(1)).toBe('rate(1 minute)');
    expect(rateExpression(30)).toBe('rate(1 minute)');
    expect(rateExpression(60)).toBe('rate(1 minute)');
    expect(rateExpression(61)).toBe('rate(2 minutes)');
    expect(rateExpression(3600)).toBe('rate(60 minutes)');
  });
});
