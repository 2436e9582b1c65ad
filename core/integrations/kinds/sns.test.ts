import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { cloudWatchAlarm, startSnsFixture, type SnsFixture } from '../../../test/support/sns.js';
import { ConfigError, loadConfig } from '../../config.js';
import { HttpError } from '../../http/errors.js';
import type { IntakeOutcome } from '../intakeAlert.js';
import { snsParser } from './sns.js';
import { isSnsUrl } from './snsTrust.js';

let sns: SnsFixture;
let t: TestContext;
beforeAll(async () => {
  sns = await startSnsFixture();
  t = await createTestContext({ VIGIL_SNS_TRUSTED_ORIGINS: sns.origin, VIGIL_PROBE_ALLOW_PRIVATE: '1' });
});
afterAll(() => sns.close());

const now = (): string => t.clock.now().toISOString();

function parse(body: unknown, headers: Record<string, string> = {}): Promise<IntakeOutcome> {
  return snsParser({ body, raw: JSON.stringify(body), headers: new Headers(headers), integration: { integrationId: 1, workspaceId: 1, kind: 'SNS' } }, t.deps);
}

async function rejection(body: unknown, headers: Record<string, string> = {}): Promise<HttpError> {
  const error = await parse(body, headers).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return error;
}

const hits = (path: string): number => sns.requests.filter((line) => line.includes(path)).length;

describe('SNS notifications (CloudWatch alarms)', () => {
  it('turns a signed ALARM into a trigger and OK into a resolve, for signature versions 1 and 2', async () => {
    for (const version of ['1', '2'] as const) {
      const alarm = sns.sign(
        { Type: 'Notification', Subject: 'ALARM: "api-5xx-rate" in US East (N. Virginia)', Message: cloudWatchAlarm('ALARM'), Timestamp: now() },
        { version, certUrl: sns.certUrl() },
      );
      const opened = await parse(alarm, { 'x-amz-sns-message-type': 'Notification' });
      expect(opened).toEqual({
        kind: 'alerts',
        alerts: [
          {
            dedupKey: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:api-5xx-rate',
            action: 'trigger',
            title: 'api-5xx-rate',
            description: expect.stringContaining('Threshold Crossed') as unknown as string,
            source: 'CloudWatch (US East (N. Virginia))',
            labels: { topicArn: alarm.TopicArn, accountId: '123456789012', region: 'US East (N. Virginia)', namespace: 'AWS/ApiGateway', metric: '5XXError' },
            occurredAt: '2026-03-01T12:00:00.000Z',
          },
        ],
      });
      const ok = sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('OK', { at: '2026-03-01T12:05:00.000+0000' }), Timestamp: now() }, { version });
      const resolved = await parse(ok);
      expect(resolved.kind === 'alerts' && resolved.alerts[0]).toMatchObject({
        action: 'resolve',
        dedupKey: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:api-5xx-rate',
        occurredAt: '2026-03-01T12:05:00.000Z',
      });
    }
  });

  it('answers INSUFFICIENT_DATA without an alert: neither an outage nor a recovery', async () => {
    const outcome = await parse(sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('INSUFFICIENT_DATA'), Timestamp: now() }));
    expect(outcome).toEqual({ kind: 'handled', status: 202, body: { status: 'ignored', reason: 'INSUFFICIENT_DATA changes no incident' } });
  });

  it('fetches each signing certificate once and verifies later messages from the cache', async () => {
    const certUrl = sns.certUrl();
    const path = new URL(certUrl).pathname;
    await parse(sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('ALARM'), Timestamp: now() }, { certUrl }));
    await parse(sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('OK'), Timestamp: now() }, { certUrl }));
    expect(hits(path)).toBe(1);
  });
});

