import { createHash } from 'node:crypto';
import { z } from 'zod';
import { badRequest, unauthorized } from '../../http/errors.js';
import { singleLine } from '../../statuspages/render/sanitize.js';
import type { IntakeAlert, IntakeParser } from '../intakeAlert.js';
import { parsePayload } from './payload.js';
import { confirmSubscription, verifySnsSignature } from './snsTrust.js';

/*
 * AWS SNS over HTTP(S), as CloudWatch alarms reach Vigil: every message is verified against its
 * signature before anything is done with it; a SubscriptionConfirmation is confirmed (one GET of
 * its SubscribeURL on an SNS host); a Notification carries a CloudWatch alarm's state change.
 * https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html
 */

const url = z.string().min(1).max(2048);

const SnsMessage = z
  .object({
    Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
    MessageId: z.string().min(1).max(128),
    TopicArn: z.string().min(1).max(1024),
    // 256 KiB is SNS's own limit of a message.
    Message: z.string().max(256 * 1024),
    Timestamp: z.iso.datetime(),
    SignatureVersion: z.enum(['1', '2']),
    Signature: z.string().min(1).max(4096),
    SigningCertURL: url,
    // Signed when present; SNS sends null or leaves it out when a publisher set none.
    Subject: z
      .string()
      .max(1024)
      .nullish()
      .transform((value) => value ?? undefined),
    SubscribeURL: url.optional(),
    Token: z.string().min(1).max(2048).optional(),
  })
  .refine((message) => message.Type === 'Notification' || (message.SubscribeURL !== undefined && message.Token !== undefined), {
    message: 'SubscribeURL and Token are required for this Type',
    path: ['SubscribeURL'],
  });

/** A CloudWatch alarm's state change, the JSON text in a Notification's Message. */
const CloudWatchAlarm = z.object({
  AlarmName: z.string().min(1),
  AlarmDescription: z.string().nullish(),
  AlarmArn: z.string().min(1).optional(),
  AWSAccountId: z.string().optional(),
  Region: z.string().optional(),
  NewStateValue: z.enum(['ALARM', 'OK', 'INSUFFICIENT_DATA']),
  NewStateReason: z.string().optional(),
  StateChangeTime: z.string().optional(),
  Trigger: z.object({ MetricName: z.string().optional(), Namespace: z.string().optional() }).nullish(),
});
type CloudWatchAlarm = z.infer<typeof CloudWatchAlarm>;

/** SNS gives up retrying an HTTP delivery within an hour (its delivery policy's ceiling). */
const MAX_AGE_MS = 60 * 60 * 1000;
/** Clocks differ; a message from further ahead than this is not SNS's. */
const MAX_AHEAD_MS = 5 * 60 * 1000;
const MAX_DEDUP_KEY = 255;
const MAX_DESCRIPTION = 2000;

/** CloudWatch writes `2026-03-01T12:00:00.000+0000`; the alert carries an ISO instant or nothing. */
function instant(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The alarm's ARN names it across accounts and regions; an over-long one is hashed to fit. */
function dedupKeyOf(alarm: CloudWatchAlarm): string {
  const key = alarm.AlarmArn ?? `${alarm.AWSAccountId ?? ''}:${alarm.Region ?? ''}:${alarm.AlarmName}`;
  return key.length <= MAX_DEDUP_KEY ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

function alarmAlert(alarm: CloudWatchAlarm, action: IntakeAlert['action'], topicArn: string): IntakeAlert {
  const labels: Record<string, string> = { topicArn };
  if (alarm.AWSAccountId) labels.accountId = alarm.AWSAccountId;
  if (alarm.Region) labels.region = alarm.Region;
  if (alarm.Trigger?.Namespace) labels.namespace = alarm.Trigger.Namespace;
  if (alarm.Trigger?.MetricName) labels.metric = alarm.Trigger.MetricName;
  const description = [alarm.NewStateReason, alarm.AlarmDescription].filter((part): part is string => typeof part === 'string' && part !== '').join('\n\n');
  return {
    dedupKey: dedupKeyOf(alarm),
    action,
    title: singleLine(alarm.AlarmName, 255),
    description: description === '' ? undefined : description.slice(0, MAX_DESCRIPTION),
    source: alarm.Region ? `CloudWatch (${alarm.Region})` : 'CloudWatch',
    labels,
    occurredAt: instant(alarm.StateChangeTime),
  };
}

export const snsParser: IntakeParser = async (request, deps) => {
  const message = parsePayload(SnsMessage, request.body, 'SNS message');
  const headerType = request.headers.get('x-amz-sns-message-type');
  if (headerType !== null && headerType !== message.Type) {
    throw badRequest(`x-amz-sns-message-type (${headerType}) does not match the message's Type (${message.Type})`);
  }
  // A signed message stays valid forever: without a window, a recorded ALARM could be replayed
  // after its OK to reopen the incident.
  const age = deps.clock.now().getTime() - Date.parse(message.Timestamp);
  if (age > MAX_AGE_MS || age < -MAX_AHEAD_MS) {
    throw unauthorized(`The SNS message's Timestamp (${message.Timestamp}) is outside the hour SNS delivers within`);
  }
  await verifySnsSignature(deps, message);

  if (message.Type === 'SubscriptionConfirmation') {
    await confirmSubscription(deps, message.SubscribeURL ?? '');
    return { kind: 'handled', status: 202, body: { status: 'confirmed', topicArn: message.TopicArn } };
  }
  if (message.Type === 'UnsubscribeConfirmation') {
    // Someone unsubscribed this URL; following SubscribeURL would subscribe it again.
    return { kind: 'handled', status: 202, body: { status: 'unsubscribed', topicArn: message.TopicArn } };
  }

  let payload: unknown;
  try {
    payload = JSON.parse(message.Message);
  } catch {
    throw badRequest('The SNS Message is not a CloudWatch alarm (not JSON); only CloudWatch alarm notifications are understood');
  }
  const alarm = parsePayload(CloudWatchAlarm, payload, 'CloudWatch alarm in the SNS Message');
  if (alarm.NewStateValue === 'INSUFFICIENT_DATA') {
    // Missing data proves neither an outage nor a recovery: an open incident stays open until OK.
    return { kind: 'handled', status: 202, body: { status: 'ignored', reason: 'INSUFFICIENT_DATA changes no incident' } };
  }
  return { kind: 'alerts', alerts: [alarmAlert(alarm, alarm.NewStateValue === 'ALARM' ? 'trigger' : 'resolve', message.TopicArn)] };
};
