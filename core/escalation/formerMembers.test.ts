import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { declare, mailTo, timeline, type User } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { schedule, team } from '../../test/support/escalation.js';
import { sweepOnCallNotices } from './notices.js';

/**
 * A member removed from a workspace stays in its teams and rotations (removal rewrites neither),
 * so every path that tells a person about the workspace must leave them out: an escalation step
 * reaching them through a team or as the one on call, the resolution sent to everyone already
 * told, a handoff notice, and the policy preview. Over HTTP into the embedded store; the clock
 * starts at 2026-03-01T12:00Z and the queue is drained by hand.
 */
type SimulatedTarget = { targetType: string; users: { id: number; email: string }[]; note: string | null };

let t: TestContext;
let owner: User;
let key: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  owner = await t.signup('owner');
  key = await t.apiKey(owner);
});

async function join(label: string): Promise<User> {
  const user = await t.signup(label);
  const added = await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: user.email, role: 'MEMBER' } });
  expect(added.status, added.text).toBe(201);
  return user;
}

async function remove(user: User): Promise<void> {
  const res = await t.request('DELETE', `/workspaces/${owner.workspaceId}/members/${user.userId}`, { token: owner.token });
  expect(res.status, res.text).toBe(204);
}

const incidentMails = (user: User) => mailTo(t, user.email).filter((mail) => mail.subject.startsWith('[P2]'));

describe('former members are told nothing more', () => {
  it('not through a team, not as the one on call, not the resolution of what they were told; the preview and the timeline say so', async () => {
    const bob = await join('bob');
    // Bob is the only participant of the schedule (on call from 1 March 09:00) and in the team with the owner.
    const teamId = await team(t, owner, [owner.userId, bob.userId]);
    const scheduleId = await schedule(t, owner, [bob.userId]);
    const policy = await t.request<{ id: number }>('POST', '/escalation-policies', {
      token: owner.token,
      body: {
        workspaceId: owner.workspaceId,
        name: 'Production',
        priority: 0,
        projectIds: null,
        repeatCount: 0,
        steps: [
          {
            position: 0,
            delayMinutes: 0,
            targets: [
              { targetType: 'TEAM', targetTeamId: teamId },
              { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: scheduleId },
            ],
          },
        ],
      },
    });
    expect(policy.status, policy.text).toBe(201);

    // While Bob is a member, the opening reaches him once (the team and the schedule both name him).
    const first = await declare(t, key, { title: 'Checkout down' });
    expect(incidentMails(bob)).toHaveLength(1);
    expect(incidentMails(owner)).toHaveLength(1);

    await remove(bob);
    expect((await t.request('POST', `/v1/incidents/${first.id}/resolve`, { token: key })).status).toBe(200);
    await t.deps.queue.drain();
    // The resolution goes to everyone told who is still a member: the owner, not Bob.
    expect(incidentMails(owner).map((mail) => mail.subject.split(':')[0])).toEqual(['[P2] Incident opened', '[P2] Incident resolved']);
    expect(incidentMails(bob)).toHaveLength(1);

    const second = await declare(t, key, { title: 'Search down' });
    expect(incidentMails(owner)).toHaveLength(3);
    expect(incidentMails(bob)).toHaveLength(1);
    const missed = (await timeline(t, owner, second.id)).filter((event) => event.type === 'ALERT_SENT' && event.message.includes('nobody told'));
    expect(missed.map((event) => event.message)).toEqual([
      `Step 0 (cycle 0), on-call schedule #${scheduleId}: nobody told (nobody to tell: former members of the workspace are not told)`,
    ]);

    const preview = await t.request<{ steps: { targets: SimulatedTarget[] }[] }>('GET', `/escalation-policies/${policy.body.id}/simulate`, { token: owner.token });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.steps[0]?.targets.map((target) => [target.targetType, target.users.map((user) => user.email), target.note])).toEqual([
      ['TEAM', [owner.email], null],
      ['ON_CALL_SCHEDULE', [], 'nobody to tell: former members of the workspace are not told'],
    ]);
  });

  it('no handoff notice for a shift a former member still holds; the next member’s shift is announced', async () => {
    const carol = await join('carol');
    // Daily 09:00 UTC handoffs from 1 March: the owner, then Carol on 2 March, then the owner on 3 March.
    await schedule(t, owner, [owner.userId, carol.userId], owner.workspaceId, { name: 'Secondary', handoffNotificationMinutes: 30 });
    await remove(carol);

    const handoffs = (user: User) => mailTo(t, user.email).filter((mail) => mail.subject.startsWith('[On call] Your shift on "Secondary"'));
    // Inside each shift's notice window (30 minutes before 09:00): 2 March is Carol's, 3 March the owner's.
    for (const at of ['2026-03-02T08:40:00Z', '2026-03-03T08:40:00Z']) {
      t.clock.advanceSeconds((Date.parse(at) - t.clock.now().getTime()) / 1000);
      await sweepOnCallNotices(t.deps, t.clock.now());
    }
    expect(handoffs(carol)).toEqual([]);
    expect(handoffs(owner).map((mail) => mail.subject)).toEqual(['[On call] Your shift on "Secondary" starts at 2026-03-03T09:00:00.000Z']);
  });
});
