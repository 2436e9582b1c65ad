import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, expectStatus, freshRateWindow, inboundBody, type User } from '../../test/support/checks.js';
import { checkOf } from '../../test/support/signals.js';
import { sweepHeartbeats } from '../sweep/index.js';
import { nextOccurrence, scheduleProblem } from './cron.js';
import { writeJobRules } from './jobRules.js';
import { onPing } from './status.js';
import type { DashboardCheck, JobV1 } from './schema.js';

describe('nextOccurrence (pure)', () => {
  it('keeps wall-clock time across DST in Europe/Berlin (spring forward, fall back)', () => {
    // 02:30 local: on 29 March 2026 02:00-03:00 does not exist; the run fires right after the gap.
    expect(nextOccurrence('30 2 * * *', 'Europe/Berlin', new Date('2026-03-27T01:30:00Z'))?.toISOString()).toBe('2026-03-28T01:30:00.000Z'); // CET
    expect(nextOccurrence('30 2 * * *', 'Europe/Berlin', new Date('2026-03-28T01:30:00Z'))?.toISOString()).toBe('2026-03-29T01:30:00.000Z'); // 03:30 CEST
    expect(nextOccurrence('30 2 * * *', 'Europe/Berlin', new Date('2026-03-29T01:30:00Z'))?.toISOString()).toBe('2026-03-30T00:30:00.000Z'); // CEST
    // @daily at midnight local: 25 October 2026 has 25 hours.
    expect(nextOccurrence('@daily', 'Europe/Berlin', new Date('2026-10-24T22:00:00Z'))?.toISOString()).toBe('2026-10-25T23:00:00.000Z');
  });

  it('keeps wall-clock time across DST in America/New_York and Australia/Sydney', () => {
    // 09:00 on weekdays, New York: EST -> EDT on 8 March 2026.
    expect(nextOccurrence('0 9 * * 1-5', 'America/New_York', new Date('2026-03-06T14:00:00Z'))?.toISOString()).toBe('2026-03-09T13:00:00.000Z');
    expect(nextOccurrence('0 9 * * 1-5', 'America/New_York', new Date('2026-03-05T14:00:00Z'))?.toISOString()).toBe('2026-03-06T14:00:00.000Z');
    // 01:30 happens twice on 1 November 2026 (fall back): one run, then the next day's.
    const first = nextOccurrence('30 1 * * *', 'America/New_York', new Date('2026-11-01T04:00:00Z'));
    expect(first?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(nextOccurrence('30 1 * * *', 'America/New_York', first as Date)?.toISOString()).toBe('2026-11-02T06:30:00.000Z');
    // Sydney leaves daylight time on 5 April 2026 (AEDT +11 -> AEST +10).
    expect(nextOccurrence('0 3 * * *', 'Australia/Sydney', new Date('2026-04-02T17:00:00Z'))?.toISOString()).toBe('2026-04-03T16:00:00.000Z'); // 03:00 AEDT
    expect(nextOccurrence('0 3 * * *', 'Australia/Sydney', new Date('2026-04-03T16:00:00Z'))?.toISOString()).toBe('2026-04-04T17:00:00.000Z'); // 03:00 AEST, 25 h on
    expect(nextOccurrence('0 3 * * *', 'Australia/Sydney', new Date('2026-04-04T17:00:00Z'))?.toISOString()).toBe('2026-04-05T17:00:00.000Z');
  });

  it('refuses out-of-bounds fields, wrong field counts, unknown macros and zones', () => {
    for (const expression of [
      '60 * * * *',
      '* 24 * * *',
      '* * 0 * *',
      '* * 32 * *',
      '* * * 13 *',
      '* * * * 8',
      '*/0 * * * *',
      '* * * *',
      '* * * * * *',
      '@often',
      'x * * * *',
      'H * * * *',
      '0 0 31 2 *',
      '',
      'a'.repeat(101),
    ]) {
      expect(scheduleProblem(expression, 'UTC'), expression).toBeTypeOf('string');
    }
    expect(scheduleProblem('0 9 * * 1-5', 'Mars/Olympus')).toBe('unknown time zone');
    expect(scheduleProblem('0 9 * * 1-5', '+02:00')).toBe('unknown time zone');
    for (const expression of ['0 9 * * 1-5', '*/15 * * * *', '@daily', '@hourly', '@weekly', '0 0 1 jan *', '0 12 * * sun', '59 23 31 12 7']) {
      expect(scheduleProblem(expression, 'Europe/Berlin'), expression).toBeUndefined();
    }
  });

  it('property: the next due time is always strictly after the last ping', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'America/Sao_Paulo'];
    const expressions = ['@hourly', '@daily', '30 2 * * *', '0 9 * * 1-5', '*/7 * * * *', '15 1 1 * *', '0 0 * * 0'];
    fc.assert(
      fc.property(
        fc.constantFrom(...expressions),
        fc.constantFrom(...zones),
        fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2028-12-31T00:00:00Z') }),
        (expression, zone, at) => {
          const last = new Date(at);
          const next = nextOccurrence(expression, zone, last);
          expect(next).not.toBeNull();
          expect((next as Date).getTime()).toBeGreaterThan(last.getTime());
          // ...and never skips an occurrence: the next of the next is later still.
          expect((nextOccurrence(expression, zone, next as Date) as Date).getTime()).toBeGreaterThan((next as Date).getTime());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: a success ping of a scheduled check sets nextDueAt after the ping, and the due index grace later', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('@hourly', '@daily', '30 2 * * *', '0 9 * * 1-5', '*/7 * * * *'),
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu'),
        fc.integer({ min: Date.parse('2025-01-01T00:00:00Z'), max: Date.parse('2028-12-31T00:00:00Z') }),
        fc.constantFrom('OK', 'LATE', 'DOWN', 'RESUMED', 'NEW') as fc.Arbitrary<'OK' | 'LATE' | 'DOWN' | 'RESUMED' | 'NEW'>,
        fc.integer({ min: 0, max: 3600 }),
        (schedule, timezone, at, status, graceSeconds) => {
          const now = new Date(at);
          const jobRules = writeJobRules({ schedule, timezone });
          const outcome = onPing({ checkId: 1, status, checkMode: 'INBOUND', intervalSeconds: 60, graceSeconds, jobRules }, now, 'success');
          const due = Date.parse(outcome.changes.set.nextDueAt ?? '');
          expect(due).toBeGreaterThan(now.getTime());
          // Cron jobs follow the same rule: LATE (the due entry) grace after the occurrence.
          expect(Date.parse(outcome.changes.set.dueAt ?? '')).toBe(due + graceSeconds * 1000);
        },
      ),
      { numRuns: 200 },
    );
  });
});

