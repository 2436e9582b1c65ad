import { z } from 'zod';
import { QUEUE_NAMES, type QueueName } from '../../ports/index.js';
import { queueUrlVariable } from './envNames.js';

export { probeFunctionVariable, queueUrlVariable, regionEnvSuffix } from './envNames.js';

const optional = z.string().min(1).optional();

const AwsEnvSchema = z.object({
  VIGIL_SCHEDULE_GROUP: optional,
  VIGIL_SCHEDULER_ROLE_ARN: optional,
  VIGIL_MAIL_FROM: optional,
  VIGIL_MAIL_CONFIGURATION_SET: optional,
  /** The WebSocket API's management endpoint, `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}`. */
  VIGIL_STREAM_ENDPOINT: z.url().optional(),
});

/**
 * What the AWS adapters read from the Lambda environment (set by `stacks/`). Every value is
 * optional here: a function is given only what it uses, and an adapter asked for something its
 * function was not given fails with a message naming the variable.
 */
export type AwsEnv = {
  queueUrls: Partial<Record<QueueName, string>>;
  probeFunctionArns: Record<string, string>;
  scheduleGroup: string | undefined;
  schedulerRoleArn: string | undefined;
  mailFrom: string | undefined;
  mailConfigurationSet: string | undefined;
  streamEndpoint: string | undefined;
};

export function readAwsEnv(env: Record<string, string | undefined>): AwsEnv {
  const parsed = AwsEnvSchema.safeParse(env);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new Error(`invalid AWS environment: ${first?.path.join('.') ?? '?'}: ${first?.message ?? 'invalid value'}`);
  }
  const queueUrls: Partial<Record<QueueName, string>> = {};
  for (const queue of QUEUE_NAMES) {
    const url = env[queueUrlVariable(queue)];
    if (url) queueUrls[queue] = url;
  }
  const probeFunctionArns: Record<string, string> = {};
  const prefix = 'VIGIL_PROBE_FUNCTION_ARN_';
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(prefix) && value) probeFunctionArns[name.slice(prefix.length)] = value;
  }
  return {
    queueUrls,
    probeFunctionArns,
    scheduleGroup: parsed.data.VIGIL_SCHEDULE_GROUP,
    schedulerRoleArn: parsed.data.VIGIL_SCHEDULER_ROLE_ARN,
    mailFrom: parsed.data.VIGIL_MAIL_FROM,
    mailConfigurationSet: parsed.data.VIGIL_MAIL_CONFIGURATION_SET,
    streamEndpoint: parsed.data.VIGIL_STREAM_ENDPOINT,
  };
}
