import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam, type Team as Workspace } from '../../test/support/identity.js';
import { channel, schedule, team } from '../../test/support/escalation.js';

type Target = { targetType: string; alertChannel: { id: number } | null; users: { id: number; email: string }[]; note: string | null };
type Simulation = {
  routing: { kind: string; policyId: number | null } | null;
  cycleMinutes: number;
  steps: { cycle: number; position: number; minutesAfterOpen: number; at: string; targets: Target[] }[];
};

let t: TestContext;
let ws: Workspace;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createTeam(t, 'sim');
});
beforeEach(() => t.clock.advanceSeconds(61));

describe('GET /escalation-policies/:id/simulate', () => {
  it('says who would be told and when, resolving the on-call user at each step’s instant', async () => {
    const w = ws.workspaceId;
    const { admin, member, viewer } = ws;
    // Daily 09:00 UTC handoffs from 1 March: admin, then member, then admin ...
    const ids = {
      channel: await channel(t, admin, 'Hook', w),
      schedule: await schedule(t, admin, [admin.userId, member.userId], w),
      team: await team(t, admin, [member.userId, viewer.userId], w),
    };
    const steps = [
      {
        position: 0,
        delayMinutes: 0,
        targets: [
          { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: ids.schedule },
          { targetType: 'ALERT_CHANNEL', alertChannelId: ids.channel },
        ],
      },
      { position: 1, delayMinutes: 10, targets: [{ targetType: 'USER', targetUserId: viewer.userId }] },
      { position: 2, delayMinutes: 30, targets: [{ targetType: 'TEAM', targetTeamId: ids.team }] },
    ];
    const created = await t.request<{ id: number }>('POST', '/escalation-policies', {
      token: admin.token,
      body: { workspaceId: w, name: 'Prod', priority: 3, repeatCount: 1, projectIds: [ws.projectId], steps },
    });
    expect(created.status, created.text).toBe(201);

    // Opened at 08:40 on 2 March: step 0 pages admin (on call until 09:00); cycle 1 step 0 (50 min later, 09:30) pages member.
    const sim = await t.request<Simulation>('GET', `/escalation-policies/${created.body.id}/simulate?at=2026-03-02T08:40:00Z&projectId=${ws.projectId}`, { token: viewer.token });
    expect(sim.status, sim.text).toBe(200);
    expect(sim.body.cycleMinutes).toBe(50);
    expect(sim.body.routing).toEqual({ kind: 'policy', policyId: created.body.id });
    expect(sim.body.steps.map((s) => [s.cycle, s.position, s.minutesAfterOpen, s.at])).toEqual([
      [0, 0, 0, '2026-03-02T08:40:00.000Z'],
      [0, 1, 10, '2026-03-02T08:50:00.000Z'],
      [0, 2, 30, '2026-03-02T09:10:00.000Z'],
      [1, 0, 50, '2026-03-02T09:30:00.000Z'],
      [1, 1, 60, '2026-03-02T09:40:00.000Z'],
      [1, 2, 80, '2026-03-02T10:00:00.000Z'],
    ]);
    const users = (i: number, j = 0) => sim.body.steps[i]?.targets[j]?.users.map((u) => u.id);
    expect(users(0)).toEqual([admin.userId]);
    expect(sim.body.steps[0]?.targets[1]?.alertChannel?.id).toBe(ids.channel);
    expect(users(1)).toEqual([viewer.userId]);
    expect(users(2)?.sort()).toEqual([member.userId, viewer.userId].sort());
    expect(users(3)).toEqual([member.userId]);

    // A catch-all policy with a lower priority number wins for the project; the simulation says so.
    const first = await t.request<{ id: number }>('POST', '/escalation-policies', {
      token: admin.token,
      body: { workspaceId: w, name: 'All', priority: 0, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'USER', targetUserId: admin.userId }] }] },
    });
    const again = await t.request<Simulation>('GET', `/escalation-policies/${created.body.id}/simulate?at=2026-03-02T08:40:00Z&projectId=${ws.projectId}`, { token: viewer.token });
    expect(again.body.routing).toEqual({ kind: 'policy', policyId: first.body.id });
    // Without projectId there is no routing verdict; `at` defaults to now.
    const plain = await t.request<Simulation & { openedAt: string }>('GET', `/escalation-policies/${created.body.id}/simulate`, { token: viewer.token });
    expect(plain.body.routing).toBeNull();
    expect(plain.body.openedAt).toBe(t.clock.now().toISOString());
  });

  it('says when a schedule target reaches nobody', async () => {
    const w = ws.workspaceId;
    const empty = await t.request<{ id: number }>('POST', '/on-call-schedules', { token: ws.admin.token, body: { workspaceId: w, name: 'Empty' } });
    const created = await t.request<{ id: number }>('POST', '/escalation-policies', {
      token: ws.admin.token,
      body: {
        workspaceId: w,
        name: 'Empty',
        priority: 9,
        steps: [{ position: 0, delayMinutes: 5, targets: [{ targetType: 'ON_CALL_SCHEDULE', targetScheduleId: empty.body.id }] }],
      },
    });
    const sim = await t.request<Simulation>('GET', `/escalation-policies/${created.body.id}/simulate?at=2026-03-02T08:40:00Z`, { token: ws.admin.token });
    expect(sim.body.steps).toHaveLength(1);
    expect(sim.body.steps[0]?.targets[0]).toMatchObject({ users: [], note: 'nobody is on call' });
    expectError(await t.request('GET', `/escalation-policies/${created.body.id}/simulate?projectId=999999`, { token: ws.admin.token }), 404);
  });

  it('previews unsaved steps (POST /simulate) exactly as the stored policy would run, storing nothing', async () => {
    const w = ws.workspaceId;
    const { admin, member, viewer } = ws;
    const ids = { channel: await channel(t, admin, 'Draft hook', w), schedule: await schedule(t, admin, [admin.userId, member.userId], w) };
    const steps = [
      { position: 0, delayMinutes: 0, targets: [{ targetType: 'ON_CALL_SCHEDULE', targetScheduleId: ids.schedule }] },
      { position: 1, delayMinutes: 15, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: ids.channel }] },
    ];
    const before = await t.request<{ total: number }>('GET', `/escalation-policies?workspaceId=${w}`, { token: viewer.token });
    // A VIEWER may preview (reading is all it does).
    const draft = await t.request<Simulation & { policyId: number | null }>('POST', '/escalation-policies/simulate', {
      token: viewer.token,
      body: { workspaceId: w, repeatCount: 1, steps, at: '2026-03-02T08:50:00Z' },
    });
    expect(draft.status, draft.text).toBe(200);
    expect(draft.body.policyId).toBeNull();
    expect(draft.body.cycleMinutes).toBe(30);
    // 08:50 the schedule's admin; 09:20 (next cycle, after the 09:00 handoff) the member.
    expect(draft.body.steps.map((s) => [s.cycle, s.position, s.at, s.targets[0]?.users.map((u) => u.id) ?? null, s.targets[0]?.alertChannel?.id ?? null])).toEqual([
      [0, 0, '2026-03-02T08:50:00.000Z', [admin.userId], null],
      [0, 1, '2026-03-02T09:05:00.000Z', [], ids.channel],
      [1, 0, '2026-03-02T09:20:00.000Z', [member.userId], null],
      [1, 1, '2026-03-02T09:35:00.000Z', [], ids.channel],
    ]);
    const saved = await t.request<{ id: number }>('POST', '/escalation-policies', {
      token: admin.token,
      body: { workspaceId: w, name: 'Saved twin', priority: 40, repeatCount: 1, steps },
    });
    const stored = await t.request<Simulation>('GET', `/escalation-policies/${saved.body.id}/simulate?at=2026-03-02T08:50:00Z`, { token: viewer.token });
    expect(stored.body.steps).toEqual(draft.body.steps);
    const after = await t.request<{ total: number }>('GET', `/escalation-policies?workspaceId=${w}`, { token: viewer.token });
    expect(after.body.total).toBe(before.body.total + 1);

    // Bad steps are a 400 with the field; another workspace's channel or workspace is a 404.
    const bad = expectError(
      await t.request('POST', '/escalation-policies/simulate', {
        token: viewer.token,
        body: {
          workspaceId: w,
          steps: [
            { ...steps[0], position: 0 },
            { ...steps[1], delayMinutes: 0 },
          ],
        },
      }),
      400,
    );
    expect(JSON.stringify(bad)).toMatch(/greater than the delay/);
    const other = await createTeam(t, 'sim-other');
    const foreign = await channel(t, other.admin, 'Theirs', other.workspaceId);
    expectError(
      await t.request('POST', '/escalation-policies/simulate', {
        token: admin.token,
        body: { workspaceId: w, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: foreign }] }] },
      }),
      404,
    );
    expectError(
      await t.request('POST', '/escalation-policies/simulate', {
        token: admin.token,
        body: { workspaceId: other.workspaceId, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: foreign }] }] },
      }),
      404,
    );
  });
});
