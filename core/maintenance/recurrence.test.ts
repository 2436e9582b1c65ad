import fc from 'fast-check';
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { cronProblem, isValidTimezone, occurrenceAt, occursWithin, planWindow, type WindowTiming } from './recurrence.js';

const at = (iso: string): Date => new Date(iso);
const HOUR = 3_600_000;

describe('time zones and cron expressions', () => {
  it('accepts IANA zones and refuses unknown ones', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata']) expect(isValidTimezone(zone)).toBe(true);
    for (const zone of ['Mars/Olympus', 'Europe/Nowhere', '', 'GMT+99']) expect(isValidTimezone(zone)).toBe(false);
  });

  it('accepts five-field expressions and named macros, refuses junk with a reason', () => {
    for (const ok of ['0 2 * * 0', '*/15 3 * * mon-fri', '30 1 1 * *', '0 4 * * THU', '@daily', '@weekly']) {
      expect(cronProblem(ok, 'Europe/Berlin')).toBeUndefined();
    }
    expect(cronProblem('junk', 'UTC')).toMatch(/five fields/);
    expect(cronProblem('61 * * * *', 'UTC')).toBeDefined();
    expect(cronProblem('0 0 31 2 *', 'UTC')).toBeDefined();
    expect(cronProblem('0 0 * * * *', 'UTC')).toMatch(/five fields/);
    expect(cronProblem('H 2 * * *', 'UTC')).toMatch(/H/);
    expect(cronProblem('', 'UTC')).toBeDefined();
    expect(cronProblem('@reboot', 'UTC')).toMatch(/macro/);
  });
});

