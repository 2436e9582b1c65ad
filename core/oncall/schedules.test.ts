import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam as createWorkspaceTeam, type Team as Workspace } from '../../test/support/identity.js';

type Rotation = { id: number; layerPosition: number; participants: { userId: number; position: number }[] };
type Override = { id: number; overrideUserId: number; replacedUserId: number | null; startAt: string; endAt: string };
type Schedule = {
  id: number;
  workspaceId: number;
  name: string;
  timezone: string;
  handoffNotificationMinutes: number | null;
  enabled: boolean;
  rotations: Rotation[];
  overrides: Override[];
};
type Shift = { userId: number; startAt: string; endAt: string; layerPosition: number | null; rotationId: number | null; overrideId: number | null };
type Page<T> = { items: T[]; total: number };
type Turn = { userId: number; startAt: string; endAt: string };
type Timeline = {
  schedule: Schedule;
  fromDate: string;
  days: number;
  from: string;
  to: string;
  dayStarts: string[];
  layers: { rotationId: number; layerPosition: number; turns: Turn[] }[];
  onCall: unknown;
  shifts: Shift[];
  overrides: Override[];
  gaps: unknown[];
};

let t: TestContext;
let ws: Workspace;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createWorkspaceTeam(t, 'sched');
});
beforeEach(() => t.clock.advanceSeconds(61));

/** Layer 0: admin and member take turns daily at 09:00 Berlin from 2 March; layer 1: the viewer covers before that. */
function twoLayers() {
  return {
    workspaceId: ws.workspaceId,
    name: 'Primary',
    timezone: 'Europe/Berlin',
    rotations: [
      {
        name: 'Primary',
        type: 'daily',
        layerPosition: 0,
        effectiveFrom: '2026-03-02T09:00:00+01:00',
        handoffTime: '09:00',
        participants: [
          { userId: ws.admin.userId, position: 0 },
          { userId: ws.member.userId, position: 1 },
        ],
      },
      { name: 'Backup', type: 'daily', layerPosition: 1, effectiveFrom: '2026-02-01T00:00:00Z', handoffTime: '09:00', participants: [{ userId: ws.viewer.userId, position: 0 }] },
    ],
  };
}

const create = (token: string, body: unknown) => t.request<Schedule>('POST', '/on-call-schedules', { token, body });
const brief = (shifts: Shift[]) => shifts.map((s) => [s.userId, s.startAt, s.endAt]);

