import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import type { Deps } from '../../deps.js';
import { awsCoreDeps } from './coreDeps.js';
import { SesMailer } from './mailer.js';
import { EventBridgeScheduler } from './scheduler.js';
import { SnsSms } from './sms.js';

/**
 * The Deps of a Lambda, built once per cold start from the environment `stacks/` sets. The table
 * and the queues live in the home region; a probe Lambda in another region reaches them there.
 * The scheduler and the mailer exist when their variables are set; the SMS sender always.
 */
export function awsDeps(env: Record<string, string | undefined> = process.env): Deps {
  return awsCoreDeps(env, (aws, region) => ({
    ...(aws.scheduleGroup && aws.schedulerRoleArn
      ? { scheduler: new EventBridgeScheduler({ group: aws.scheduleGroup, roleArn: aws.schedulerRoleArn, probeFunctionArns: aws.probeFunctionArns }) }
      : {}),
    ...(aws.mailFrom ? { mailer: new SesMailer(new SESv2Client({ region }), { from: aws.mailFrom, configurationSet: aws.mailConfigurationSet }) } : {}),
    // SMS channels publish from the home region (stacks/ grants sns:Publish there only).
    sms: new SnsSms(new SNSClient({ region })),
  }));
}