describe('occurrences', () => {
  const oneTime: WindowTiming = { startAt: at('2026-03-01T10:00:00Z'), endAt: at('2026-03-01T12:00:00Z'), recurringCron: null, timezone: 'UTC' };

  it('a one-time window is SCHEDULED, then ACTIVE from startAt, then COMPLETED at endAt', () => {
    expect(planWindow(oneTime, at('2026-03-01T09:59:59Z')).state).toBe('SCHEDULED');
    expect(planWindow(oneTime, at('2026-03-01T10:00:00Z'))).toEqual({ state: 'ACTIVE', occurrence: { startAt: oneTime.startAt, endAt: oneTime.endAt } });
    expect(planWindow(oneTime, at('2026-03-01T11:59:59.999Z')).state).toBe('ACTIVE');
    expect(planWindow(oneTime, at('2026-03-01T12:00:00Z'))).toEqual({ state: 'COMPLETED', occurrence: null });
  });

  it('a recurring window repeats at the cron times in its time zone for endAt - startAt', () => {
    // Sundays 02:00 Berlin time, two hours long; the template starts on a Saturday.
    const weekly: WindowTiming = { startAt: at('2026-02-28T12:00:00Z'), endAt: at('2026-02-28T14:00:00Z'), recurringCron: '0 2 * * 0', timezone: 'Europe/Berlin' };
    const first = { startAt: at('2026-03-01T01:00:00Z'), endAt: at('2026-03-01T03:00:00Z') };
    expect(planWindow(weekly, at('2026-02-28T12:30:00Z'))).toEqual({ state: 'SCHEDULED', occurrence: first });
    expect(planWindow(weekly, at('2026-03-01T01:00:00Z'))).toEqual({ state: 'ACTIVE', occurrence: first });
    expect(planWindow(weekly, at('2026-03-01T03:00:00Z'))).toEqual({
      state: 'SCHEDULED',
      occurrence: { startAt: at('2026-03-08T01:00:00Z'), endAt: at('2026-03-08T03:00:00Z') },
    });
    // After the switch to summer time 02:00 Berlin is 00:00 UTC.
    expect(occurrenceAt(weekly, at('2026-03-30T00:00:00Z'))?.startAt).toEqual(at('2026-04-05T00:00:00Z'));
  });

  it('never starts an occurrence before startAt, even when a cron time inside the template precedes it', () => {
    const daily: WindowTiming = { startAt: at('2026-03-01T02:30:00Z'), endAt: at('2026-03-01T04:30:00Z'), recurringCron: '0 2 * * *', timezone: 'UTC' };
    expect(planWindow(daily, at('2026-03-01T03:00:00Z'))).toEqual({
      state: 'SCHEDULED',
      occurrence: { startAt: at('2026-03-02T02:00:00Z'), endAt: at('2026-03-02T04:00:00Z') },
    });
  });

  it('for any cron, zone and instant: ACTIVE covers now, SCHEDULED starts later, every occurrence is a cron time >= startAt of the template length', () => {
    const crons = fc.constantFrom('0 2 * * 0', '*/30 * * * *', '15 3 * * 1-5', '0 0 1 * *', '0 */6 * * *', '@daily');
    // Australia/Lord_Howe is left out here: cron-parser fails on its DST shift (the example below).
    const zones = fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata');
    const base = Date.parse('2026-01-01T00:00:00Z');
    fc.assert(
      fc.property(
        crons,
        zones,
        fc.integer({ min: 0, max: 400 * 24 }),
        fc.integer({ min: 1, max: 72 * 60 }),
        fc.integer({ min: -48 * 60, max: 900 * 24 * 60 }),
        (cron, tz, startHours, minutes, offsetMinutes) => {
          const startAt = new Date(base + startHours * HOUR);
          const window: WindowTiming = { startAt, endAt: new Date(startAt.getTime() + minutes * 60_000), recurringCron: cron, timezone: tz };
          const now = new Date(startAt.getTime() + offsetMinutes * 60_000);
          const plan = planWindow(window, now);
          if (plan.state === 'COMPLETED') return false;
          const { occurrence } = plan;
          expect(occurrence.endAt.getTime() - occurrence.startAt.getTime()).toBe(minutes * 60_000);
          expect(occurrence.startAt.getTime()).toBeGreaterThanOrEqual(startAt.getTime());
          if (plan.state === 'ACTIVE') expect(occurrence.startAt <= now && now < occurrence.endAt).toBe(true);
          else expect(occurrence.startAt.getTime()).toBeGreaterThan(now.getTime());
          // The occurrence starts on a cron time.
          const fired = CronExpressionParser.parse(cron, { currentDate: new Date(occurrence.startAt.getTime() - 1), tz })
            .next()
            .toDate();
          expect(fired).toEqual(occurrence.startAt);
          // Planning again at the occurrence's end moves on to a later occurrence (the processor's step).
          const next = planWindow(window, occurrence.endAt);
          if (next.state !== 'COMPLETED') expect(next.occurrence.startAt.getTime()).toBeGreaterThan(occurrence.startAt.getTime());
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  it('skips an occurrence cron-parser cannot compute (Lord Howe DST) instead of ending the window', () => {
    const weekly: WindowTiming = { startAt: at('2029-03-28T10:00:00Z'), endAt: at('2029-03-28T11:00:00Z'), recurringCron: '0 2 * * 0', timezone: 'Australia/Lord_Howe' };
    const plan = planWindow(weekly, at('2029-03-28T10:00:00Z'));
    expect(plan.state).toBe('SCHEDULED');
    expect(plan.occurrence?.startAt.getTime()).toBeGreaterThan(Date.parse('2029-04-01T00:00:00Z'));
  });
});

describe('occursWithin (list range filter)', () => {
  // Daily 02:00-04:00 UTC from 2026-03-01.
  const daily: WindowTiming = { startAt: at('2026-03-01T02:00:00Z'), endAt: at('2026-03-01T04:00:00Z'), recurringCron: '0 2 * * *', timezone: 'UTC' };
  const ms = (iso: string): number => Date.parse(iso);

  it('matches a range holding a later occurrence, not one between occurrences or before startAt', () => {
    expect(occursWithin(daily, ms('2026-06-10T03:00:00Z'), ms('2026-06-10T03:30:00Z'))).toBe(true);
    expect(occursWithin(daily, ms('2026-06-10T01:00:00Z'), ms('2026-06-10T02:00:00Z'))).toBe(true);
    expect(occursWithin(daily, ms('2026-06-10T04:00:00Z'), ms('2026-06-10T05:00:00Z'))).toBe(true);
    expect(occursWithin(daily, ms('2026-06-10T04:00:01Z'), ms('2026-06-11T01:59:59Z'))).toBe(false);
    expect(occursWithin(daily, ms('2026-02-01T00:00:00Z'), ms('2026-03-01T01:59:59Z'))).toBe(false);
    expect(occursWithin(daily, -Infinity, ms('2026-03-01T02:00:00Z'))).toBe(true);
    expect(occursWithin(daily, ms('2030-01-01T00:00:00Z'), Infinity)).toBe(true);
  });

  it('a stopped series matches only occurrences that began before it stopped', () => {
    const stop = ms('2026-03-05T03:00:00Z');
    expect(occursWithin(daily, ms('2026-03-05T03:30:00Z'), ms('2026-03-05T03:40:00Z'), stop)).toBe(false);
    expect(occursWithin(daily, ms('2026-03-05T02:30:00Z'), ms('2026-03-05T02:40:00Z'), stop)).toBe(true);
    expect(occursWithin(daily, ms('2026-03-04T12:00:00Z'), ms('2026-03-20T00:00:00Z'), stop)).toBe(true);
    expect(occursWithin(daily, ms('2026-03-06T00:00:00Z'), Infinity, stop)).toBe(false);
    expect(occursWithin(daily, -Infinity, Infinity, ms('2026-03-01T01:00:00Z'))).toBe(false);
  });
});