let t: TestContext;
let user: User;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('scheduler');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

const job = (body: Record<string, unknown>) =>
  t.request<JobV1>('POST', '/v1/jobs', { token: key, body: { name: 'cron job', projectId: user.projectId, graceSeconds: 300, ...body } });

describe('scheduled heartbeat checks over HTTP', () => {
  it('/v1/jobs: due at the next occurrence after the last ping, LATE then DOWN with the grace, across the Berlin DST change', async () => {
    t.clock.set('2026-03-28T01:00:00Z'); // 02:00 CET
    const created = expectStatus(await job({ schedule: '30 2 * * *', timezone: 'Europe/Berlin' }), 201);
    expect(created).toMatchObject({ intervalSeconds: null, schedule: '30 2 * * *', timezone: 'Europe/Berlin', minDurationSeconds: null });
    const { token } = created as JobV1 & { token: string };
    t.clock.set('2026-03-28T01:31:00Z');
    expect((await t.request('POST', `/signals/ping/${token}`)).status).toBe(200);
    // The next run is 02:30 on the night the clocks jump: 03:30 CEST = 01:30Z.
    expect(expectStatus(await t.request<JobV1>('GET', `/v1/jobs/${created.id}`, { token: key }), 200).nextDueAt).toBe('2026-03-29T01:30:00.000Z');
    // The 300 s of grace are tolerated lateness: LATE after 01:35Z, DOWN after 01:40Z.
    t.clock.set('2026-03-29T01:35:00Z');
    await sweepHeartbeats(t.deps, t.clock.now());
    expect((await checkOf(t, token)).status).toBe('OK');
    t.clock.set('2026-03-29T01:36:00Z');
    await sweepHeartbeats(t.deps, t.clock.now());
    expect((await checkOf(t, token)).status).toBe('LATE');
    t.clock.set('2026-03-29T01:41:00Z');
    await sweepHeartbeats(t.deps, t.clock.now());
    expect((await checkOf(t, token)).status).toBe('DOWN');
    // A ping brings it back; the next run is 02:30 CEST = 00:30Z.
    expect((await t.request('POST', `/signals/ping/${token}`)).status).toBe(200);
    const after = await checkOf(t, token);
    expect(after).toMatchObject({ status: 'OK', nextDueAt: '2026-03-30T00:30:00.000Z', dueAt: '2026-03-30T00:35:00.000Z' });
  });

  it('dashboard checks: a schedule in America/New_York across the fall-back night', async () => {
    t.clock.set('2026-10-31T09:00:00Z');
    // Sessions live a day: a user signed up at this test's time.
    const user = await t.signup('dashboarder');
    const res = await t.request<DashboardCheck>('POST', '/checks', {
      token: user.token,
      body: { ...inboundBody(user), intervalSeconds: undefined, schedule: '0 6 * * *', timezone: 'America/New_York' },
    });
    const check = expectStatus(res, 201);
    expect(check).toMatchObject({ intervalSeconds: null, schedule: '0 6 * * *', timezone: 'America/New_York' });
    t.clock.set('2026-10-31T10:05:00Z'); // 06:05 EDT
    expect((await t.request('GET', `/signals/ping/${check.token}`)).status).toBe(200);
    // 06:00 EST the next day is 11:00Z (25 hours later).
    expect((await checkOf(t, check.token)).nextDueAt).toBe('2026-11-01T11:00:00.000Z');
    // Switching back to an interval clears the schedule and re-times from the last ping.
    const back = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { intervalSeconds: 3600 } }), 200);
    expect(back).toMatchObject({ intervalSeconds: 3600, schedule: null, timezone: null, nextDueAt: '2026-10-31T11:05:00.000Z' });
    // ...and to a schedule again re-times from the last ping too.
    const again = expectStatus(
      await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { schedule: '@daily', timezone: 'Europe/Berlin' } }),
      200,
    );
    expect(again).toMatchObject({ intervalSeconds: null, schedule: '@daily', nextDueAt: '2026-10-31T23:00:00.000Z' });
  });

  it('400s bad expressions, out-of-bounds fields, unknown zones, both or neither of interval and schedule', async () => {
    const user = await t.signup('validator');
    for (const schedule of ['60 * * * *', '* 24 * * *', '* * * *', '@often', 'every day', '0 0 31 2 *', '*/0 * * * *']) {
      const error = expectError(await job({ schedule }), 400, 'VALIDATION_ERROR');
      expect(error.message.length).toBeGreaterThan(0);
    }
    const zone = expectError(await job({ schedule: '@daily', timezone: 'Mars/Olympus' }), 400) as { details?: { path: string }[] };
    expect(zone.details?.[0]?.path).toBe('timezone');
    expectError(await job({ schedule: '@daily', intervalSeconds: 600 }), 400);
    expectError(await job({ intervalSeconds: 600, timezone: 'Europe/Berlin' }), 400);
    expectError(await job({ schedule: '@daily', minDurationSeconds: 60, maxDurationSeconds: 30 }), 400);
    expectError(await t.request('POST', '/checks', { token: user.token, body: { ...inboundBody(user), intervalSeconds: undefined } }), 400);
    expectError(await t.request('POST', '/checks', { token: user.token, body: { ...inboundBody(user), schedule: '@hourly' } }), 400);
    // Outbound checks are probed on an interval: no schedule or run rules.
    const outbound = { name: 'web', projectId: user.projectId, checkMode: 'OUTBOUND', intervalSeconds: 60, graceSeconds: 30, url: 'https://example.com/' };
    expectError(await t.request('POST', '/checks', { token: user.token, body: { ...outbound, schedule: '@hourly' } }), 400);
    expectError(await t.request('POST', '/checks', { token: user.token, body: { ...outbound, maxDurationSeconds: 60 } }), 400);
    // The dashboard keeps inbound checks at 300 s or more: a schedule firing every minute is refused.
    expectError(await t.request('POST', '/checks', { token: user.token, body: { ...inboundBody(user), intervalSeconds: undefined, schedule: '* * * * *' } }), 400);
    const made = expectStatus(await job({ schedule: '@hourly' }), 201);
    expect(made).toMatchObject({ schedule: '@hourly', timezone: 'UTC' });
    expectError(await t.request('PATCH', `/v1/jobs/${made.id}`, { token: key, body: { schedule: null } }), 400);
    expectError(await t.request('PATCH', `/v1/jobs/${made.id}`, { token: key, body: { schedule: 'nope' } }), 400);
    expect(expectStatus(await t.request<JobV1>('PATCH', `/v1/jobs/${made.id}`, { token: key, body: { schedule: null, intervalSeconds: 600 } }), 200)).toMatchObject({
      schedule: null,
      intervalSeconds: 600,
    });
  });
});
