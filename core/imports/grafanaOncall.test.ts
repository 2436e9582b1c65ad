import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyActor, Ctx } from '../context.js';
import { HttpError } from '../http/errors.js';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { oncallExport } from '../../test/support/grafanaOncall.js';
import { createTeam, type Team, type TestUser } from '../../test/support/identity.js';
import { importGrafanaOncall } from './grafanaOncall.js';
import type { ImportReport } from './report.js';

/** The importer through the real store: dry run, real run, a second run, bad files and scope. */

type Rotation = {
  id: number;
  name: string;
  type: string;
  layerPosition: number;
  effectiveFrom: string;
  handoffTime: string;
  handoffDay: number;
  customShiftHours: number | null;
  participants: { userId: number; position: number }[];
};
type Schedule = {
  id: number;
  name: string;
  timezone: string;
  handoffNotificationMinutes: number | null;
  rotations: Rotation[];
  overrides: { overrideUserId: number; startAt: string; endAt: string; replacedUserId: number | null }[];
};
type Policy = {
  id: number;
  name: string;
  enabled: boolean;
  projectIds: number[] | null;
  repeatCount: number;
  steps: { position: number; delayMinutes: number; targets: Record<string, unknown>[] }[];
};

let t: TestContext;
let ws: Team;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createTeam(t, 'oncall-import');
});
beforeEach(() => t.clock.advanceSeconds(61));

const userCtx = (user: TestUser): Ctx => ({ deps: t.deps, actor: { kind: 'user', userId: user.userId, email: user.email } });
const keyCtx = (workspaceId: number, permission: ApiKeyActor['permission'] = 'read_write'): Ctx => ({
  deps: t.deps,
  actor: { kind: 'apiKey', apiKeyId: 1, workspaceId, permission, keyKind: 'service', name: 'import' },
});
const fixture = (team: Team) => oncallExport({ alex: team.admin.email, bob: team.member.email, carol: team.viewer.email, stranger: team.outsider.email });
const names = (entries: { kind: string; name: string }[], kind: string) => entries.filter((e) => e.kind === kind).map((e) => e.name);
const withoutIds = (entries: ImportReport['created']) => entries.map(({ kind, name }) => ({ kind, name }));
const idOf = (report: ImportReport, kind: string, name: string): number => {
  const id = report.created.find((e) => e.kind === kind && e.name === name)?.id;
  if (id === undefined) throw new Error(`no ${kind} ${name} in ${JSON.stringify(report.created)}`);
  return id;
};
const reasonOf = (report: ImportReport, kind: string, name: string) => report.skipped.find((s) => s.kind === kind && s.name === name)?.reason;

async function rejection(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return error;
}

