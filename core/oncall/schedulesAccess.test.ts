import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam as createWorkspaceTeam, type Team as Workspace } from '../../test/support/identity.js';

type Schedule = { id: number };
type Override = { id: number };

let t: TestContext;
let ws: Workspace;
let schedule: Schedule;
let foreign: Schedule;
let foreignOverride: Override;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createWorkspaceTeam(t, 'sacc');
  const rotation = (userId: number) => ({ type: 'weekly', layerPosition: 0, effectiveFrom: '2026-03-02T09:00:00Z', handoffTime: '09:00', participants: [{ userId, position: 0 }] });
  schedule = (
    await t.request<Schedule>('POST', '/on-call-schedules', { token: ws.admin.token, body: { workspaceId: ws.workspaceId, name: 'Ours', rotations: [rotation(ws.admin.userId)] } })
  ).body;
  const { outsider } = ws;
  foreign = (
    await t.request<Schedule>('POST', '/on-call-schedules', {
      token: outsider.token,
      body: { workspaceId: outsider.workspaceId, name: 'Theirs', rotations: [rotation(outsider.userId)] },
    })
  ).body;
  foreignOverride = (
    await t.request<Override>('POST', '/on-call-overrides', {
      token: outsider.token,
      body: { scheduleId: foreign.id, overrideUserId: outsider.userId, startAt: '2026-03-03T00:00:00Z', endAt: '2026-03-04T00:00:00Z' },
    })
  ).body;
});
beforeEach(() => t.clock.advanceSeconds(61));

const range = 'from=2026-03-02T00:00:00Z&to=2026-03-09T00:00:00Z';
const override = (scheduleId: number, overrideUserId: number, extra: Record<string, unknown> = {}) => ({
  scheduleId,
  overrideUserId,
  startAt: '2026-03-05T00:00:00Z',
  endAt: '2026-03-05T12:00:00Z',
  ...extra,
});

describe('schedules: bad input is a 400 in the error shape', () => {
  it('refuses bad schedule bodies', async () => {
    const { admin, workspaceId } = ws;
    const rotation = { type: 'daily', layerPosition: 0, effectiveFrom: '2026-03-02T09:00:00Z', handoffTime: '09:00', participants: [] };
    const bad: unknown[] = [
      { workspaceId, name: 'x', timezone: 'Mars/Olympus_Mons' },
      { workspaceId, name: 'x', timezone: '+05:30' },
      { workspaceId, name: '' },
      { name: 'x' },
      { workspaceId, name: 'x', unknown: true },
      { workspaceId, name: 'x', handoffNotificationMinutes: -1 },
      { workspaceId, name: 'x', rotations: [{ ...rotation, type: 'hourly' }] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, handoffTime: '25:00' }] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, type: 'custom' }] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, effectiveUntil: '2026-03-01T00:00:00Z' }] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, effectiveFrom: '2026-03-02 09:00' }] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, participants: [{ userId: admin.userId, position: 1 }] }] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, handoffDay: 8 }] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, type: 'custom', effectiveFrom: 'x', participants: [{ position: 'a' }, null] }, null] },
      { workspaceId, name: 'x', rotations: [{ ...rotation, customShiftHours: 0, effectiveUntil: 5 }] },
    ];
    for (const body of bad) {
      const err = expectError(await t.request('POST', '/on-call-schedules', { token: admin.token, body }), 400) as { details?: unknown[] };
      expect(err.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expectError(await t.request('PUT', `/on-call-schedules/${schedule.id}`, { token: admin.token, body: { timezone: 'Not/AZone' } }), 400);
    expectError(await t.request('GET', '/on-call-schedules', { token: admin.token }), 400);
  });

  it('refuses bad ranges, instants and override bodies', async () => {
    const { admin } = ws;
    const base = `/on-call-schedules/${schedule.id}`;
    for (const view of ['shifts', 'overrides', 'gaps', 'report']) {
      expectError(await t.request('GET', `${base}/${view}?from=2026-03-09T00:00:00Z&to=2026-03-02T00:00:00Z`, { token: admin.token }), 400);
      expectError(await t.request('GET', `${base}/${view}?from=2026-01-01T00:00:00Z&to=2026-06-01T00:00:00Z`, { token: admin.token }), 400);
      expectError(await t.request('GET', `${base}/${view}?from=yesterday&to=2026-03-02T00:00:00Z`, { token: admin.token }), 400);
      expectError(await t.request('GET', `${base}/${view}`, { token: admin.token }), 400);
    }
    expectError(await t.request('GET', `${base}/on-call?at=soon`, { token: admin.token }), 400);
    for (const query of ['from=2026-02-30', 'from=2026-03-02T00:00:00Z', 'days=0', 'days=94', 'days=two']) {
      expectError(await t.request('GET', `${base}/timeline?${query}`, { token: admin.token }), 400);
    }
    for (const body of [
      override(schedule.id, admin.userId, { endAt: '2026-03-04T00:00:00Z' }),
      override(schedule.id, admin.userId, { replacedUserId: admin.userId }),
      override(schedule.id, admin.userId, { startAt: 'now' }),
      { scheduleId: schedule.id, startAt: '2026-03-05T00:00:00Z', endAt: '2026-03-06T00:00:00Z' },
    ]) {
      expectError(await t.request('POST', '/on-call-overrides', { token: admin.token, body }), 400);
    }
  });
});

