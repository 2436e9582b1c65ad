import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Stack } from 'sst/constructs';
import type { DeploySettings } from './settings.js';

/**
 * Least-privilege statements, one helper per thing a function uses. The store needs exactly these
 * item operations (no Scan, no transactions, no table management).
 */
export const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
];

export const tableReadWrite = (tableArn: string): PolicyStatement => new PolicyStatement({ actions: TABLE_ACTIONS, resources: [tableArn, `${tableArn}/index/*`] });

/** SendMessageBatch is authorised as sqs:SendMessage. */
export const sendTo = (queueArns: string[]): PolicyStatement => new PolicyStatement({ actions: ['sqs:SendMessage'], resources: queueArns });

/** SES v2 SendEmail checks the sending identity (address and its domain) and the configuration set. */
export function sendMail(stack: Stack, settings: DeploySettings): PolicyStatement[] {
  if (!settings.mailFrom) return [];
  const domain = settings.mailFrom.split('@')[1] ?? settings.mailFrom;
  const ses = (resource: string, resourceName: string) => stack.formatArn({ service: 'ses', region: settings.homeRegion, resource, resourceName });
  const resources = [ses('identity', settings.mailFrom), ses('identity', domain)];
  if (settings.mailConfigurationSet) resources.push(ses('configuration-set', settings.mailConfigurationSet));
  return [new PolicyStatement({ actions: ['ses:SendEmail'], resources })];
}

/**
 * SMS alert channels publish straight to a phone number, and IAM authorises such a Publish against
 * Resource '*': a phone number has no ARN to name (a topic would, but SMS channels use none). So
 * what can be narrowed is: the one action, and only in the home region, where the SMS client is.
 */
export const publishSms = (settings: DeploySettings): PolicyStatement =>
  new PolicyStatement({ actions: ['sns:Publish'], resources: ['*'], conditions: { StringEquals: { 'aws:RequestedRegion': settings.homeRegion } } });

/** Everything a function needs in the environment to reach the home region's table. */
export const storeEnvironment = (tableName: string, settings: DeploySettings): Record<string, string> => ({
  VIGIL_TABLE_NAME: tableName,
  VIGIL_HOME_REGION: settings.homeRegion,
  ...settings.passThrough,
});

export const mailEnvironment = (settings: DeploySettings): Record<string, string> => ({
  ...(settings.mailFrom ? { VIGIL_MAIL_FROM: settings.mailFrom } : {}),
  ...(settings.mailConfigurationSet ? { VIGIL_MAIL_CONFIGURATION_SET: settings.mailConfigurationSet } : {}),
});