describe('on-call schedules', () => {
  it('creates with defaults, reads, lists, replaces rotations on PUT and deletes with its overrides', async () => {
    const { admin, viewer, workspaceId } = ws;
    const created = await create(admin.token, twoLayers());
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ workspaceId, name: 'Primary', timezone: 'Europe/Berlin', handoffNotificationMinutes: 15, enabled: true, overrides: [] });
    const [primary, backup] = created.body.rotations;
    expect(primary).toMatchObject({ layerPosition: 0, type: 'daily', effectiveFrom: '2026-03-02T08:00:00.000Z', effectiveUntil: null, handoffDay: 1, customShiftHours: null });
    expect(backup?.participants).toEqual([{ userId: viewer.userId, position: 0 }]);

    const defaults = await create(admin.token, { workspaceId, name: 'Bare' });
    expect(defaults.body).toMatchObject({ timezone: 'UTC', handoffNotificationMinutes: 15, enabled: true, rotations: [] });

    const got = await t.request<Schedule>('GET', `/on-call-schedules/${created.body.id}`, { token: viewer.token });
    expect(got.body).toEqual(created.body);
    const list = await t.request<Page<Schedule>>('GET', `/on-call-schedules?workspaceId=${workspaceId}&limit=1`, { token: viewer.token });
    expect(list.body.items.map((s) => s.id)).toEqual([created.body.id]);
    expect(list.body.total).toBeGreaterThanOrEqual(2);

    const put = await t.request<Schedule>('PUT', `/on-call-schedules/${created.body.id}`, {
      token: admin.token,
      body: {
        timezone: 'america/new_york',
        handoffNotificationMinutes: null,
        rotations: [
          { type: 'weekly', layerPosition: 0, effectiveFrom: '2026-03-02T14:00:00Z', handoffTime: '09:00', handoffDay: 1, participants: [{ userId: admin.userId, position: 0 }] },
        ],
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: 'Primary', timezone: 'America/New_York', handoffNotificationMinutes: null });
    expect(put.body.rotations).toHaveLength(1);
    expect(put.body.rotations[0]?.id).not.toBe(primary?.id);

    const override = await t.request<Override>('POST', '/on-call-overrides', {
      token: admin.token,
      body: { scheduleId: defaults.body.id, overrideUserId: admin.userId, startAt: '2026-04-01T00:00:00Z', endAt: '2026-04-02T00:00:00Z' },
    });
    expect(override.status).toBe(201);
    expect((await t.request<Schedule>('GET', `/on-call-schedules/${defaults.body.id}`, { token: admin.token })).body.overrides.map((o) => o.id)).toEqual([override.body.id]);
    expect((await t.request('DELETE', `/on-call-schedules/${defaults.body.id}`, { token: admin.token })).status).toBe(204);
    expectError(await t.request('GET', `/on-call-schedules/${defaults.body.id}`, { token: admin.token }), 404);
    expectError(await t.request('DELETE', `/on-call-overrides/${override.body.id}`, { token: admin.token }), 404);
  });

  it('answers who is on call and the final shifts, layers and overrides included', async () => {
    const { admin, member, viewer } = ws;
    const schedule = (await create(admin.token, twoLayers())).body;
    const base = `/on-call-schedules/${schedule.id}`;
    const onCall = async (at: string) =>
      (
        await t.request<{ user: { id: number; email: string } | null; layerPosition: number | null; shiftStart: string | null }>(
          'GET',
          `${base}/on-call?at=${encodeURIComponent(at)}`,
          { token: viewer.token },
        )
      ).body;
    expect(await onCall('2026-03-02T07:00:00Z')).toMatchObject({ user: { id: viewer.userId, email: viewer.email }, layerPosition: 1 });
    expect(await onCall('2026-03-02T10:00:00Z')).toMatchObject({ user: { id: admin.userId }, layerPosition: 0, shiftStart: '2026-03-02T08:00:00.000Z' });
    expect(await onCall('2026-03-03T10:00:00Z')).toMatchObject({ user: { id: member.userId } });

    const unconditional = await t.request<Override>('POST', '/on-call-overrides', {
      token: admin.token,
      body: { scheduleId: schedule.id, overrideUserId: member.userId, startAt: '2026-03-02T12:00:00Z', endAt: '2026-03-02T14:00:00Z', reason: 'swap' },
    });
    expect(unconditional.status, unconditional.text).toBe(201);
    const replacing = await t.request<Override>('POST', '/on-call-overrides', {
      token: admin.token,
      body: { scheduleId: schedule.id, overrideUserId: viewer.userId, replacedUserId: member.userId, startAt: '2026-03-03T10:00:00+01:00', endAt: '2026-03-03T11:00:00Z' },
    });
    expect(replacing.body).toMatchObject({ replacedUserId: member.userId, startAt: '2026-03-03T09:00:00.000Z' });
    expect(await onCall('2026-03-02T13:00:00Z')).toMatchObject({ user: { id: member.userId }, layerPosition: null });

    const shifts = await t.request<{ items: Shift[] }>('GET', `${base}/shifts?from=2026-03-02T00:00:00Z&to=2026-03-04T00:00:00Z`, { token: viewer.token });
    expect(shifts.status, shifts.text).toBe(200);
    expect(brief(shifts.body.items)).toEqual([
      [viewer.userId, '2026-03-02T00:00:00.000Z', '2026-03-02T08:00:00.000Z'],
      [admin.userId, '2026-03-02T08:00:00.000Z', '2026-03-02T12:00:00.000Z'],
      [member.userId, '2026-03-02T12:00:00.000Z', '2026-03-02T14:00:00.000Z'],
      [admin.userId, '2026-03-02T14:00:00.000Z', '2026-03-03T08:00:00.000Z'],
      [member.userId, '2026-03-03T08:00:00.000Z', '2026-03-03T09:00:00.000Z'],
      [viewer.userId, '2026-03-03T09:00:00.000Z', '2026-03-03T11:00:00.000Z'],
      [member.userId, '2026-03-03T11:00:00.000Z', '2026-03-04T00:00:00.000Z'],
    ]);
    expect(shifts.body.items[2]).toMatchObject({ overrideId: unconditional.body.id, rotationId: null, layerPosition: null });

    const overrides = await t.request<{ items: Override[] }>('GET', `${base}/overrides?from=2026-03-03T00:00:00Z&to=2026-03-05T00:00:00Z`, { token: viewer.token });
    expect(overrides.body.items.map((o) => o.id)).toEqual([replacing.body.id]);
    expect((await t.request('DELETE', `/on-call-overrides/${replacing.body.id}`, { token: admin.token })).status).toBe(204);
    expect(await onCall('2026-03-03T10:00:00Z')).toMatchObject({ user: { id: member.userId } });
  });

  it('keeps a 09:00 handoff at 09:00 local across DST (a 23-hour shift over HTTP)', async () => {
    const { admin, member } = ws;
    const body = {
      workspaceId: ws.workspaceId,
      name: 'NY',
      timezone: 'America/New_York',
      rotations: [
        {
          type: 'daily',
          layerPosition: 0,
          effectiveFrom: '2026-03-01T14:00:00Z',
          handoffTime: '09:00',
          participants: [
            { userId: admin.userId, position: 0 },
            { userId: member.userId, position: 1 },
          ],
        },
      ],
    };
    const schedule = (await create(admin.token, body)).body;
    const shifts = await t.request<{ items: Shift[] }>('GET', `/on-call-schedules/${schedule.id}/shifts?from=2026-03-07T14:00:00Z&to=2026-03-09T13:00:00Z`, { token: admin.token });
    expect(brief(shifts.body.items)).toEqual([
      [admin.userId, '2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z'],
      [member.userId, '2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z'],
    ]);
    // The view by local days: 8 March is 23 hours long in New York, and the range ends at local midnights.
    const timeline = await t.request<Timeline>('GET', `/on-call-schedules/${schedule.id}/timeline?from=2026-03-08&days=1`, { token: member.token });
    expect(timeline.status, timeline.text).toBe(200);
    expect(timeline.body).toMatchObject({ fromDate: '2026-03-08', days: 1, from: '2026-03-08T05:00:00.000Z', to: '2026-03-09T04:00:00.000Z', gaps: [], overrides: [] });
    expect(timeline.body.schedule).toEqual(schedule);
    expect(brief(timeline.body.shifts)).toEqual([
      [admin.userId, '2026-03-08T05:00:00.000Z', '2026-03-08T13:00:00.000Z'],
      [member.userId, '2026-03-08T13:00:00.000Z', '2026-03-09T04:00:00.000Z'],
    ]);
    // The layer's own turns, unclipped, and the local days' starts: the dashboard draws from these alone.
    expect(timeline.body.layers).toEqual([
      {
        rotationId: schedule.rotations[0]?.id,
        layerPosition: 0,
        turns: [
          { userId: admin.userId, startAt: '2026-03-07T14:00:00.000Z', endAt: '2026-03-08T13:00:00.000Z' },
          { userId: member.userId, startAt: '2026-03-08T13:00:00.000Z', endAt: '2026-03-09T13:00:00.000Z' },
        ],
      },
    ]);
    const week = await t.request<Timeline>('GET', `/on-call-schedules/${schedule.id}/timeline?from=2026-03-07&days=3`, { token: member.token });
    expect(week.body.dayStarts).toEqual(['2026-03-07T05:00:00.000Z', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z']);
    expect(week.body.to).toBe('2026-03-10T04:00:00.000Z');
  });

  it('answers the schedule view in one read: the same shifts, overrides, gaps and on-call as their own endpoints', async () => {
    const { admin, member, viewer } = ws;
    const schedule = (await create(admin.token, twoLayers())).body;
    const base = `/on-call-schedules/${schedule.id}`;
    const taken = await t.request<Override>('POST', '/on-call-overrides', {
      token: admin.token,
      body: { scheduleId: schedule.id, overrideUserId: member.userId, replacedUserId: null, startAt: '2026-03-03T06:00:00Z', endAt: '2026-03-03T09:00:00Z' },
    });
    expect(taken.status, taken.text).toBe(201);
    const timeline = await t.request<Timeline>('GET', `${base}/timeline?from=2026-03-02&days=3`, { token: viewer.token });
    expect(timeline.status, timeline.text).toBe(200);
    const { from, to } = timeline.body;
    const range = `from=${from}&to=${to}`;
    const own = async <T>(view: string) => (await t.request<T>('GET', `${base}/${view}?${range}`, { token: viewer.token })).body;
    expect(timeline.body.shifts).toEqual((await own<{ items: Shift[] }>('shifts')).items);
    expect(timeline.body.overrides).toEqual((await own<{ items: Override[] }>('overrides')).items);
    expect(timeline.body.overrides.map((o) => o.id)).toEqual([taken.body.id]);
    expect(timeline.body.gaps).toEqual((await own<{ items: unknown[] }>('gaps')).items);
    expect(timeline.body.onCall).toEqual((await t.request('GET', `${base}/on-call`, { token: viewer.token })).body);
    // Without `from`: today in the schedule's zone, by the injected clock.
    const today = await t.request<Timeline>('GET', `${base}/timeline`, { token: viewer.token });
    expect(today.body).toMatchObject({ fromDate: new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(t.clock.now()), days: 14 });
  });

  it('lists coverage gaps and on-call hours', async () => {
    const { admin } = ws;
    const body = {
      workspaceId: ws.workspaceId,
      name: 'Gappy',
      rotations: [
        {
          type: 'custom',
          customShiftHours: 12,
          layerPosition: 0,
          effectiveFrom: '2026-03-02T08:00:00Z',
          effectiveUntil: '2026-03-03T08:00:00Z',
          handoffTime: '00:00',
          participants: [{ userId: admin.userId, position: 0 }],
        },
      ],
    };
    const schedule = (await create(admin.token, body)).body;
    const range = 'from=2026-03-02T00:00:00Z&to=2026-03-04T00:00:00Z';
    const gaps = await t.request<{ items: { startAt: string; endAt: string }[] }>('GET', `/on-call-schedules/${schedule.id}/gaps?${range}`, { token: admin.token });
    expect(gaps.body.items).toEqual([
      { startAt: '2026-03-02T00:00:00.000Z', endAt: '2026-03-02T08:00:00.000Z' },
      { startAt: '2026-03-03T08:00:00.000Z', endAt: '2026-03-04T00:00:00.000Z' },
    ]);
    const report = await t.request<{ timezone: string; items: { userId: number; shiftCount: number; totalHours: number; weekdayHours: number; nightHours: number }[] }>(
      'GET',
      `/on-call-schedules/${schedule.id}/report?${range}`,
      { token: admin.token },
    );
    expect(report.status).toBe(200);
    expect(report.body.timezone).toBe('UTC');
    expect(report.body.items).toEqual([expect.objectContaining({ userId: admin.userId, shiftCount: 2, totalHours: 24, weekdayHours: 24, nightHours: 9 })]);
  });
});
