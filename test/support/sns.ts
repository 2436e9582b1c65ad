import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SNS_TEST_CERT_PEM, SNS_TEST_KEY_PEM } from './snsFixture.js';

/**
 * A stand-in for AWS SNS on 127.0.0.1: the test-only certificate of ./snsFixture.ts served at a
 * `.pem` URL, a SubscribeURL endpoint that records each confirmation, and a signer that
 * signs messages as AWS documents it. The canonical string is written out here, not imported
 * from Vigil, so the tests check the parser against AWS's description rather than against itself.
 */

type MessageType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

const SIGNED = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;

export type SnsMessageFields = { Type: MessageType; Message: string; Timestamp: string; Subject?: string; TopicArn?: string; SubscribeURL?: string; Token?: string };
export type SignedMessage = Record<string, string>;

export type SnsFixture = {
  origin: string;
  /** A fresh certificate URL on this server (the parser caches certificates by URL). */
  certUrl(): string;
  /** Each request the server saw, as method and path with query. */
  readonly requests: string[];
  /** Answers the next SubscribeURL requests with this status. */
  confirmStatus: number;
  sign(fields: SnsMessageFields, options?: { certUrl?: string; version?: '1' | '2'; keyPem?: string }): SignedMessage;
  /** A second key pair, for signatures no certificate of this server vouches for. */
  readonly otherKeyPem: string;
  close(): Promise<void>;
};

export async function startSnsFixture(): Promise<SnsFixture> {
  const keyPem = SNS_TEST_KEY_PEM;
  const certPem = SNS_TEST_CERT_PEM;
  // A key no certificate of this server holds, made fresh: signatures by it must never verify.
  const otherKeyPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const requests: string[] = [];
  const fixture = { confirmStatus: 200 };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(`${req.method} ${path}`);
    if (req.method === 'GET' && /^\/certs\/[\w-]+\.pem$/.test(path)) {
      res.writeHead(200, { 'content-type': 'application/x-x509-ca-cert' }).end(certPem);
    } else if (req.method === 'GET' && path.startsWith('/confirm?')) {
      res.writeHead(fixture.confirmStatus, { 'content-type': 'text/xml' }).end('<ConfirmSubscriptionResponse/>');
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let topicCounter = 0;

  return Object.assign(fixture, {
    origin,
    requests,
    otherKeyPem,
    certUrl: () => `${origin}/certs/SimpleNotificationService-${randomUUID()}.pem`,
    sign(fields: SnsMessageFields, options: { certUrl?: string; version?: '1' | '2'; keyPem?: string } = {}): SignedMessage {
      topicCounter++;
      const message: Record<string, string> = {
        MessageId: randomUUID(),
        TopicArn: fields.TopicArn ?? `arn:aws:sns:us-east-1:123456789012:vigil-test-${topicCounter}`,
        ...Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined)),
      };
      const canonical = SIGNED[fields.Type]
        .filter((name) => message[name] !== undefined)
        .map((name) => `${name}\n${message[name]}\n`)
        .join('');
      const version = options.version ?? '1';
      const signature = sign(version === '1' ? 'sha1' : 'sha256', Buffer.from(canonical, 'utf8'), options.keyPem ?? keyPem).toString('base64');
      return { ...message, SignatureVersion: version, Signature: signature, SigningCertURL: options.certUrl ?? `${origin}/certs/SimpleNotificationService-main.pem` };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A CloudWatch alarm state change as SNS carries it in Message. */
export function cloudWatchAlarm(state: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA', options: { name?: string; at?: string } = {}): string {
  const name = options.name ?? 'api-5xx-rate';
  return JSON.stringify({
    AlarmName: name,
    AlarmDescription: 'More than 1% of API requests fail',
    AWSAccountId: '123456789012',
    AlarmConfigurationUpdatedTimestamp: '2026-02-01T10:00:00.000+0000',
    NewStateValue: state,
    NewStateReason: `Threshold Crossed: 1 datapoint [4.2 (01/03/26 11:59:00)] was ${state === 'OK' ? 'not ' : ''}greater than the threshold (1.0).`,
    StateChangeTime: options.at ?? '2026-03-01T12:00:00.000+0000',
    Region: 'US East (N. Virginia)',
    AlarmArn: `arn:aws:cloudwatch:us-east-1:123456789012:alarm:${name}`,
    OldStateValue: state === 'ALARM' ? 'OK' : 'ALARM',
    Trigger: {
      MetricName: '5XXError',
      Namespace: 'AWS/ApiGateway',
      Statistic: 'AVERAGE',
      Period: 60,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 1,
    },
  });
}
