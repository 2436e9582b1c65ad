import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam, type Team as Workspace } from '../../test/support/identity.js';
import { channel, schedule, team } from '../../test/support/escalation.js';

type Policy = {
  id: number;
  workspaceId: number;
  name: string;
  priority: number;
  projectIds: number[] | null;
  ackTimeoutMinutes: number | null;
  repeatCount: number;
  enabled: boolean;
  steps: { position: number; delayMinutes: number; targets: Record<string, unknown>[] }[];
};
type Page<T> = { items: T[]; total: number };

let t: TestContext;
let ws: Workspace;
let ids: { channel: number; schedule: number; team: number };
beforeAll(async () => {
  t = await createTestContext();
  ws = await createTeam(t, 'pol');
  const w = ws.workspaceId;
  ids = {
    channel: await channel(t, ws.admin, 'Hook', w),
    schedule: await schedule(t, ws.admin, [ws.admin.userId, ws.member.userId], w),
    team: await team(t, ws.admin, [ws.member.userId, ws.viewer.userId], w),
  };
});
beforeEach(() => t.clock.advanceSeconds(61));

const threeSteps = () => [
  {
    position: 0,
    delayMinutes: 0,
    targets: [
      { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: ids.schedule },
      { targetType: 'ALERT_CHANNEL', alertChannelId: ids.channel },
    ],
  },
  { position: 1, delayMinutes: 10, targets: [{ targetType: 'USER', targetUserId: ws.admin.userId }] },
  { position: 2, delayMinutes: 30, targets: [{ targetType: 'TEAM', targetTeamId: ids.team }] },
];
const create = (body: Record<string, unknown>, token = ws.admin.token) =>
  t.request<Policy>('POST', '/escalation-policies', { token, body: { workspaceId: ws.workspaceId, name: 'Prod', steps: threeSteps(), ...body } });