describe('schedules: foreign ids are 404', () => {
  it('hides another workspace’s schedules, overrides and users', async () => {
    const { admin, outsider, workspaceId } = ws;
    const base = `/on-call-schedules/${foreign.id}`;
    for (const path of [
      base,
      `${base}/on-call`,
      `${base}/shifts?${range}`,
      `${base}/overrides?${range}`,
      `${base}/gaps?${range}`,
      `${base}/report?${range}`,
      `${base}/timeline`,
      `${base}/calendar.ics`,
    ]) {
      expectError(await t.request('GET', path, { token: admin.token }), 404);
    }
    expectError(await t.request('PUT', base, { token: admin.token, body: { name: 'x' } }), 404);
    expectError(await t.request('DELETE', base, { token: admin.token }), 404);
    expectError(await t.request('POST', `${base}/calendar-secret`, { token: admin.token }), 404);
    expectError(await t.request('DELETE', `${base}/calendar-secret`, { token: admin.token }), 404);
    expectError(await t.request('POST', '/on-call-overrides', { token: admin.token, body: override(foreign.id, admin.userId) }), 404);
    expectError(await t.request('DELETE', `/on-call-overrides/${foreignOverride.id}`, { token: admin.token }), 404);
    expectError(await t.request('GET', `/on-call-schedules?workspaceId=${outsider.workspaceId}`, { token: admin.token }), 404);
    // Users of other workspaces, as participants, override users or replaced users.
    const rotation = { type: 'daily', layerPosition: 0, effectiveFrom: '2026-03-02T09:00:00Z', handoffTime: '09:00', participants: [{ userId: outsider.userId, position: 0 }] };
    expectError(await t.request('POST', '/on-call-schedules', { token: admin.token, body: { workspaceId, name: 'x', rotations: [rotation] } }), 404);
    expectError(await t.request('PUT', `/on-call-schedules/${schedule.id}`, { token: admin.token, body: { rotations: [rotation] } }), 404);
    expectError(await t.request('POST', '/on-call-overrides', { token: admin.token, body: override(schedule.id, outsider.userId) }), 404);
    expectError(await t.request('POST', '/on-call-overrides', { token: admin.token, body: override(schedule.id, admin.userId, { replacedUserId: outsider.userId }) }), 404);
    expectError(await t.request('GET', '/on-call-schedules/999999', { token: admin.token }), 404);
  });
});

