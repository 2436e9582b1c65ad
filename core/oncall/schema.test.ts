import { describe, expect, it } from 'vitest';
import type { ScheduleSpec } from './rotation.js';
import { isIanaTimeZone, OverrideCreate, RangeQuery, RotationInput, ScheduleCreate, ScheduleUpdate, type Schedule } from './schema.js';

const rotation = {
  type: 'daily',
  layerPosition: 0,
  effectiveFrom: '2026-03-01T09:00:00Z',
  handoffTime: '09:00',
  participants: [
    { userId: 2, position: 1 },
    { userId: 1, position: 0 },
  ],
};

/** The paths of the issues a body raises: what a 400 names. */
const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.success ? [] : (result.error?.issues ?? []).map((issue) => issue.path.join('.'));

describe('ScheduleCreate', () => {
  it('applies the spec defaults: timezone UTC, handoff notice 15 minutes, enabled, no rotations', () => {
    expect(ScheduleCreate.parse({ workspaceId: 1, name: 'Primary' })).toEqual({
      workspaceId: 1,
      name: 'Primary',
      timezone: 'UTC',
      handoffNotificationMinutes: 15,
      enabled: true,
      rotations: [],
    });
  });

  it('keeps null for handoffNotificationMinutes (notices disabled)', () => {
    expect(ScheduleCreate.parse({ workspaceId: 1, name: 'x', handoffNotificationMinutes: null }).handoffNotificationMinutes).toBeNull();
  });

  it('accepts IANA zones (case-normalised) and refuses unknown zones and fixed offsets', () => {
    expect(ScheduleCreate.parse({ workspaceId: 1, name: 'x', timezone: 'america/new_york' }).timezone).toBe('America/New_York');
    expect(ScheduleCreate.parse({ workspaceId: 1, name: 'x', timezone: 'Asia/Kolkata' }).timezone).toBe('Asia/Kolkata');
    for (const timezone of ['Mars/Olympus_Mons', '+05:30', '-04:00', 'Z', '', 'UTC+1']) {
      expect(issuePaths(ScheduleCreate.safeParse({ workspaceId: 1, name: 'x', timezone }))).toContain('timezone');
    }
    expect(isIanaTimeZone('Australia/Sydney')).toBe(true);
    expect(isIanaTimeZone('Europe/Atlantis')).toBe(false);
  });

  it('refuses unknown fields and an empty name', () => {
    expect(issuePaths(ScheduleCreate.safeParse({ workspaceId: 1, name: ' ', color: 'red' })).sort()).toEqual(['', 'name']);
  });
});

describe('RotationInput', () => {
  it('applies defaults: effectiveUntil null, handoffDay 1 (Monday)', () => {
    expect(RotationInput.parse(rotation)).toMatchObject({ effectiveUntil: null, handoffDay: 1 });
  });

  it('requires customShiftHours for custom rotations only', () => {
    expect(issuePaths(RotationInput.safeParse({ ...rotation, type: 'custom' }))).toEqual(['customShiftHours']);
    expect(RotationInput.safeParse({ ...rotation, type: 'custom', customShiftHours: 12 }).success).toBe(true);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, customShiftHours: 12 }))).toEqual(['customShiftHours']);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, type: 'custom', customShiftHours: 0 }))).toContain('customShiftHours');
  });

  it('checks handoffTime, handoffDay, type and the effective range', () => {
    for (const handoffTime of ['24:00', '9:00', '09:60', 'noon', '09:00:00Z']) {
      expect(issuePaths(RotationInput.safeParse({ ...rotation, handoffTime }))).toEqual(['handoffTime']);
    }
    expect(RotationInput.safeParse({ ...rotation, handoffTime: '23:59:30' }).success).toBe(true);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, type: 'weekly', handoffDay: 8 }))).toEqual(['handoffDay']);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, type: 'hourly' }))).toEqual(['type']);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, effectiveUntil: '2026-03-01T09:00:00Z' }))).toEqual(['effectiveUntil']);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, effectiveFrom: '2026-03-01T09:00:00' }))).toEqual(['effectiveFrom']);
  });

  it('wants participant positions 0..n-1, each once', () => {
    const participants = (positions: number[]) => positions.map((position, i) => ({ userId: i + 1, position }));
    expect(RotationInput.safeParse({ ...rotation, participants: participants([2, 0, 1]) }).success).toBe(true);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, participants: participants([0, 0]) }))).toEqual(['participants']);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, participants: participants([0, 2]) }))).toEqual(['participants']);
    expect(issuePaths(RotationInput.safeParse({ ...rotation, participants: [{ userId: 1 }] }))).toEqual(['participants.0.position']);
  });
});

describe('ScheduleUpdate', () => {
  it('takes changed fields only, and no workspaceId', () => {
    expect(ScheduleUpdate.parse({ enabled: false })).toEqual({ enabled: false });
    expect(ScheduleUpdate.safeParse({ workspaceId: 2 }).success).toBe(false);
    expect(issuePaths(ScheduleUpdate.safeParse({ timezone: 'Nowhere/Land' }))).toEqual(['timezone']);
  });
});

describe('OverrideCreate', () => {
  const body = { scheduleId: 1, overrideUserId: 3, startAt: '2026-03-01T00:00:00Z', endAt: '2026-03-02T00:00:00Z' };

  it('is unconditional by default', () => {
    expect(OverrideCreate.parse(body).replacedUserId).toBeNull();
  });

  it('needs endAt after startAt and a replaced user other than the override user', () => {
    expect(issuePaths(OverrideCreate.safeParse({ ...body, endAt: body.startAt }))).toEqual(['endAt']);
    expect(issuePaths(OverrideCreate.safeParse({ ...body, replacedUserId: 3 }))).toEqual(['replacedUserId']);
    expect(OverrideCreate.safeParse({ ...body, replacedUserId: 4, reason: 'swap' }).success).toBe(true);
  });
});

describe('RangeQuery', () => {
  it('needs to after from, at most 93 days', () => {
    expect(RangeQuery.safeParse({ from: '2026-01-01T00:00:00Z', to: '2026-04-04T00:00:00Z' }).success).toBe(true);
    expect(issuePaths(RangeQuery.safeParse({ from: '2026-01-01T00:00:00Z', to: '2026-04-04T00:00:01Z' }))).toEqual(['to']);
    expect(issuePaths(RangeQuery.safeParse({ from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }))).toEqual(['to']);
  });
});

describe('Schedule (response)', () => {
  it('feeds the pure computation as it is: the view is a ScheduleSpec (checked by tsc)', () => {
    const asSpec = (view: Schedule): ScheduleSpec => view;
    expect(asSpec).toBeTypeOf('function');
  });
});
