import { Duration } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnSchedule, CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Function, use, type StackContext } from 'sst/constructs';
import { queueUrlVariable } from '../core/adapters/aws/env.js';
import { ApiStack } from './ApiStack.js';
import { QueueStack } from './QueueStack.js';
import { StorageStack } from './StorageStack.js';
import { StreamStack } from './StreamStack.js';
import { sendTo, storeEnvironment, tableReadWrite } from './permissions.js';
import { deploySettings, resourceNames } from './settings.js';

export const SWEEP_RATE = 'rate(1 minute)';

/**
 * The evaluator sweep (missed heartbeats, deployment TTLs, maintenance windows, escalation steps)
 * run by an EventBridge Scheduler schedule every minute, through a role that may invoke only it.
 */
export function SweepStack({ app, stack }: StackContext) {
  const settings = deploySettings();
  const { table } = use(StorageStack);
  const { queues } = use(QueueStack);
  const { publicUrl } = use(ApiStack);
  const { publishing } = use(StreamStack);
  const names = resourceNames(app);

  const sweep = new Function(stack, 'Sweep', {
    handler: 'functions/sweep.handler',
    description: 'Vigil evaluator sweep',
    timeout: 55,
    memorySize: 512,
    // The next sweep is a minute away; a failed or stale one is not replayed.
    retryAttempts: 0,
    maxEventAge: Duration.seconds(60),
    environment: {
      ...storeEnvironment(table.tableName, settings),
      VIGIL_PUBLIC_URL: publicUrl,
      ...publishing.environment,
      [queueUrlVariable('incidents')]: queues.incidents.queueUrl,
      [queueUrlVariable('alerts')]: queues.alerts.queueUrl,
    },
    permissions: [tableReadWrite(table.tableArn), sendTo([queues.incidents.queueArn, queues.alerts.queueArn]), ...publishing.permissions],
  });

  const group = new CfnScheduleGroup(stack, 'SweepScheduleGroup', { name: names.sweepScheduleGroup });
  const role = new Role(stack, 'SweepSchedulerRole', {
    description: 'EventBridge Scheduler invokes the Vigil sweep',
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account }, ArnLike: { 'aws:SourceArn': group.attrArn } },
    }),
  });
  role.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [sweep.functionArn] }));

  const schedule = new CfnSchedule(stack, 'SweepSchedule', {
    name: 'sweep',
    groupName: group.ref,
    description: 'Vigil evaluator sweep',
    scheduleExpression: SWEEP_RATE,
    flexibleTimeWindow: { mode: 'OFF' },
    state: 'ENABLED',
    target: {
      arn: sweep.functionArn,
      roleArn: role.roleArn,
      input: '{}',
      retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 },
    },
  });
  return { sweep, schedule };
}
