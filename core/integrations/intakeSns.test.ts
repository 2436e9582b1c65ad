import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { timeline } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { incidentsOf, type IncidentBody } from '../../test/support/incidents.js';
import { createIntegration, intakePath, type CreatedIntegration } from '../../test/support/integrations.js';
import { cloudWatchAlarm, startSnsFixture, type SignedMessage, type SnsFixture } from '../../test/support/sns.js';
import type { User } from '../../test/support/users.js';

/*
 * CloudWatch alarms through SNS, over HTTP through the real app: the signing certificate and the
 * SubscribeURL are served by a local stand-in for SNS (test/support/sns.ts), trusted through
 * VIGIL_SNS_TRUSTED_ORIGINS as an emulator would be.
 */

let sns: SnsFixture;
let t: TestContext;
let user: User;
beforeAll(async () => {
  sns = await startSnsFixture();
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_SNS_TRUSTED_ORIGINS: sns.origin, VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  user = await t.signup('sns');
});
afterAll(() => sns.close());
beforeEach(() => t.clock.advanceSeconds(61));

/** As SNS posts: JSON in a text/plain body, the type in a header. */
async function deliver(integration: CreatedIntegration, message: SignedMessage) {
  const res = await t.request('POST', intakePath(integration), {
    rawBody: JSON.stringify(message),
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': message.Type ?? '', 'x-amz-sns-topic-arn': message.TopicArn ?? '' },
  });
  await t.deps.queue.drain();
  return res;
}

const incidentsFrom = async (integration: CreatedIntegration): Promise<IncidentBody[]> =>
  (await incidentsOf(t, user, '&limit=100')).items.filter((incident) => incident.integrationId === integration.id);

async function snapshot(integration: CreatedIntegration) {
  const incidents = await incidentsFrom(integration);
  return { incidents, timelines: await Promise.all(incidents.map((incident) => timeline(t, user, incident.id))) };
}

const notification = (state: 'ALARM' | 'OK', name: string): SignedMessage =>
  sns.sign(
    {
      Type: 'Notification',
      Subject: `${state}: "${name}" in US East (N. Virginia)`,
      Message: cloudWatchAlarm(state, { name, at: t.clock.now().toISOString() }),
      Timestamp: t.clock.now().toISOString(),
    },
    { version: '2' },
  );

describe('SNS intake over HTTP', () => {
  it('confirms the subscription SNS asks for by fetching its SubscribeURL', async () => {
    const integration = await createIntegration(t, user, { name: 'CloudWatch', kind: 'SNS' });
    const subscribeUrl = `${sns.origin}/confirm?Action=ConfirmSubscription&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3Avigil-alarms&Token=http-test`;
    const message = sns.sign({
      Type: 'SubscriptionConfirmation',
      Message: 'You have chosen to subscribe to the topic.',
      Timestamp: t.clock.now().toISOString(),
      Token: 'http-test',
      SubscribeURL: subscribeUrl,
    });
    const res = await deliver(integration, message);
    expect([res.status, res.body]).toEqual([202, { status: 'confirmed', topicArn: message.TopicArn }]);
    expect(sns.requests.filter((line) => line.includes('Token=http-test'))).toEqual([`GET ${subscribeUrl.slice(sns.origin.length)}`]);
    expect(await incidentsFrom(integration)).toEqual([]);
  });

  it('a signed ALARM opens one incident, a re-delivered ALARM changes nothing, OK resolves it', async () => {
    const integration = await createIntegration(t, user, { name: 'CloudWatch', kind: 'SNS', projectId: user.projectId, defaultSeverity: 'P2' });
    const alarm = notification('ALARM', 'orders-queue-depth');
    const opened = await deliver(integration, alarm);
    expect(opened.status, opened.text).toBe(200);
    const [incident, ...others] = await incidentsFrom(integration);
    expect(others).toEqual([]);
    expect(incident).toMatchObject({ state: 'ACTIVE', title: 'orders-queue-depth', severity: 'P2', projectId: user.projectId, integrationId: integration.id });
    expect(opened.body).toEqual({ accepted: 1, incidentIds: [incident?.id] });

    const before = await snapshot(integration);
    t.clock.advanceSeconds(30);
    // SNS retries a delivery it saw fail: the very same message again.
    expect((await deliver(integration, alarm)).status).toBe(200);
    expect(await snapshot(integration)).toEqual(before);

    t.clock.advanceSeconds(120);
    const resolved = await deliver(integration, notification('OK', 'orders-queue-depth'));
    expect([resolved.status, resolved.body]).toEqual([200, { accepted: 1, incidentIds: [incident?.id] }]);
    expect(await incidentsFrom(integration)).toMatchObject([{ id: incident?.id, state: 'RESOLVED' }]);
  });

  it('a forged signature gets 401 in the error shape and changes nothing', async () => {
    const integration = await createIntegration(t, user, { name: 'CloudWatch', kind: 'SNS' });
    const before = await snapshot(integration);
    const signed = notification('OK', 'payments-latency');
    const forged = { ...signed, Message: cloudWatchAlarm('ALARM', { name: 'payments-latency' }) };
    expectError(await deliver(integration, forged), 401, 'UNAUTHORIZED');
    const offHost = sns.sign(
      { Type: 'Notification', Message: cloudWatchAlarm('ALARM', { name: 'payments-latency' }), Timestamp: t.clock.now().toISOString() },
      { certUrl: 'https://evil.example/SimpleNotificationService-1.pem' },
    );
    expectError(await deliver(integration, offHost), 401, 'UNAUTHORIZED');
    expect(await snapshot(integration)).toEqual(before);
  });

  it('a message that is no SNS message gets 400 and a wrong secret 404, before any signature is fetched', async () => {
    const integration = await createIntegration(t, user, { name: 'CloudWatch', kind: 'SNS' });
    const requestsBefore = sns.requests.length;
    expectError(await t.request('POST', intakePath(integration), { body: { hello: 'world' } }), 400, 'VALIDATION_ERROR');
    const wrongSecret = `${intakePath(integration).replace(/\/[^/]+$/, '/')}not-the-secret`;
    expectError(await t.request('POST', wrongSecret, { rawBody: JSON.stringify(notification('ALARM', 'x')), headers: { 'content-type': 'text/plain' } }), 404);
    expect(sns.requests.length).toBe(requestsBefore);
    expect(await incidentsFrom(integration)).toEqual([]);
  });
});
