import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { createIntegration, intakePath, type CreatedIntegration } from '../../test/support/integrations.js';
import { cloudWatchAlarm, startSnsFixture, type SnsFixture } from '../../test/support/sns.js';
import type { User } from '../../test/support/users.js';

/*
 * Hostile bodies at the SNS and PagerDuty intake URLs, over HTTP through the real app: random JSON,
 * and valid messages with one field replaced by something odd. Whatever comes in, the answer is a
 * 2xx or a 4xx in the spec's error shape: never a 5xx (SNS's 502 needs SNS itself to fail, which
 * the stand-in here never does).
 */

let sns: SnsFixture;
let t: TestContext;
let user: User;
let snsIntegration: CreatedIntegration;
let pdIntegration: CreatedIntegration;
beforeAll(async () => {
  sns = await startSnsFixture();
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_SNS_TRUSTED_ORIGINS: sns.origin, VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  user = await t.signup('hostile');
  snsIntegration = await createIntegration(t, user, { name: 'sns', kind: 'SNS' });
  pdIntegration = await createIntegration(t, user, { name: 'pd', kind: 'PAGERDUTY_EVENTS' });
});
afterAll(() => sns.close());

const odd = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '\u0000', '\r\n', '</script>', 'ALARM', 'trigger', 'https://evil.example/x.pem', 'x'.repeat(5000), -1, 1e308, null, [], {}),
);

async function expectNo5xx(integration: CreatedIntegration, body: unknown): Promise<void> {
  t.clock.advanceSeconds(1);
  const res = await t.request('POST', intakePath(integration), { rawBody: JSON.stringify(body) ?? 'null', headers: { 'content-type': 'text/plain; charset=UTF-8' } });
  expect(res.status, res.text).toBeLessThan(500);
  if (res.status >= 400) expect(res.body).toMatchObject({ statusCode: res.status, message: expect.any(String), error: expect.any(String) });
}

describe('hostile intake payloads', () => {
  it('SNS: random JSON and signed messages with one field replaced never get a 5xx', async () => {
    const fields = ['Type', 'MessageId', 'TopicArn', 'Message', 'Timestamp', 'SignatureVersion', 'Signature', 'Subject', 'SubscribeURL', 'Token'];
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.tuple(fc.constantFrom(...fields), odd)), async (input) => {
        if (!Array.isArray(input) || input.length !== 2 || typeof input[0] !== 'string' || !fields.includes(input[0])) return expectNo5xx(snsIntegration, input);
        const [field, value] = input;
        const signed = sns.sign({ Type: 'Notification', Message: cloudWatchAlarm('ALARM', { name: 'fuzzed' }), Timestamp: t.clock.now().toISOString() });
        return expectNo5xx(snsIntegration, { ...signed, [field]: value });
      }),
      { numRuns: 60 },
    );
  });

  it('PagerDuty: random JSON and events with one field replaced never get a 5xx', async () => {
    const event = { routing_key: 'k', event_action: 'trigger', dedup_key: 'fuzz', payload: { summary: 's', source: 'src', severity: 'info', custom_details: { a: 1 } } };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.tuple(fc.constantFrom('routing_key', 'event_action', 'dedup_key', 'payload'), odd).map(([field, value]) => ({ ...event, [field]: value })),
          fc
            .tuple(fc.constantFrom('summary', 'source', 'severity', 'timestamp', 'custom_details', 'component'), odd)
            .map(([field, value]) => ({ ...event, payload: { ...event.payload, [field]: value } })),
        ),
        (body) => expectNo5xx(pdIntegration, body),
      ),
      { numRuns: 60 },
    );
  });
});
