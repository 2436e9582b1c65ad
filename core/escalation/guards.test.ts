import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam, type Team as Workspace } from '../../test/support/identity.js';
import { channel, schedule, team } from '../../test/support/escalation.js';

let t: TestContext;
let ws: Workspace;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createTeam(t, 'guard');
});
beforeEach(() => t.clock.advanceSeconds(61));

async function policy(name: string, priority: number, targets: Record<string, unknown>[]): Promise<number> {
  const res = await t.request<{ id: number }>('POST', '/escalation-policies', {
    token: ws.admin.token,
    body: { workspaceId: ws.workspaceId, name, priority, steps: [{ position: 0, delayMinutes: 0, targets }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe('deleting what a policy targets', () => {
  it('answers 409 naming the policies, and succeeds once no policy targets it', async () => {
    const w = ws.workspaceId;
    const ids = {
      channel: await channel(t, ws.admin, 'Pager', w),
      schedule: await schedule(t, ws.admin, [ws.member.userId], w),
      team: await team(t, ws.admin, [ws.member.userId], w),
    };
    const targets = [
      { targetType: 'ALERT_CHANNEL', alertChannelId: ids.channel },
      { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: ids.schedule },
      { targetType: 'TEAM', targetTeamId: ids.team },
      { targetType: 'USER', targetUserId: ws.member.userId },
    ];
    const first = await policy('Night shift', 0, targets);
    const second = await policy('Day shift', 1, [targets[0] as Record<string, unknown>]);
    const deletes = [`/alert-channels/${ids.channel}`, `/on-call-schedules/${ids.schedule}`, `/teams/${ids.team}`, `/workspaces/${w}/members/${ws.member.userId}`];
    for (const path of deletes) {
      const err = expectError(await t.request('DELETE', path, { token: ws.owner.token }), 409);
      expect(err.message, path).toContain(`"Night shift" (id ${first})`);
    }
    const channelErr = expectError(await t.request('DELETE', deletes[0] as string, { token: ws.owner.token }), 409);
    expect(channelErr.message).toContain(`"Day shift" (id ${second})`);
    // A member leaving on their own is refused the same way.
    expectError(await t.request('DELETE', `/workspaces/${w}/members/${ws.member.userId}`, { token: ws.member.token }), 409);

    expect((await t.request('DELETE', `/escalation-policies/${second}`, { token: ws.admin.token })).status).toBe(204);
    const other = await channel(t, ws.admin, 'Other', w);
    const put = await t.request('PUT', `/escalation-policies/${first}`, {
      token: ws.admin.token,
      body: { steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: other }] }] },
    });
    expect(put.status, put.text).toBe(200);
    for (const path of deletes) expect((await t.request('DELETE', path, { token: ws.owner.token })).status, path).toBe(204);
  });

  it('refuses deleting a channel that a legacy rule uses, naming the rule', async () => {
    const id = await channel(t, ws.admin, 'Legacy', ws.workspaceId);
    const rule = await t.request<{ id: number }>('POST', '/escalation-rules', { token: ws.admin.token, body: { projectId: ws.projectId, alertChannelId: id, delayMinutes: 5 } });
    const err = expectError(await t.request('DELETE', `/alert-channels/${id}`, { token: ws.admin.token }), 409);
    expect(err.message).toContain(`escalation rules ${rule.body.id}`);
    expect((await t.request('DELETE', `/escalation-rules/${rule.body.id}`, { token: ws.admin.token })).status).toBe(204);
    expect((await t.request('DELETE', `/alert-channels/${id}`, { token: ws.admin.token })).status).toBe(204);
  });
});
