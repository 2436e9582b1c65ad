import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { Page } from '../http/pagination.js';
import { isoIn, member, minutes, ok, session, sweep, v1, type User } from '../../test/support/windows.js';
import type { MaintenanceWindowView } from './schema.js';

let t: TestContext;
let user: User;
let other: User;
let second: number;
beforeAll(async () => {
  t = await createTestContext();
  user = await member(t, 'operator');
  other = await member(t, 'stranger');
  second = ok(await v1<{ id: number }>(t, user.key, 'POST', '/projects', { name: 'db' }), 201).id;
});

const call = <T = MaintenanceWindowView>(method: string, path: string, body?: unknown, key = user.key) => v1<T>(t, key, method, path, body);
const create = async (body: Record<string, unknown>) => ok(await call('POST', '/maintenance-windows', { name: 'db upgrade', endAt: isoIn(t, minutes(60)), ...body }), 201);

describe('POST /v1/maintenance-windows', () => {
  it('starts now by default over every project of the workspace, suppressing alerts and incidents', async () => {
    const w = await create({});
    expect(w).toMatchObject({
      name: 'db upgrade',
      description: null,
      state: 'ACTIVE',
      startAt: t.clock.now().toISOString(),
      endAt: isoIn(t, minutes(60)),
      projectIds: [user.projectId, second],
      suppressAlerts: true,
      suppressIncidents: true,
      autoPublishToStatusPage: false,
      timezone: 'UTC',
      recurringCron: null,
      completedAt: null,
      cancelledAt: null,
    });
    expect(typeof w.id).toBe('number');
  });

  it('schedules a future window over the named projects (duplicates folded), with its flags', async () => {
    const w = await create({ startAt: isoIn(t, minutes(30)), endAt: isoIn(t, minutes(90)), projectIds: [second, second], suppressAlerts: false, description: 'vacuum' });
    expect(w).toMatchObject({ state: 'SCHEDULED', projectIds: [second], suppressAlerts: false, suppressIncidents: true, description: 'vacuum' });
    // Offsets are accepted and stored as UTC.
    const offset = await create({ startAt: '2026-03-01T14:00:00+02:00', endAt: '2026-03-01T15:00:00+02:00' });
    expect(offset).toMatchObject({ startAt: '2026-03-01T12:00:00.000Z', state: 'ACTIVE' });
  });

  it('rejects bad bodies with 400 and foreign projects with 404, creating nothing', async () => {
    const before = ok(await call<Page<MaintenanceWindowView>>('GET', '/maintenance-windows'), 200).total;
    const bad: Record<string, unknown>[] = [
      { name: undefined },
      { name: '' },
      { name: 'x'.repeat(256) },
      { endAt: undefined },
      { endAt: 'soon' },
      { endAt: '2026-03-01T13:00:00' },
      { endAt: isoIn(t, -minutes(1)) },
      { startAt: isoIn(t, minutes(10)), endAt: isoIn(t, minutes(5)) },
      { description: 'x'.repeat(2001) },
      { projectIds: [] },
      { projectIds: [0] },
      { suppressAlerts: 'no' },
      { timezone: 'UTC' },
      { recurringCron: '0 2 * * *' },
      { autoPublishToStatusPage: true },
      { workspaceId: user.workspaceId },
    ];
    for (const body of bad) expectError(await call('POST', '/maintenance-windows', { name: 'w', endAt: isoIn(t, minutes(5)), ...body }), 400);
    expectError(await call('POST', '/maintenance-windows', { name: 'w', endAt: isoIn(t, minutes(5)), projectIds: [other.projectId] }), 404);
    expectError(await call('POST', '/maintenance-windows', { name: 'w', endAt: isoIn(t, minutes(5)), projectIds: [user.projectId, 987_654] }), 404);
    expect(ok(await call<Page<MaintenanceWindowView>>('GET', '/maintenance-windows'), 200).total).toBe(before);
    expect((await create({ description: 'x'.repeat(2000), name: 'n'.repeat(255) })).state).toBe('ACTIVE');
  });
});