describe('SNS signature verification', () => {
  it('refuses a message changed after signing with 401', async () => {
    const signed = sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('OK'), Timestamp: now() });
    const forged = { ...signed, Message: cloudWatchAlarm('ALARM') };
    const error = await rejection(forged);
    expect([error.status, error.code, error.message]).toEqual([401, 'UNAUTHORIZED', 'The SNS message signature does not verify']);
  });

  it('refuses a signature by a key the certificate does not hold, and a signature version swapped after signing', async () => {
    const otherKey = sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('ALARM'), Timestamp: now() }, { keyPem: sns.otherKeyPem });
    expect((await rejection(otherKey)).status).toBe(401);
    const swapped = { ...sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('ALARM'), Timestamp: now() }, { version: '1' }), SignatureVersion: '2' };
    expect((await rejection(swapped)).status).toBe(401);
  });

  it('refuses certificates off SNS hosts, over http, or not .pem, without fetching them', async () => {
    const before = sns.requests.length;
    const fields = { Type: 'Notification' as const, Message: cloudWatchAlarm('ALARM'), Timestamp: now() };
    for (const certUrl of [
      'https://evil.example/SimpleNotificationService-1.pem',
      'https://sns.us-east-1.amazonaws.com.evil.example/SimpleNotificationService-1.pem',
      'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
      `${sns.origin}/certs/SimpleNotificationService-1.crt`,
      `http://localhost:${new URL(sns.origin).port}/certs/SimpleNotificationService-1.pem`,
      'not a url.pem',
    ]) {
      const error = await rejection(sns.sign(fields, { certUrl }));
      expect([certUrl, error.status, error.message]).toEqual([certUrl, 401, 'SigningCertURL is not an SNS certificate (https on an SNS host, ending in .pem)']);
    }
    expect(sns.requests.length).toBe(before);
  });

  it('refuses a message outside the hour SNS delivers within: a recorded ALARM cannot be replayed', async () => {
    const old = sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('ALARM'), Timestamp: new Date(t.clock.now().getTime() - 61 * 60_000).toISOString() });
    expect((await rejection(old)).status).toBe(401);
    const ahead = sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('ALARM'), Timestamp: new Date(t.clock.now().getTime() + 10 * 60_000).toISOString() });
    expect((await rejection(ahead)).status).toBe(401);
  });
});

describe('SNS host allowance', () => {
  it("accepts SNS's own endpoint in each partition and nothing that only looks like it", async () => {
    const accepted = [
      'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-a.pem',
      'https://sns.eu-west-3.amazonaws.com/x.pem',
      'https://sns.cn-north-1.amazonaws.com.cn/x.pem',
      'https://sns.us-gov-west-1.amazonaws.com/x.pem',
    ];
    const refused = [
      'http://sns.us-east-1.amazonaws.com/x.pem',
      'https://sns.us-east-1.amazonaws.com:8443/x.pem',
      'https://user:pw@sns.us-east-1.amazonaws.com/x.pem',
      'https://sns.cn-north-1.amazonaws.com/x.pem',
      'https://sns.us-east-1.amazonaws.com.cn/x.pem',
      'https://sqs.us-east-1.amazonaws.com/x.pem',
      'https://sns.us-east-1.amazonaws.com.evil.example/x.pem',
      'https://evilsns.us-east-1.amazonaws.com/x.pem',
      'https://sns..amazonaws.com/x.pem',
      'https://sns.amazonaws.com/x.pem',
    ];
    for (const url of accepted) expect([url, await isSnsUrl(url, [])]).toEqual([url, true]);
    for (const url of refused) expect([url, await isSnsUrl(url, [])]).toEqual([url, false]);
    expect(await isSnsUrl('http://127.0.0.1:9/x.pem', ['http://127.0.0.1:9'])).toBe(true);
    expect(await isSnsUrl('http://127.0.0.1:10/x.pem', ['http://127.0.0.1:9'])).toBe(false);
  });

  it('reads VIGIL_SNS_TRUSTED_ORIGINS as a list of origins and refuses anything else at boot', () => {
    expect(loadConfig({}).snsTrustedOrigins).toEqual([]);
    expect(loadConfig({ VIGIL_SNS_TRUSTED_ORIGINS: 'http://127.0.0.1:4566, https://sns.local.test' }).snsTrustedOrigins).toEqual([
      'http://127.0.0.1:4566',
      'https://sns.local.test',
    ]);
    for (const bad of ['http://127.0.0.1:4566/path', 'ftp://127.0.0.1', 'sns.local.test']) {
      expect(() => loadConfig({ VIGIL_SNS_TRUSTED_ORIGINS: bad })).toThrow(ConfigError);
    }
  });
});

