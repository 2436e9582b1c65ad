import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { windowEffects } from '../windows/holds.js';
import { isoIn, member, minutes, ok, session, sweep, v1, type User } from '../../test/support/windows.js';
import type { MaintenanceWindowView } from './schema.js';

let t: TestContext;
let owner: User;
let viewer: User;
let stranger: User;
let second: number;
beforeAll(async () => {
  t = await createTestContext();
  owner = await member(t, 'owner');
  viewer = await member(t, 'viewer');
  stranger = await member(t, 'stranger');
  ok(await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: viewer.email, role: 'VIEWER' } }), 201);
  second = ok(await v1<{ id: number }>(t, owner.key, 'POST', '/projects', { name: 'db' }), 201).id;
});

type Detail = MaintenanceWindowView & { projects: { id: number; name: string }[] };
const as = async <T = MaintenanceWindowView>(who: User, method: string, path: string, body?: unknown) =>
  t.request<T>(method, path, { token: await session(t, who), ...(body === undefined ? {} : { body }) });
const body = (extra: Record<string, unknown> = {}) => ({
  workspaceId: owner.workspaceId,
  name: 'patching',
  startAt: isoIn(t, minutes(30)),
  endAt: isoIn(t, minutes(90)),
  projectIds: [owner.projectId],
  ...extra,
});
const create = async (extra: Record<string, unknown> = {}) => ok(await as(owner, 'POST', '/maintenance-windows', body(extra)), 201);
const freshProject = async (): Promise<number> => ok(await v1<{ id: number }>(t, owner.key, 'POST', '/projects', { name: 'spare' }), 201).id;
const effects = (projectId: number) => windowEffects(t.deps, { workspaceId: owner.workspaceId, projectId }, t.clock.now());

describe('POST /maintenance-windows', () => {
  it('creates with the dashboard defaults; startAt, endAt, projectIds and workspaceId are required', async () => {
    const w = await create();
    expect(w).toMatchObject({
      state: 'SCHEDULED',
      workspaceId: owner.workspaceId,
      suppressAlerts: true,
      suppressIncidents: true,
      autoPublishToStatusPage: false,
      timezone: 'UTC',
      recurringCron: null,
    });
    expect(w).toMatchObject({ occurrenceStartAt: w.startAt, occurrenceEndAt: w.endAt });
    const flags = await create({ autoPublishToStatusPage: true, suppressAlerts: false, timezone: 'Europe/Berlin', description: null });
    expect(flags).toMatchObject({ autoPublishToStatusPage: true, suppressAlerts: false, timezone: 'Europe/Berlin', description: null });
    for (const field of ['workspaceId', 'name', 'startAt', 'endAt', 'projectIds']) {
      const incomplete: Record<string, unknown> = body();
      delete incomplete[field];
      expectError(await as(owner, 'POST', '/maintenance-windows', incomplete), 400);
    }
  });

  it('validates the time zone and the cron expression (400 on junk) and refuses foreign ids', async () => {
    const bad: Record<string, unknown>[] = [
      { timezone: 'Mars/Olympus' },
      { timezone: '' },
      { recurringCron: 'every sunday' },
      { recurringCron: '0 25 * * *' },
      { recurringCron: 'H 2 * * *' },
      { recurringCron: '' },
      { endAt: isoIn(t, minutes(10)) },
      { projectIds: [] },
      { ttlMinutes: 5 },
    ];
    for (const extra of bad) expectError(await as(owner, 'POST', '/maintenance-windows', body(extra)), 400);
    expectError(await as(owner, 'POST', '/maintenance-windows', body({ projectIds: [stranger.projectId] })), 404);
    expectError(await as(owner, 'POST', '/maintenance-windows', body({ workspaceId: stranger.workspaceId, projectIds: [stranger.projectId] })), 404);
    expectError(await as(viewer, 'POST', '/maintenance-windows', body()), 403);
    expectError(await t.request('POST', '/maintenance-windows', { token: owner.key, body: body() }), 401);
  });
});

