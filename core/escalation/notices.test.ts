import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { failNextMail, mailTo, type User } from '../../test/support/alerting.js';
import { schedule } from '../../test/support/escalation.js';
import { claimDelivery } from '../alerting/deliveryClaim.js';
import { sweepOnCallNotices } from './notices.js';

/** Handoff and coverage-gap notices, by the sweep, once each; the clock starts at 2026-03-01T12:00Z. */
let t: TestContext;
let owner: User;
let bob: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  owner = await t.signup('owner');
  bob = await t.signup('bob');
  const added = await t.request('POST', `/workspaces/${owner.workspaceId}/members`, { token: owner.token, body: { email: bob.email, role: 'MEMBER' } });
  expect(added.status, added.text).toBe(201);
});

const sweepEvery = async (minutes: number, times: number) => {
  for (let i = 0; i < times; i++) {
    t.clock.advanceSeconds(minutes * 60);
    await sweepOnCallNotices(t.deps, t.clock.now());
  }
};

describe('on-call notices', () => {
  it('mails the incoming user handoffNotificationMinutes before their shift, once; admins once per coverage gap', async () => {
    // Nobody after 4 March 09:00: a coverage gap within the week.
    await schedule(t, owner, [owner.userId, bob.userId], owner.workspaceId, { handoffNotificationMinutes: 30, effectiveUntil: '2026-03-04T09:00:00Z' });
    const first = await sweepOnCallNotices(t.deps, t.clock.now());
    expect(first).toMatchObject({ read: 1, handoffs: 0, gaps: 1 });
    const gapMails = mailTo(t, owner.email).filter((m) => m.subject.startsWith('[On call] Nobody is on call'));
    expect(gapMails.map((m) => m.subject)).toEqual(['[On call] Nobody is on call for "Primary" from 2026-03-04T09:00:00.000Z']);
    expect(mailTo(t, bob.email).filter((m) => m.subject.includes('Nobody'))).toEqual([]);

    // Every 10 minutes until 10:00 the next day: Bob's shift at 09:00 on 2 March is announced once, at 08:30.
    await sweepEvery(10, 22 * 6);
    const handoffs = mailTo(t, bob.email).filter((m) => m.subject.startsWith('[On call] Your shift'));
    expect(handoffs.map((m) => m.subject)).toEqual(['[On call] Your shift on "Primary" starts at 2026-03-02T09:00:00.000Z']);
    expect(mailTo(t, owner.email).filter((m) => m.subject.startsWith('[On call] Nobody is on call'))).toHaveLength(1);
  });

  it('reads only the schedules due for a look', async () => {
    const report = await sweepOnCallNotices(t.deps, t.clock.now());
    expect(report.read).toBe(0);
  });
});

describe('a notice whose mail fails', () => {
  it('is sent by the next sweep, still once', async () => {
    const carol = await t.signup('carol');
    // Nobody after 3 March 09:00: a coverage gap, mailed to Carol (the workspace's owner).
    await schedule(t, carol, [carol.userId], carol.workspaceId, { effectiveUntil: '2026-03-03T09:00:00Z' });
    const gapMails = () => mailTo(t, carol.email).filter((m) => m.subject.startsWith('[On call] Nobody is on call'));
    failNextMail(t);
    expect(await sweepOnCallNotices(t.deps, t.clock.now())).toMatchObject({ read: 1, gaps: 0 });
    expect(gapMails()).toEqual([]);

    await sweepEvery(1, 1);
    expect(gapMails()).toHaveLength(1);
    await sweepEvery(1, 3);
    expect(gapMails()).toHaveLength(1);
  });
});

describe('a sweep that died while sending a notice', () => {
  // Its claim is left behind with no marker: the notice is owed, not sent.
  const diedSending = async (name: string) => {
    const dave = await t.signup(name);
    // Nobody from three days on: a coverage gap within the week.
    const gapAt = new Date(t.clock.now().getTime() + 3 * 24 * 3_600_000).toISOString();
    const scheduleId = await schedule(t, dave, [dave.userId], dave.workspaceId, { effectiveUntil: gapAt });
    const gapMails = () => mailTo(t, dave.email).filter((m) => m.subject.startsWith('[On call] Nobody is on call'));
    expect(await claimDelivery(t.deps, `gap#${scheduleId}#${gapAt}`, t.clock.now())).toBeDefined();
    return gapMails;
  };

  it('leaves it to a later sweep, which mails it once the claim lapses, and once', async () => {
    const gapMails = await diedSending('dave');
    expect(await sweepOnCallNotices(t.deps, t.clock.now())).toMatchObject({ read: 1, gaps: 0 });
    expect(gapMails()).toEqual([]);
    // The schedule is looked at again when the claim lapses (60 s), not an hour later.
    await sweepEvery(1, 1);
    expect(gapMails()).toHaveLength(1);
    await sweepEvery(1, 3);
    await sweepEvery(60, 2);
    expect(gapMails()).toHaveLength(1);
  });

  it('under a runtime that owns its store, is mailed by the first sweep after the restart', async () => {
    const gapMails = await diedSending('erin');
    t.clock.advanceSeconds(5);
    const restarted = { ...t.deps, storeOwnedSince: t.clock.now() };
    expect(await sweepOnCallNotices(restarted, t.clock.now())).toMatchObject({ gaps: 1 });
    expect(gapMails()).toHaveLength(1);
    await sweepEvery(60, 2);
    expect(gapMails()).toHaveLength(1);
  });
});