describe('POST /v1/maintenance-windows/:id/end', () => {
  it('completes SCHEDULED and ACTIVE windows; a terminal one comes back unchanged with 200', async () => {
    const active = await create({});
    const scheduled = await create({ startAt: isoIn(t, minutes(10)) });
    t.clock.advance(minutes(1));
    const ended = ok(await call('POST', `/maintenance-windows/${active.id}/end`), 200);
    expect(ended).toMatchObject({ state: 'COMPLETED', completedAt: t.clock.now().toISOString() });
    expect(ok(await call('POST', `/maintenance-windows/${scheduled.id}/end`), 200).state).toBe('COMPLETED');
    t.clock.advance(minutes(1));
    expect(ok(await call('POST', `/maintenance-windows/${active.id}/end`), 200)).toEqual(ended);
  });

  it('404s unknown and foreign windows; read_only keys list but do not open or end', async () => {
    const w = await create({});
    expectError(await call('POST', `/maintenance-windows/${w.id}/end`, undefined, other.key), 404);
    expectError(await call('POST', '/maintenance-windows/999999/end'), 404);
    const readOnly = await t.apiKey(user, { permission: 'read_only' });
    expectError(await call('POST', '/maintenance-windows', { name: 'w', endAt: isoIn(t, minutes(5)) }, readOnly), 403);
    expectError(await call('POST', `/maintenance-windows/${w.id}/end`, undefined, readOnly), 403);
    expect((await call('GET', '/maintenance-windows', undefined, readOnly)).status).toBe(200);
  });
});

describe('the processor (in the sweep)', () => {
  it('activates a window when startAt passes and completes it after endAt', async () => {
    const w = await create({ startAt: isoIn(t, minutes(5)), endAt: isoIn(t, minutes(20)) });
    const state = async () => ok(await call<Page<MaintenanceWindowView>>('GET', '/maintenance-windows?limit=100'), 200).items.find((item) => item.id === w.id);
    t.clock.advance(minutes(4));
    await sweep(t);
    expect((await state())?.state).toBe('SCHEDULED');
    t.clock.advance(minutes(2));
    await sweep(t);
    expect((await state())?.state).toBe('ACTIVE');
    t.clock.advance(minutes(15));
    await sweep(t);
    expect(await state()).toMatchObject({ state: 'COMPLETED', completedAt: w.endAt });
  });
});