describe('reading windows', () => {
  it('lists a workspace (workspaceId required, state filter) and gets one with its projects', async () => {
    const w = await create({ projectIds: [owner.projectId, second] });
    const listed = ok(await as<MaintenanceWindowView[]>(viewer, 'GET', `/maintenance-windows?workspaceId=${owner.workspaceId}&state=scheduled`), 200);
    expect(listed.map((item) => item.id)).toContain(w.id);
    expect(listed.every((item) => item.state === 'SCHEDULED')).toBe(true);
    expect(ok(await as<MaintenanceWindowView[]>(owner, 'GET', `/maintenance-windows?workspaceId=${owner.workspaceId}&state=CANCELLED`), 200).map((i) => i.id)).not.toContain(w.id);
    expectError(await as(owner, 'GET', '/maintenance-windows'), 400);
    expectError(await as(owner, 'GET', `/maintenance-windows?workspaceId=${owner.workspaceId}&state=OPEN`), 400);
    expectError(await as(stranger, 'GET', `/maintenance-windows?workspaceId=${owner.workspaceId}`), 404);

    const detail = ok(await as<Detail>(viewer, 'GET', `/maintenance-windows/${w.id}`), 200);
    expect(detail.projects).toEqual([
      { id: owner.projectId, name: expect.any(String) },
      { id: second, name: 'db' },
    ]);
    expectError(await as(stranger, 'GET', `/maintenance-windows/${w.id}`), 404);
    expectError(await as(owner, 'GET', '/maintenance-windows/999999'), 404);
  });
});

describe('PUT /maintenance-windows/:id', () => {
  it('changes a SCHEDULED window, moving its holds with its projects', async () => {
    const [from, to] = [await freshProject(), await freshProject()];
    const w = await create({ startAt: isoIn(t, minutes(5)), endAt: isoIn(t, minutes(60)), projectIds: [from] });
    const updated = ok(await as(owner, 'PUT', `/maintenance-windows/${w.id}`, { name: 'renamed', projectIds: [to], description: 'moved', suppressAlerts: false }), 200);
    expect(updated).toMatchObject({ name: 'renamed', projectIds: [to], description: 'moved', suppressAlerts: false, state: 'SCHEDULED' });
    t.clock.advance(minutes(6));
    expect((await effects(from)).suppressIncidents).toBe(false);
    expect(await effects(to)).toMatchObject({ suppressIncidents: true, suppressAlerts: false });
    // Moving the start into the past activates it at once; then it is immutable.
    const other = await create();
    const now = ok(await as(owner, 'PUT', `/maintenance-windows/${other.id}`, { startAt: isoIn(t, -minutes(1)) }), 200);
    expect(now.state).toBe('ACTIVE');
    expectError(await as(owner, 'PUT', `/maintenance-windows/${other.id}`, { name: 'again' }), 409, 'MAINTENANCE_WINDOW_IMMUTABLE');
  });

  it('refuses ACTIVE, COMPLETED and CANCELLED windows with 409, bad values with 400, roles below MEMBER with 403', async () => {
    const active = await create({ startAt: isoIn(t, 0) });
    expect(active.state).toBe('ACTIVE');
    expectError(await as(owner, 'PUT', `/maintenance-windows/${active.id}`, { name: 'x' }), 409, 'MAINTENANCE_WINDOW_IMMUTABLE');
    const cancelled = ok(await as(owner, 'POST', `/maintenance-windows/${(await create()).id}/cancel`), 200);
    expectError(await as(owner, 'PUT', `/maintenance-windows/${cancelled.id}`, { name: 'x' }), 409);
    const completed = ok(await v1(t, owner.key, 'POST', `/maintenance-windows/${(await create()).id}/end`), 200);
    expectError(await as(owner, 'PUT', `/maintenance-windows/${(completed as MaintenanceWindowView).id}`, { name: 'x' }), 409);

    const w = await create();
    for (const change of [
      { endAt: isoIn(t, minutes(1)) },
      { timezone: 'Nowhere/City' },
      { recurringCron: '* * *' },
      { workspaceId: stranger.workspaceId },
      { state: 'ACTIVE' },
      { name: '' },
    ]) {
      expectError(await as(owner, 'PUT', `/maintenance-windows/${w.id}`, change), 400);
    }
    expectError(await as(owner, 'PUT', `/maintenance-windows/${w.id}`, { projectIds: [stranger.projectId] }), 404);
    expectError(await as(viewer, 'PUT', `/maintenance-windows/${w.id}`, { name: 'x' }), 403);
    expectError(await as(stranger, 'PUT', `/maintenance-windows/${w.id}`, { name: 'x' }), 404);
    expect(ok(await as<Detail>(owner, 'GET', `/maintenance-windows/${w.id}`), 200)).toMatchObject({ name: 'patching', timezone: 'UTC' });
  });
});