describe('escalation policies', () => {
  it('creates with defaults, reads, lists by priority, replaces steps on PUT and deletes', async () => {
    const created = await create({ priority: 5 });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ workspaceId: ws.workspaceId, name: 'Prod', priority: 5, projectIds: null, ackTimeoutMinutes: null, repeatCount: 0, enabled: true });
    expect(created.body.steps).toEqual(threeSteps());
    const scoped = await create({ priority: 1, projectIds: [ws.projectId], ackTimeoutMinutes: 30, repeatCount: 2 });
    expect(scoped.body).toMatchObject({ projectIds: [ws.projectId], ackTimeoutMinutes: 30, repeatCount: 2 });

    expect((await t.request<Policy>('GET', `/escalation-policies/${created.body.id}`, { token: ws.viewer.token })).body).toEqual(created.body);
    const list = await t.request<Page<Policy>>('GET', `/escalation-policies?workspaceId=${ws.workspaceId}`, { token: ws.viewer.token });
    expect(list.body.items.map((p) => p.priority)).toEqual([1, 5]);
    expect(list.body.total).toBe(2);

    const steps = [{ position: 0, delayMinutes: 5, targets: [{ targetType: 'USER', targetUserId: ws.member.userId }] }];
    const put = await t.request<Policy>('PUT', `/escalation-policies/${created.body.id}`, {
      token: ws.admin.token,
      body: { name: 'Prod v2', priority: 0, projectIds: [ws.projectId], steps },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ name: 'Prod v2', priority: 0, projectIds: [ws.projectId], steps });
    const back = await t.request<Policy>('PUT', `/escalation-policies/${created.body.id}`, {
      token: ws.admin.token,
      body: { projectIds: null, ackTimeoutMinutes: null, enabled: false },
    });
    expect(back.body).toMatchObject({ projectIds: null, ackTimeoutMinutes: null, enabled: false, steps });
    // The old priority is free again after the move; the new one is held.
    const reuse = await create({ priority: 5, name: 'Reuses 5' });
    expect(reuse.status, reuse.text).toBe(201);
    expectError(await create({ priority: 0 }), 409);

    for (const id of [created.body.id, scoped.body.id, reuse.body.id])
      expect((await t.request('DELETE', `/escalation-policies/${id}`, { token: ws.admin.token })).status).toBe(204);
    expectError(await t.request('GET', `/escalation-policies/${created.body.id}`, { token: ws.admin.token }), 404);
    expect((await create({ priority: 0, name: 'After delete' })).status).toBe(201);
  });

  it('keeps priority unique per workspace (409), also on PUT and under concurrent creates', async () => {
    const first = await create({ priority: 100 });
    expect(first.status).toBe(201);
    expectError(await create({ priority: 100 }), 409);
    const other = await create({ priority: 101 });
    expectError(await t.request('PUT', `/escalation-policies/${other.body.id}`, { token: ws.admin.token, body: { priority: 100 } }), 409);
    const racing = await Promise.all([create({ priority: 200 }), create({ priority: 200 }), create({ priority: 200 })]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    // Another workspace may use the same priority.
    const theirs = await t.request('POST', '/escalation-policies', {
      token: ws.outsider.token,
      body: {
        workspaceId: ws.outsider.workspaceId,
        name: 'Theirs',
        priority: 100,
        steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'USER', targetUserId: ws.outsider.userId }] }],
      },
    });
    expect(theirs.status, theirs.text).toBe(201);
  });

  it('refuses bad bodies with 400 in the error shape', async () => {
    const user = (position: number, delayMinutes: number) => ({ position, delayMinutes, targets: [{ targetType: 'USER', targetUserId: ws.admin.userId }] });
    const bad: Record<string, unknown>[] = [
      { priority: -1 },
      { priority: 'high' },
      { priority: 300, steps: [] },
      { priority: 300, steps: [user(0, 10), user(1, 10)] },
      { priority: 300, steps: [user(0, 10), user(1, 5)] },
      { priority: 300, steps: [user(0, 0), user(2, 5)] },
      { priority: 300, steps: [{ position: 0, delayMinutes: 0, targets: [] }] },
      { priority: 300, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'USER' }] }] },
      { priority: 300, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'USER', targetUserId: 1, alertChannelId: 1 }] }] },
      { priority: 300, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'PAGER', targetUserId: 1 }] }] },
      { priority: 300, steps: [{ position: 0, delayMinutes: -1, targets: [{ targetType: 'USER', targetUserId: 1 }] }] },
      { priority: 300, projectIds: [] },
      { priority: 300, repeatCount: 11 },
      { priority: 300, ackTimeoutMinutes: 0 },
      { priority: 300, color: 'red' },
      { priority: 300, steps: undefined },
      { priority: 300, steps: [{ position: 0, delayMinutes: 'x', targets: [] }, { position: 0 }, null] },
      { priority: 300, steps: [user(0, 0), { position: 'one', delayMinutes: 5, targets: [{ targetType: 'TEAM', targetTeamId: -1 }] }] },
    ];
    for (const body of bad) {
      const err = expectError(await create(body), 400) as { details?: unknown[] };
      expect(err.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expectError(await t.request('GET', '/escalation-policies', { token: ws.admin.token }), 400);
    expectError(await t.request('GET', `/escalation-policies/1/simulate?at=noon`, { token: ws.admin.token }), 400);
  });

  it('answers 404 for foreign policies and for targets or projects of another workspace', async () => {
    const { outsider } = ws;
    const foreign = {
      channel: await channel(t, outsider),
      schedule: await schedule(t, outsider, [outsider.userId]),
      team: await team(t, outsider, [outsider.userId]),
    };
    const theirs = await t.request<Policy>('POST', '/escalation-policies', {
      token: outsider.token,
      body: {
        workspaceId: outsider.workspaceId,
        name: 'Theirs',
        priority: 7,
        steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'TEAM', targetTeamId: foreign.team }] }],
      },
    });
    const path = `/escalation-policies/${theirs.body.id}`;
    expectError(await t.request('GET', path, { token: ws.admin.token }), 404);
    expectError(await t.request('PUT', path, { token: ws.admin.token, body: { name: 'x' } }), 404);
    expectError(await t.request('DELETE', path, { token: ws.admin.token }), 404);
    expectError(await t.request('GET', `${path}/simulate`, { token: ws.admin.token }), 404);
    expectError(await t.request('GET', `/escalation-policies?workspaceId=${outsider.workspaceId}`, { token: ws.admin.token }), 404);
    for (const target of [
      { targetType: 'ALERT_CHANNEL', alertChannelId: foreign.channel },
      { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: foreign.schedule },
      { targetType: 'TEAM', targetTeamId: foreign.team },
      { targetType: 'USER', targetUserId: outsider.userId },
      { targetType: 'ALERT_CHANNEL', alertChannelId: 999_999 },
    ]) {
      expectError(await create({ priority: 400, steps: [{ position: 0, delayMinutes: 0, targets: [target] }] }), 404);
    }
    expectError(await create({ priority: 400, projectIds: [outsider.projectId] }), 404);
    expectError(await create({ priority: 400, workspaceId: outsider.workspaceId }), 404);
    const ours = await create({ priority: 401 });
    expectError(
      await t.request('PUT', `/escalation-policies/${ours.body.id}`, {
        token: ws.admin.token,
        body: { steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'TEAM', targetTeamId: foreign.team }] }] },
      }),
      404,
    );
    expectError(await t.request('GET', `/escalation-policies/${ours.body.id}/simulate?projectId=${outsider.projectId}`, { token: ws.admin.token }), 404);
  });

  it('lets VIEWER and MEMBER read, only ADMIN write', async () => {
    const policy = await create({ priority: 500 });
    for (const user of [ws.member, ws.viewer]) {
      expectError(await create({ priority: 501 }, user.token), 403);
      expectError(await t.request('PUT', `/escalation-policies/${policy.body.id}`, { token: user.token, body: { name: 'x' } }), 403);
      expectError(await t.request('DELETE', `/escalation-policies/${policy.body.id}`, { token: user.token }), 403);
      expect((await t.request('GET', `/escalation-policies/${policy.body.id}`, { token: user.token })).status).toBe(200);
      expect((await t.request('GET', `/escalation-policies/${policy.body.id}/simulate`, { token: user.token })).status).toBe(200);
    }
    expectError(await t.request('GET', `/escalation-policies/${policy.body.id}`), 401);
  });
});
