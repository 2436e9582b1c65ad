import { describe, expect, it } from 'vitest';
import { override, rotation, schedule } from '../../test/support/oncall.js';
import type { Step } from './schema.js';
import { cycleLengthMinutes, firings, reachOf, type ScheduleData } from './timeline.js';

const channel = (alertChannelId: number) => ({ targetType: 'ALERT_CHANNEL' as const, alertChannelId });
const steps = (...delays: number[]): Step[] => delays.map((delayMinutes, position) => ({ position, delayMinutes, targets: [channel(position + 1)] }));
const opened = new Date('2026-03-01T12:00:00.000Z');
const minutesAfterOpen = (at: Date) => (at.getTime() - opened.getTime()) / 60_000;

describe('escalation timeline', () => {
  it('repeats a cycle of L = d_last + max(5, d_last - d_prev) minutes', () => {
    expect(cycleLengthMinutes(steps(0, 10, 30))).toBe(50);
    expect(cycleLengthMinutes(steps(0, 10, 12))).toBe(17);
    expect(cycleLengthMinutes(steps(0))).toBe(5);
    expect(cycleLengthMinutes(steps(10))).toBe(20);
  });

  it('fires step s of cycle k at openedAt + k·L + d_s, in order', () => {
    const fired = firings({ steps: steps(0, 10, 30), repeatCount: 1 }, opened);
    expect(fired.map((f) => [f.cycle, f.position, minutesAfterOpen(f.at)])).toEqual([
      [0, 0, 0],
      [0, 1, 10],
      [0, 2, 30],
      [1, 0, 50],
      [1, 1, 60],
      [1, 2, 80],
    ]);
    expect(firings({ steps: steps(5), repeatCount: 0 }, opened).map((f) => minutesAfterOpen(f.at))).toEqual([5]);
  });

  it('orders steps by position whatever order they were given in', () => {
    const shuffled = [...steps(0, 10, 30)].reverse();
    expect(firings({ steps: shuffled, repeatCount: 0 }, opened).map((f) => f.position)).toEqual([0, 1, 2]);
  });

  it('resolves targets at the instant their step fires', () => {
    const daily: ScheduleData = {
      ...schedule(
        'UTC',
        [rotation({ effectiveFrom: '2026-03-01T09:00:00Z' })],
        [override({ id: 1, overrideUserId: 9, startAt: '2026-03-02T10:00:00Z', endAt: '2026-03-02T11:00:00Z' })],
      ),
      enabled: true,
    };
    const schedules = new Map([
      [1, daily],
      [2, { ...daily, enabled: false }],
      [3, { ...daily, rotations: [] }],
    ]);
    const teams = new Map([
      [1, [4, 5]],
      [2, []],
    ]);
    const onCall = (at: string) => reachOf({ targetType: 'ON_CALL_SCHEDULE', targetScheduleId: 1 }, new Date(at), schedules, teams);
    expect(onCall('2026-03-01T12:00:00Z').userIds).toEqual([1]);
    expect(onCall('2026-03-02T09:30:00Z').userIds).toEqual([2]);
    expect(onCall('2026-03-02T10:30:00Z').userIds).toEqual([9]);
    expect(reachOf({ targetType: 'ON_CALL_SCHEDULE', targetScheduleId: 2 }, opened, schedules, teams)).toEqual({ channelIds: [], userIds: [], note: 'the schedule is disabled' });
    expect(reachOf({ targetType: 'ON_CALL_SCHEDULE', targetScheduleId: 3 }, opened, schedules, teams)).toEqual({ channelIds: [], userIds: [], note: 'nobody is on call' });
    expect(reachOf({ targetType: 'TEAM', targetTeamId: 1 }, opened, schedules, teams).userIds).toEqual([4, 5]);
    expect(reachOf({ targetType: 'TEAM', targetTeamId: 2 }, opened, schedules, teams).note).toBe('the team has no members');
    expect(reachOf({ targetType: 'USER', targetUserId: 7 }, opened, schedules, teams).userIds).toEqual([7]);
    expect(reachOf(channel(3), opened, schedules, teams).channelIds).toEqual([3]);
  });
});
