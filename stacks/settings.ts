import { ArnFormat, Stack as CdkStack } from 'aws-cdk-lib';
import type { App } from 'sst/constructs';
import type { QueueName } from '../core/ports/index.js';

/** The regions a probe Lambda can run in (the check config's `regions`). */
export const PROBE_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-1'] as const;
export type ProbeRegion = (typeof PROBE_REGIONS)[number];

/** Passed through to every function when set at deploy time (core/config.ts validates them). */
const PASS_THROUGH = ['VIGIL_KEY_PREFIX', 'VIGIL_DEFAULT_PLAN', 'VIGIL_ACCESS_TOKEN_TTL_SECONDS', 'VIGIL_ACK_LINK_TTL_SECONDS', 'VIGIL_PUBLIC_URL'] as const;

export type DeploySettings = {
  /** Where the table, queues and API live; probe stacks in other regions reach back to it. */
  homeRegion: ProbeRegion;
  /** A verified SES identity; without it no function may send mail. */
  mailFrom: string | undefined;
  mailConfigurationSet: string | undefined;
  passThrough: Record<string, string>;
  /** Bearer token of the install's own `GET /metrics` (served by the API Lambda); unset keeps it off. */
  metricsToken: string | undefined;
};

const isProbeRegion = (region: string): region is ProbeRegion => (PROBE_REGIONS as readonly string[]).includes(region);

/** Deploy-time settings, read from the environment of `sst deploy`. */
export function deploySettings(env: Record<string, string | undefined> = process.env): DeploySettings {
  const homeRegion = env.VIGIL_HOME_REGION ?? 'us-east-1';
  if (!isProbeRegion(homeRegion)) throw new Error(`VIGIL_HOME_REGION must be one of ${PROBE_REGIONS.join(', ')}`);
  const passThrough: Record<string, string> = {};
  for (const name of PASS_THROUGH) {
    const value = env[name];
    if (value) passThrough[name] = value;
  }
  return {
    homeRegion,
    mailFrom: env.VIGIL_MAIL_FROM || undefined,
    mailConfigurationSet: env.VIGIL_MAIL_CONFIGURATION_SET || undefined,
    passThrough,
    metricsToken: env.VIGIL_METRICS_TOKEN || undefined,
  };
}

/**
 * Physical names fixed by app and stage. SST v2 deploys one region per run, so the probe stacks
 * of other regions cannot import the home region's outputs: everything they share is found by
 * these names (and the ARNs built from them) instead.
 */
export function resourceNames(app: App) {
  return {
    table: app.logicalPrefixedName('table'),
    queue: (queue: QueueName) => app.logicalPrefixedName(queue),
    deadLetterQueue: (queue: QueueName) => app.logicalPrefixedName(`${queue}-dlq`),
    probeFunction: app.logicalPrefixedName('probe'),
    probeScheduleGroup: app.logicalPrefixedName('probes'),
    probeSchedulerRole: app.logicalPrefixedName('probe-scheduler'),
    sweepScheduleGroup: app.logicalPrefixedName('sweep'),
  };
}

/** ARNs of the shared resources, built in `stack` (which supplies the account and partition). */
export function resourceArns(stack: CdkStack, app: App, homeRegion: ProbeRegion) {
  const names = resourceNames(app);
  const table = stack.formatArn({ service: 'dynamodb', region: homeRegion, resource: 'table', resourceName: names.table });
  return {
    table,
    tableIndexes: `${table}/index/*`,
    queue: (queue: QueueName) => stack.formatArn({ service: 'sqs', region: homeRegion, resource: names.queue(queue) }),
    queueUrl: (queue: QueueName) => `https://sqs.${homeRegion}.${stack.urlSuffix}/${stack.account}/${names.queue(queue)}`,
    probeFunction: (region: ProbeRegion) =>
      stack.formatArn({ service: 'lambda', region, resource: 'function', resourceName: names.probeFunction, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
    probeSchedules: (region: ProbeRegion) => stack.formatArn({ service: 'scheduler', region, resource: 'schedule', resourceName: `${names.probeScheduleGroup}/*` }),
    probeScheduleGroupOf: (region: ProbeRegion) => stack.formatArn({ service: 'scheduler', region, resource: 'schedule-group', resourceName: names.probeScheduleGroup }),
    probeSchedulerRole: stack.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: names.probeSchedulerRole }),
  };
}
