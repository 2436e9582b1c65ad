import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { channel, schedule, team } from '../../test/support/escalation.js';

/** "No 500 from user input": random bodies, ids and queries on the routing and on-call routes. */
let t: TestContext;
let session: string;

beforeAll(async () => {
  t = await createTestContext();
  const user = await t.signup('routing-fuzz');
  session = user.token;
  // Real resources behind id 1, so random bodies reach the update logic, not only 404s.
  const ids = { channel: await channel(t, user), schedule: await schedule(t, user, [user.userId]), team: await team(t, user, [user.userId]) };
  const policy = await t.request('POST', '/escalation-policies', {
    token: session,
    body: { workspaceId: user.workspaceId, name: 'p', priority: 0, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'TEAM', targetTeamId: ids.team }] }] },
  });
  const rule = await t.request('POST', '/escalation-rules', { token: session, body: { projectId: user.projectId, alertChannelId: ids.channel, delayMinutes: 0 } });
  expect([policy.status, rule.status]).toEqual([201, 201]);
});

const WRITES: [string, string][] = [
  ['POST', '/teams'],
  ['PUT', '/teams/{id}'],
  ['POST', '/team-members'],
  ['POST', '/on-call-schedules'],
  ['PUT', '/on-call-schedules/{id}'],
  ['POST', '/on-call-overrides'],
  ['POST', '/escalation-policies'],
  ['PUT', '/escalation-policies/{id}'],
  ['POST', '/escalation-rules'],
  ['PUT', '/escalation-rules/{id}'],
];
const READS = [
  '/on-call-schedules/{id}/on-call?at={q}',
  '/on-call-schedules/{id}/shifts?from={q}&to={q}',
  '/on-call-schedules/{id}/report?from=2026-03-01T00:00:00Z&to={q}',
  '/escalation-policies/{id}/simulate?at={q}&projectId={q}',
  '/on-call-calendars/{id}/calendar.ics',
  '/teams?workspaceId={q}&page={q}',
];
const ODD = ['1', '0', '-1', 'abc', '1e309', '9007199254740993', '%2e%2e', 'x'.repeat(300), '2026-03-01T00:00:00Z', '1_AAAA'];

const key = fc.constantFrom(
  'workspaceId',
  'name',
  'timezone',
  'rotations',
  'type',
  'layerPosition',
  'effectiveFrom',
  'effectiveUntil',
  'handoffTime',
  'handoffDay',
  'customShiftHours',
  'participants',
  'scheduleId',
  'overrideUserId',
  'startAt',
  'endAt',
  'replacedUserId',
  'priority',
  'projectIds',
  'steps',
  'position',
  'delayMinutes',
  'targets',
  'targetType',
  'alertChannelId',
  'targetUserId',
  'teamId',
  'userId',
  'projectId',
  'repeatCount',
  'ackTimeoutMinutes',
  'enabled',
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(key, fc.jsonValue({ maxDepth: 3 })),
  fc.dictionary(key, fc.array(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 })),
);

function expectClientAnswer(status: number, text: string, what: string): void {
  if (status >= 500) throw new Error(`${what} answered ${status}: ${text}`);
  if (status >= 400) expect(JSON.parse(text)).toMatchObject({ statusCode: status, message: expect.any(String), error: expect.any(String) });
}

let requests = 0;
/** Stay inside one rate-limit window per 90 requests, and inside the access token's life. */
function pace(): void {
  if (++requests % 90 === 0) t.clock.advanceSeconds(61);
}

describe('routing and on-call: no 5xx from user input', () => {
  it('random bodies on every write route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES), fc.constantFrom('1', ...ODD), body, async ([method, template], id, payload) => {
        pace();
        const path = template.replace('{id}', encodeURIComponent(id));
        const res = await t.request(method, path, { token: session, body: payload });
        expectClientAnswer(res.status, res.text, `${method} ${path} ${JSON.stringify(payload).slice(0, 300)}`);
      }),
      { numRuns: 250, seed: Number(process.env.FUZZ_SEED ?? 20261123) },
    );
  });

  it('odd ids and query values on the views', async () => {
    for (const template of READS) {
      for (const value of ODD) {
        pace();
        const path = template.replaceAll('{id}', encodeURIComponent(value)).replaceAll('{q}', encodeURIComponent(value));
        const res = await t.request('GET', path, { token: session });
        expectClientAnswer(res.status, res.text, `GET ${path}`);
      }
    }
  });
});
