import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Api, Function, use, type StackContext } from 'sst/constructs';
import { probeFunctionVariable, queueUrlVariable } from '../core/adapters/aws/env.js';
import { ProbeStack } from './ProbeStack.js';
import { QueueStack } from './QueueStack.js';
import { StorageStack } from './StorageStack.js';
import { StreamStack } from './StreamStack.js';
import { mailEnvironment, publishSms, sendMail, sendTo, storeEnvironment, tableReadWrite } from './permissions.js';
import { deploySettings, PROBE_REGIONS, resourceArns, resourceNames } from './settings.js';

/** Scheduler calls the API makes to keep one schedule per outbound check and region. */
export const SCHEDULE_ACTIONS = ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule'];

/**
 * The paths the signals Lambda serves: token pings only (core/signalApp.ts, SIGNAL_APP_PREFIX),
 * and Uptime Kuma's push path for imported push monitors (core/signals/kumaPush.ts).
 * Slug pings (`/api/signals/s`, `/api/signals/p`) need an API key, the check by slug and maybe a
 * new job, which would put ElectroDB, zod and the checks module back into the ping Lambda's cold
 * start: the API Lambda serves them.
 */
export const SIGNAL_ROUTE_PREFIXES = ['/api/signals/ping', '/api/push'] as const;

/**
 * The HTTP API: token pings on their own small Lambda running createSignalApp (ping traffic is
 * the hot path), and everything else under `/api` (slug pings, signal history and stream included,
 * plus `$default`, so any other path gets the app's JSON 404) on the API Lambda running createApp.
 */
export function ApiStack({ app, stack }: StackContext) {
  const settings = deploySettings();
  const { table } = use(StorageStack);
  const { queues } = use(QueueStack);
  const { schedulerRole } = use(ProbeStack);
  const { publishing } = use(StreamStack);
  const names = resourceNames(app);
  const arns = resourceArns(stack, app, settings.homeRegion);
  const base = storeEnvironment(table.tableName, settings);

  const apiFunction = new Function(stack, 'ApiFunction', {
    handler: 'functions/api.handler',
    description: 'Vigil API',
    timeout: 29,
    memorySize: 1024,
    environment: {
      ...base,
      ...mailEnvironment(settings),
      ...publishing.environment,
      [queueUrlVariable('incidents')]: queues.incidents.queueUrl,
      [queueUrlVariable('alerts')]: queues.alerts.queueUrl,
      VIGIL_SCHEDULE_GROUP: names.probeScheduleGroup,
      // The install's own /metrics ($default reaches this function) stays off unless the deploy sets it.
      ...(settings.metricsToken ? { VIGIL_METRICS_TOKEN: settings.metricsToken } : {}),
      VIGIL_SCHEDULER_ROLE_ARN: schedulerRole?.roleArn ?? arns.probeSchedulerRole,
      ...Object.fromEntries(PROBE_REGIONS.map((region) => [probeFunctionVariable(region), arns.probeFunction(region)])),
    },
    permissions: [
      tableReadWrite(table.tableArn),
      sendTo([queues.incidents.queueArn, queues.alerts.queueArn]),
      new PolicyStatement({ actions: SCHEDULE_ACTIONS, resources: PROBE_REGIONS.map((region) => arns.probeSchedules(region)) }),
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [arns.probeSchedulerRole],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
      ...sendMail(stack, settings),
      // An SMS channel's test send (POST /alert-channels/:id/test) texts from this function.
      publishSms(settings),
      ...publishing.permissions,
    ],
  });

  const signalsFunction = new Function(stack, 'SignalsFunction', {
    handler: 'functions/signals.handler',
    description: 'Vigil token pings',
    timeout: 10,
    memorySize: 512,
    environment: { ...base, ...publishing.environment, [queueUrlVariable('incidents')]: queues.incidents.queueUrl },
    permissions: [tableReadWrite(table.tableArn), sendTo([queues.incidents.queueArn]), ...publishing.permissions],
  });

  const api = new Api(stack, 'Api', {
    routes: {
      'ANY /api/{proxy+}': { function: apiFunction },
      ...Object.fromEntries(SIGNAL_ROUTE_PREFIXES.map((prefix) => [`ANY ${prefix}/{proxy+}`, { function: signalsFunction }])),
      $default: { function: apiFunction },
    },
  });
  const publicUrl = settings.passThrough.VIGIL_PUBLIC_URL ?? api.url;
  for (const fn of [apiFunction, signalsFunction]) fn.addEnvironment('VIGIL_PUBLIC_URL', publicUrl);

  stack.addOutputs({ ApiUrl: api.url, BaseUrl: `${publicUrl}/api` });
  return { api, publicUrl };
}