describe('Grafana OnCall import', () => {
  it('dry-runs, imports, and imports again without changing anything', async () => {
    const team = await createTeam(t, 'oncall-full');
    const payload = fixture(team);
    const schedulesOf = async () => (await t.request<{ items: Schedule[] }>('GET', `/on-call-schedules?workspaceId=${team.workspaceId}`, { token: team.admin.token })).body.items;

    const dry = await importGrafanaOncall(keyCtx(team.workspaceId), team.workspaceId, payload, { dryRun: true });
    expect(dry).toMatchObject({ source: 'grafana-oncall', dryRun: true });
    expect(names(dry.created, 'schedule')).toEqual(['Demo schedule Calendar', 'Platform']);
    expect(names(dry.created, 'rotation')).toEqual(['Demo schedule Calendar / Primary', 'Demo schedule Calendar / Backup', 'Platform / Follow the sun']);
    expect(names(dry.created, 'override')).toEqual(['Platform / Bob covers the evening']);
    expect(names(dry.created, 'escalation policy')).toEqual(['default']);
    expect(dry.created.every((e) => e.id === undefined)).toBe(true);
    expect(await schedulesOf()).toEqual([]);

    const real = await importGrafanaOncall(keyCtx(team.workspaceId), team.workspaceId, payload, { dryRun: false });
    expect(real.dryRun).toBe(false);
    // The dry run said exactly what the real run did.
    expect(withoutIds(real.created)).toEqual(withoutIds(dry.created));
    expect(real.skipped).toEqual(dry.skipped);
    expect(real.unchanged).toEqual(dry.unchanged);
    expect(real.created.every((e) => typeof e.id === 'number')).toBe(true);

    // Users: matched by e-mail whatever its case; the stranger is listed, not dropped.
    expect(real.unchanged.filter((e) => e.kind === 'user').map((e) => e.id)).toEqual([team.admin.userId, team.member.userId, team.viewer.userId]);
    expect(reasonOf(real, 'user', team.outsider.email)).toBe('no member of this workspace has this e-mail');

    const calendar = (await t.request<Schedule>('GET', `/on-call-schedules/${idOf(real, 'schedule', 'Demo schedule Calendar')}`, { token: team.admin.token })).body;
    expect(calendar).toMatchObject({ timezone: 'America/New_York', handoffNotificationMinutes: null });
    expect(calendar.rotations).toMatchObject([
      // Monday 09:00 New York (EST), bob first: start_rotation_from_user_index 1.
      {
        name: 'Primary',
        type: 'weekly',
        layerPosition: 0,
        effectiveFrom: '2026-03-02T14:00:00.000Z',
        handoffTime: '09:00',
        handoffDay: 1,
        customShiftHours: null,
        participants: [
          { userId: team.member.userId, position: 0 },
          { userId: team.admin.userId, position: 1 },
        ],
      },
      // 19 daily turns between start and rotation_start: the turn of the second group (alex).
      {
        name: 'Backup',
        type: 'daily',
        layerPosition: 1,
        effectiveFrom: '2026-02-20T05:00:00.000Z',
        handoffTime: '00:00',
        participants: [
          { userId: team.admin.userId, position: 0 },
          { userId: team.viewer.userId, position: 1 },
        ],
      },
    ]);
    const platformId = idOf(real, 'schedule', 'Platform');
    const platform = (await t.request<Schedule>('GET', `/on-call-schedules/${platformId}`, { token: team.admin.token })).body;
    expect(platform).toMatchObject({ timezone: 'Europe/Berlin' });
    expect(platform.rotations).toMatchObject([{ name: 'Follow the sun', type: 'custom', customShiftHours: 12, layerPosition: 0, effectiveFrom: '2026-03-01T07:00:00.000Z' }]);
    expect(platform.overrides).toMatchObject([
      { overrideUserId: team.member.userId, startAt: '2026-03-05T17:00:00.000Z', endAt: '2026-03-05T19:00:00.000Z', replacedUserId: null },
    ]);

    // The imported schedule answers who is on call as OnCall would: the override's bob at 18:30 Berlin, else the rotation.
    const at = async (instant: string) =>
      (await t.request<{ user: { id: number } | null }>('GET', `/on-call-schedules/${platformId}/on-call?at=${instant}`, { token: team.admin.token })).body.user?.id;
    expect(await at('2026-03-05T17:30:00Z')).toBe(team.member.userId);
    // 2026-03-05 20:00 Berlin: turn 9 from 1 March 08:00 (twelve-hour turns) is alex's (9 mod 3 = 0).
    expect(await at('2026-03-05T19:00:00Z')).toBe(team.admin.userId);

    const policy = (await t.request<Policy>('GET', `/escalation-policies/${idOf(real, 'escalation policy', 'default')}`, { token: team.admin.token })).body;
    expect(policy).toMatchObject({ name: 'default', enabled: false, projectIds: null, repeatCount: 5 });
    expect(policy.steps).toEqual([
      {
        position: 0,
        delayMinutes: 1,
        targets: [
          { targetType: 'USER', targetUserId: team.admin.userId },
          { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: calendar.id },
        ],
      },
      { position: 1, delayMinutes: 6, targets: [{ targetType: 'ON_CALL_SCHEDULE', targetScheduleId: platformId }] },
    ]);

    // A second import finds everything by its OnCall id: nothing is created, everything is unchanged.
    const before = await schedulesOf();
    const again = await importGrafanaOncall(keyCtx(team.workspaceId), team.workspaceId, payload, { dryRun: false });
    expect(again.created).toEqual([]);
    expect(again.unchanged).toEqual(expect.arrayContaining(real.created));
    expect(again.unchanged).toHaveLength(real.created.length + real.unchanged.length);
    expect(again.skipped).toEqual(real.skipped);
    expect(await schedulesOf()).toEqual(before);
    // So does a dry run after it.
    expect((await importGrafanaOncall(keyCtx(team.workspaceId), team.workspaceId, payload, { dryRun: true })).created).toEqual([]);
  });

  it('lists everything that does not map, with its reason', async () => {
    const report = await importGrafanaOncall(userCtx(ws.admin), ws.workspaceId, fixture(ws), { dryRun: true });
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { kind: 'schedule', name: 'Demo schedule iCal', reason: expect.stringContaining('iCal schedule') },
        { kind: 'shift', name: 'Demo schedule Calendar / OGONEMISSING1', reason: 'listed by the schedule but not in on_call_shifts' },
        { kind: 'shift', name: 'Orphan', reason: 'belongs to no schedule in the export' },
        { kind: 'shift', name: 'Demo schedule Calendar / Demo single event', reason: expect.stringContaining('one-off event') },
        { kind: 'shift', name: 'Demo schedule Calendar / Demo recurrent event', reason: 'on call only on MO, WE, FR: a Vigil rotation runs every day' },
        { kind: 'shift', name: 'Platform / Business hours', reason: 'on call only on MO, TU, WE, TH, FR: a Vigil rotation runs every day' },
        { kind: 'shift', name: 'Platform / Pairs', reason: 'a turn of 2 people at once: a Vigil rotation puts one person on call per turn' },
        { kind: 'shift', name: 'Platform / With a stranger', reason: `needs ${ws.outsider.email}, not a member of this workspace` },
        { kind: 'shift', name: 'Platform / Monthly', reason: 'frequency monthly has no Vigil rotation (hourly, daily and weekly have)' },
        { kind: 'override', name: 'Platform / Last year', reason: expect.stringContaining('before this import') },
        { kind: 'override', name: 'Platform / Both of them', reason: 'puts 2 people on call at once: a Vigil override puts one' },
        { kind: 'escalation step', name: 'default / step 2 (notify_person_next_each_time)', reason: expect.stringContaining('in turn') },
        { kind: 'escalation step target', name: `default / step 3 (notify_persons): ${ws.outsider.email}`, reason: 'not a member of this workspace' },
        { kind: 'escalation step', name: 'default / step 5 (notify_on_call_from_schedule)', reason: 'its schedule SBM7DV7BKFUYU is not imported' },
        { kind: 'escalation step', name: 'default / step 8 (trigger_webhook)', reason: expect.stringContaining('webhooks') },
        { kind: 'escalation step', name: 'example-chain / step 1 (notify_user_group)', reason: 'Slack user groups are not imported' },
        { kind: 'escalation chain', name: 'example-chain', reason: 'none of its steps maps to a Vigil step' },
      ]),
    );
    expect(report.skipped).toHaveLength(18);
  });

  it('refuses a malformed file whole, naming the field, and writes nothing', async () => {
    const team = await createTeam(t, 'oncall-bad');
    const bad = fixture(team);
    bad.on_call_shifts.results[2] = { ...bad.on_call_shifts.results[2], start: '2026-03-02 09:00' } as (typeof bad.on_call_shifts.results)[number];
    const error = await rejection(importGrafanaOncall(keyCtx(team.workspaceId), team.workspaceId, bad, { dryRun: false }));
    expect(error.status).toBe(400);
    expect(error.details).toEqual([{ path: 'on_call_shifts.2.start', message: 'must be a date-time yyyy-MM-ddTHH:mm:ss' }]);

    const repeated = fixture(team);
    repeated.escalation_chains.push({ id: 'F5JU6KJET33FE', name: 'again', team_id: null });
    expect((await rejection(importGrafanaOncall(keyCtx(team.workspaceId), team.workspaceId, repeated, { dryRun: false }))).details).toEqual([
      { path: 'escalation_chains.2.id', message: 'repeats id F5JU6KJET33FE' },
    ]);
    for (const payload of [null, 'users', [], { users: 'nobody' }, { escalation_policies: [{ id: 'E1', escalation_chain_id: 'F1', position: -1, type: 'wait' }] }]) {
      expect((await rejection(importGrafanaOncall(keyCtx(team.workspaceId), team.workspaceId, payload, { dryRun: false }))).status).toBe(400);
    }
    const listed = await t.request<{ items: unknown[] }>('GET', `/on-call-schedules?workspaceId=${team.workspaceId}`, { token: team.admin.token });
    expect(listed.body.items).toEqual([]);
  });

  it('imports into the caller’s own workspace only, with a read-write key or as an ADMIN', async () => {
    const payload = fixture(ws);
    const other = await t.signup('oncall-other');
    expect((await rejection(importGrafanaOncall(keyCtx(other.workspaceId), ws.workspaceId, payload, { dryRun: true }))).status).toBe(404);
    expect((await rejection(importGrafanaOncall(userCtx(ws.outsider), ws.workspaceId, payload, { dryRun: true }))).status).toBe(404);
    expect((await rejection(importGrafanaOncall(keyCtx(ws.workspaceId, 'read_only'), ws.workspaceId, payload, { dryRun: true }))).status).toBe(403);
    expect((await rejection(importGrafanaOncall(userCtx(ws.member), ws.workspaceId, payload, { dryRun: true }))).status).toBe(403);
    // The scope is checked before the file: a foreign caller learns nothing from a bad one.
    expect((await rejection(importGrafanaOncall(keyCtx(other.workspaceId), ws.workspaceId, 'garbage', { dryRun: true }))).status).toBe(404);
    expect((await importGrafanaOncall(userCtx(ws.owner), ws.workspaceId, payload, { dryRun: true })).created.length).toBeGreaterThan(0);
  });
});