describe('cancel and delete', () => {
  it('cancels SCHEDULED and ACTIVE windows (suppression stops at once); a terminal one returns unchanged', async () => {
    const projectId = await freshProject();
    const active = await create({ startAt: isoIn(t, 0), projectIds: [projectId] });
    expect((await effects(projectId)).suppressIncidents).toBe(true);
    const cancelled = ok(await as(owner, 'POST', `/maintenance-windows/${active.id}/cancel`), 200);
    expect(cancelled).toMatchObject({ state: 'CANCELLED', cancelledAt: t.clock.now().toISOString() });
    expect(await effects(projectId)).toMatchObject({ suppressIncidents: false, suppressAlerts: false });
    t.clock.advance(minutes(1));
    expect(ok(await as(owner, 'POST', `/maintenance-windows/${active.id}/cancel`), 200)).toEqual(cancelled);
    expect(ok(await v1(t, owner.key, 'POST', `/maintenance-windows/${active.id}/end`), 200)).toEqual(cancelled);
    expect(ok(await as(owner, 'POST', `/maintenance-windows/${(await create()).id}/cancel`), 200).state).toBe('CANCELLED');
    expectError(await as(viewer, 'POST', `/maintenance-windows/${active.id}/cancel`), 403);
  });

  it('deletes windows that are not running (204); an ACTIVE one must be cancelled first (409)', async () => {
    const projectId = await freshProject();
    const scheduled = await create({ projectIds: [projectId] });
    expectError(await as(viewer, 'DELETE', `/maintenance-windows/${scheduled.id}`), 403);
    expect((await as(owner, 'DELETE', `/maintenance-windows/${scheduled.id}`)).status).toBe(204);
    expectError(await as(owner, 'GET', `/maintenance-windows/${scheduled.id}`), 404);
    t.clock.advance(minutes(31));
    expect((await effects(projectId)).suppressIncidents).toBe(false);
    const active = await create({ startAt: isoIn(t, 0) });
    expectError(await as(owner, 'DELETE', `/maintenance-windows/${active.id}`), 409, 'MAINTENANCE_WINDOW_IMMUTABLE');
    ok(await as(owner, 'POST', `/maintenance-windows/${active.id}/cancel`), 200);
    expect((await as(owner, 'DELETE', `/maintenance-windows/${active.id}`)).status).toBe(204);
    expectError(await as(stranger, 'DELETE', `/maintenance-windows/${active.id}`), 404);
  });
});

describe('recurring windows', () => {
  it('activate at each cron occurrence in their time zone for endAt - startAt, and go back to SCHEDULED between', async () => {
    // Daily at 03:00 Berlin (02:00 UTC in March), one hour long; the clock is at 12:00 UTC.
    const projectId = await freshProject();
    const w = await create({ startAt: isoIn(t, 0), endAt: isoIn(t, minutes(60)), recurringCron: '0 3 * * *', timezone: 'Europe/Berlin', projectIds: [projectId] });
    const day = t.clock.now().toISOString().slice(0, 10);
    const next = new Date(Date.parse(`${day}T02:00:00.000Z`) + 86_400_000);
    expect(w).toMatchObject({ state: 'SCHEDULED', occurrenceStartAt: next.toISOString(), occurrenceEndAt: new Date(next.getTime() + minutes(60)).toISOString() });
    const read = async () => ok(await as<Detail>(owner, 'GET', `/maintenance-windows/${w.id}`), 200);

    t.clock.set(new Date(next.getTime() + minutes(1)));
    expect((await effects(projectId)).suppressIncidents).toBe(true);
    await sweep(t);
    expect((await read()).state).toBe('ACTIVE');
    t.clock.set(new Date(next.getTime() + minutes(61)));
    expect((await effects(projectId)).suppressIncidents).toBe(false);
    await sweep(t);
    expect(await read()).toMatchObject({ state: 'SCHEDULED', occurrenceStartAt: new Date(next.getTime() + 86_400_000).toISOString() });
    // Between occurrences it is SCHEDULED, so it may be edited; the Integration API end stops the series.
    expect(ok(await as(owner, 'PUT', `/maintenance-windows/${w.id}`, { recurringCron: '0 5 * * *' }), 200).occurrenceStartAt).toBe(
      new Date(next.getTime() + minutes(120)).toISOString(),
    );
    expect(ok(await v1(t, owner.key, 'POST', `/maintenance-windows/${w.id}/end`), 200)).toMatchObject({ state: 'COMPLETED' });
    t.clock.set(new Date(next.getTime() + minutes(121)));
    await sweep(t);
    expect((await effects(projectId)).suppressIncidents).toBe(false);
    expect((await read()).state).toBe('COMPLETED');
  });
});