describe('GET /v1/maintenance-windows', () => {
  it('pages newest first and filters by state, project and overlapping range', async () => {
    const fresh = await member(t, 'lister');
    const own = (method: string, path: string, body?: unknown) => v1<MaintenanceWindowView>(t, fresh.key, method, path, body);
    const p2 = ok(await v1<{ id: number }>(t, fresh.key, 'POST', '/projects', { name: 'two' }), 201).id;
    const early = ok(await own('POST', '/maintenance-windows', { name: 'early', endAt: isoIn(t, minutes(30)), projectIds: [fresh.projectId] }), 201);
    const late = ok(await own('POST', '/maintenance-windows', { name: 'late', startAt: isoIn(t, minutes(60)), endAt: isoIn(t, minutes(90)), projectIds: [p2] }), 201);
    const done = ok(await own('POST', '/maintenance-windows', { name: 'done', endAt: isoIn(t, minutes(10)) }), 201);
    ok(await own('POST', `/maintenance-windows/${done.id}/end`), 200);
    const page = async (query: string) => ok(await v1<Page<MaintenanceWindowView>>(t, fresh.key, 'GET', `/maintenance-windows?${query}`), 200);

    expect(await page('')).toMatchObject({ total: 3, page: 1, itemCount: 3, pageCount: 1, limit: 20 });
    expect((await page('')).items.map((w) => w.id)).toEqual([done.id, late.id, early.id]);
    expect((await page('state=scheduled')).items.map((w) => w.id)).toEqual([late.id]);
    expect((await page('state=COMPLETED')).items.map((w) => w.id)).toEqual([done.id]);
    expect((await page(`projectId=${p2}`)).items.map((w) => w.id)).toEqual([late.id, done.id].sort((a, b) => b - a));
    expect((await page(`from=${encodeURIComponent(isoIn(t, minutes(45)))}`)).items.map((w) => w.id)).toEqual([late.id]);
    expect((await page(`to=${encodeURIComponent(isoIn(t, minutes(45)))}`)).items.map((w) => w.id)).toEqual([done.id, early.id]);
    expect(await page('limit=2&page=2')).toMatchObject({ itemCount: 1, pageCount: 2, total: 3 });
    for (const query of ['state=OPEN', 'limit=101', 'page=0', 'from=never', `from=${encodeURIComponent(isoIn(t, minutes(5)))}&to=${encodeURIComponent(isoIn(t, 0))}`]) {
      expectError(await v1(t, fresh.key, 'GET', `/maintenance-windows?${query}`), 400);
    }
    expectError(await v1(t, fresh.key, 'GET', `/maintenance-windows?projectId=${user.projectId}`), 404);
  });

  it('keeps a recurring window by its occurrences in the range, not by its first one', async () => {
    const fresh = await member(t, 'recurring');
    const dashboard = async (path: string, body?: unknown) =>
      ok(await t.request<MaintenanceWindowView>('POST', path, { token: await session(t, fresh), ...(body === undefined ? {} : { body }) }), path.endsWith('cancel') ? 200 : 201);
    const day = 24 * minutes(60);
    // Every day from t0 (a whole minute, so a cron time) for an hour.
    t.clock.advance(minutes(1) - (t.clock.now().getTime() % minutes(1)));
    const t0 = t.clock.now();
    const cron = `${t0.getUTCMinutes()} ${t0.getUTCHours()} * * *`;
    const recurring = await dashboard('/maintenance-windows', {
      workspaceId: fresh.workspaceId,
      name: 'nightly',
      startAt: isoIn(t, 0),
      endAt: isoIn(t, minutes(60)),
      projectIds: [fresh.projectId],
      recurringCron: cron,
    });
    const stopped = await dashboard('/maintenance-windows', {
      workspaceId: fresh.workspaceId,
      name: 'stopped',
      startAt: isoIn(t, 0),
      endAt: isoIn(t, minutes(60)),
      projectIds: [fresh.projectId],
      recurringCron: cron,
    });
    const once = await dashboard('/maintenance-windows', {
      workspaceId: fresh.workspaceId,
      name: 'once',
      startAt: isoIn(t, minutes(10)),
      endAt: isoIn(t, minutes(20)),
      projectIds: [fresh.projectId],
    });
    t.clock.advance(2 * day + minutes(30));
    await sweep(t);
    await dashboard(`/maintenance-windows/${stopped.id}/cancel`);
    const ids = async (from: number, to: number) =>
      ok(
        await v1<Page<MaintenanceWindowView>>(t, fresh.key, 'GET', `/maintenance-windows?from=${encodeURIComponent(isoIn(t, from))}&to=${encodeURIComponent(isoIn(t, to))}`),
        200,
      ).items.map((w) => w.id);
    // The ranges are relative to now (day 2, 30 min into its occurrence).
    expect(await ids(minutes(15), minutes(20))).toEqual([recurring.id]);
    expect(await ids(-minutes(20), -minutes(10))).toEqual([stopped.id, recurring.id]);
    expect(await ids(5 * day, 5 * day + minutes(10))).toEqual([recurring.id]);
    // Between today's occurrence (ends in 30 min) and tomorrow's (starts in a day less 30 min).
    expect(await ids(minutes(40), day - minutes(40))).toEqual([]);
    expect(await ids(-2 * day - minutes(20), -2 * day - minutes(15))).toEqual([once.id, stopped.id, recurring.id]);
  });
});