describe('SNS subscriptions', () => {
  const confirmation = (type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation', subscribeUrl: string) => ({
    Type: type,
    Message: 'You have chosen to subscribe to the topic. To confirm the subscription, visit the SubscribeURL included in this message.',
    Timestamp: now(),
    Token: `token-${Math.random().toString(36).slice(2)}`,
    SubscribeURL: subscribeUrl,
  });

  it('confirms a subscription with one GET of its SubscribeURL through the guarded client', async () => {
    const subscribeUrl = `${sns.origin}/confirm?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:123456789012:alarms&Token=one`;
    const message = sns.sign(confirmation('SubscriptionConfirmation', subscribeUrl));
    const outcome = await parse(message, { 'x-amz-sns-message-type': 'SubscriptionConfirmation' });
    expect(outcome).toEqual({ kind: 'handled', status: 202, body: { status: 'confirmed', topicArn: message.TopicArn } });
    expect(sns.requests).toContain(`GET ${new URL(subscribeUrl).pathname}${new URL(subscribeUrl).search}`);
  });

  it('does not follow a SubscribeURL off SNS hosts, nor a forged confirmation', async () => {
    const offHost = sns.sign(confirmation('SubscriptionConfirmation', `http://localhost:${new URL(sns.origin).port}/confirm?Token=offhost`));
    expect((await rejection(offHost)).status).toBe(401);
    const forged = { ...sns.sign(confirmation('SubscriptionConfirmation', `${sns.origin}/confirm?Token=good`)), SubscribeURL: `${sns.origin}/confirm?Token=forged` };
    expect((await rejection(forged)).status).toBe(401);
    expect(sns.requests.filter((line) => line.includes('Token=offhost') || line.includes('Token=forged') || line.includes('Token=good'))).toEqual([]);
  });

  it('answers 502 when SNS refuses the confirmation, so SNS delivers it again', async () => {
    sns.confirmStatus = 500;
    try {
      const error = await rejection(sns.sign(confirmation('SubscriptionConfirmation', `${sns.origin}/confirm?Token=refused`)));
      expect([error.status, error.code]).toEqual([502, 'UPSTREAM_FAILED']);
    } finally {
      sns.confirmStatus = 200;
    }
  });

  it('acknowledges an UnsubscribeConfirmation without subscribing again', async () => {
    const message = sns.sign(confirmation('UnsubscribeConfirmation', `${sns.origin}/confirm?Token=resubscribe`));
    expect(await parse(message)).toEqual({ kind: 'handled', status: 202, body: { status: 'unsubscribed', topicArn: message.TopicArn } });
    expect(hits('Token=resubscribe')).toBe(0);
  });
});

describe('bad SNS payloads', () => {
  it('answers 400 with details for a message that is not SNS, a wrong type header, or a Message that is no alarm', async () => {
    const missing = await rejection({ Type: 'Notification', Message: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.details?.map((detail) => detail.path)).toEqual(expect.arrayContaining(['MessageId', 'TopicArn', 'Timestamp', 'Signature', 'SigningCertURL']));
    expect((await rejection({ ...sns.sign(confirmation400()), SubscribeURL: undefined })).status).toBe(400);
    const mismatch = await rejection(sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('ALARM'), Timestamp: now() }), {
      'x-amz-sns-message-type': 'SubscriptionConfirmation',
    });
    expect(mismatch.status).toBe(400);
    const text = await rejection(sns.sign({ Type: 'Notification', Message: 'Hello from a plain topic', Timestamp: now() }));
    expect([text.status, text.message]).toEqual([400, 'The SNS Message is not a CloudWatch alarm (not JSON); only CloudWatch alarm notifications are understood']);
    const notAlarm = await rejection(sns.sign({ Type: 'Notification', Message: JSON.stringify({ AlarmName: 'x', NewStateValue: 'MAYBE' }), Timestamp: now() }));
    expect(notAlarm.details?.[0]?.path).toBe('NewStateValue');
    for (const body of [null, 'text', [1, 2], 42]) expect((await rejection(body)).status).toBe(400);
  });
});

function confirmation400() {
  return { Type: 'SubscriptionConfirmation' as const, Message: 'confirm', Timestamp: now(), Token: 'tok', SubscribeURL: `${sns.origin}/confirm?Token=x` };
}