describe('schedules: roles', () => {
  it('VIEWER reads; only ADMIN writes schedules; a MEMBER overrides for themselves only', async () => {
    const { admin, member, viewer, workspaceId } = ws;
    const base = `/on-call-schedules/${schedule.id}`;
    for (const path of [
      base,
      `${base}/on-call`,
      `${base}/shifts?${range}`,
      `${base}/overrides?${range}`,
      `${base}/gaps?${range}`,
      `${base}/report?${range}`,
      `${base}/timeline`,
      `${base}/calendar.ics`,
    ]) {
      expect((await t.request('GET', path, { token: viewer.token })).status, path).toBe(200);
    }
    for (const user of [member, viewer]) {
      expectError(await t.request('POST', '/on-call-schedules', { token: user.token, body: { workspaceId, name: 'x' } }), 403);
      expectError(await t.request('PUT', base, { token: user.token, body: { name: 'x' } }), 403);
      expectError(await t.request('DELETE', base, { token: user.token }), 403);
      expectError(await t.request('POST', `${base}/calendar-secret`, { token: user.token }), 403);
    }
    expectError(await t.request('POST', '/on-call-overrides', { token: viewer.token, body: override(schedule.id, viewer.userId) }), 403);
    expectError(await t.request('POST', '/on-call-overrides', { token: member.token, body: override(schedule.id, admin.userId) }), 403);
    const own = await t.request<Override>('POST', '/on-call-overrides', { token: member.token, body: override(schedule.id, member.userId, { replacedUserId: admin.userId }) });
    expect(own.status, own.text).toBe(201);
    const byAdmin = await t.request<Override>('POST', '/on-call-overrides', { token: admin.token, body: override(schedule.id, member.userId) });
    expectError(await t.request('DELETE', `/on-call-overrides/${byAdmin.body.id}`, { token: member.token }), 403);
    expectError(await t.request('DELETE', `/on-call-overrides/${own.body.id}`, { token: viewer.token }), 403);
    expect((await t.request('DELETE', `/on-call-overrides/${own.body.id}`, { token: member.token })).status).toBe(204);
    expect((await t.request('DELETE', `/on-call-overrides/${byAdmin.body.id}`, { token: admin.token })).status).toBe(204);
    expectError(await t.request('GET', base), 401);
  });
});

describe('calendar.ics', () => {
  it('serves the final schedule by a secret URL that rotation replaces', async () => {
    const { admin, member } = ws;
    const base = `/on-call-schedules/${schedule.id}`;
    await t.request('POST', '/on-call-overrides', { token: admin.token, body: override(schedule.id, member.userId) });
    const bySession = await t.request('GET', `${base}/calendar.ics`, { token: admin.token });
    expect(bySession.status, bySession.text).toBe(200);
    expect(bySession.headers.get('content-type')).toMatch(/^text\/calendar/);
    expect(bySession.text).toContain('BEGIN:VCALENDAR');
    expect(bySession.text).toContain('(override)');

    const first = await t.request<{ token: string; url: string }>('POST', `${base}/calendar-secret`, { token: admin.token });
    expect(first.status, first.text).toBe(201);
    expect(first.body.url).toMatch(new RegExp(`/api/on-call-calendars/${first.body.token}/calendar\\.ics$`));
    const path = (token: string) => `/on-call-calendars/${token}/calendar.ics`;
    const bySecret = await t.request('GET', path(first.body.token));
    expect(bySecret.status).toBe(200);
    expect(bySecret.headers.get('content-type')).toMatch(/^text\/calendar/);
    expect(bySecret.text).toContain('(override)');
    expect(bySecret.text).toContain(`X-VIGIL-USER-ID:${member.userId}`);

    const second = await t.request<{ token: string }>('POST', `${base}/calendar-secret`, { token: admin.token });
    expect(second.body.token).not.toBe(first.body.token);
    expectError(await t.request('GET', path(first.body.token)), 404);
    expect((await t.request('GET', path(second.body.token))).status).toBe(200);
    for (const bad of [`${foreign.id}_${second.body.token.split('_').slice(1).join('_')}`, 'nonsense', `${schedule.id}_${'A'.repeat(43)}`]) {
      expectError(await t.request('GET', path(bad)), 404);
    }
    expectError(await t.request('DELETE', `${base}/calendar-secret`, { token: ws.member.token }), 403);
    expect((await t.request('DELETE', `${base}/calendar-secret`, { token: admin.token })).status).toBe(204);
    expectError(await t.request('GET', path(second.body.token)), 404);
    // A schedule that never had a secret URL has none to guess.
    expectError(await t.request('GET', path(`${foreign.id}_${'A'.repeat(43)}`)), 404);
  });
});
