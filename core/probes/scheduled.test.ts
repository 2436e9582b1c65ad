import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../../test/harness.js';
import { createCheck, expectStatus, inboundBody } from '../../test/support/checks.js';
import { foldRound, reportToRound } from './rounds.js';
import { handleProbeEvent, rearmProbeSchedules } from './scheduled.js';
import { startLocalProbes } from '../workers/localProbes.js';
import { ALL_REGIONS, createOutboundCheck, pendingMessages, probeContext, targetServer } from '../../test/support/probes.js';

describe('probe schedules and rounds', () => {
  let t: TestContext;
  let server: Awaited<ReturnType<typeof targetServer>>;
  beforeAll(async () => {
    t = await probeContext();
    server = await targetServer();
  });
  afterAll(() => server.close());

  it('re-arms the schedules of stored outbound checks at boot, across workspaces, paused ones disabled', async () => {
    const alice = await t.signup();
    const bob = await t.signup();
    const a = await createOutboundCheck(t, alice, `${server.origin}/a`);
    const b = await createOutboundCheck(t, bob, `${server.origin}/b`, { regions: ['ap-southeast-1'] });
    const paused = await createOutboundCheck(t, bob, `${server.origin}/p`, { regions: ['eu-west-1'] });
    expectStatus(await t.request('PUT', `/checks/${paused.id}/pause`, { token: bob.token }), 200);
    const gone = await createOutboundCheck(t, alice, `${server.origin}/gone`);
    expectStatus(await t.request('DELETE', `/checks/${gone.id}`, { token: alice.token }), 204);
    await createCheck(t, alice, inboundBody(alice));
    const before = new Map([...t.deps.scheduler.schedules].map(([name, spec]) => [name, spec.enabled]));

    // A restarted local server starts with an empty scheduler.
    t.deps.scheduler.schedules.clear();
    expect(await rearmProbeSchedules(t.deps)).toBe(3);
    const after = new Map([...t.deps.scheduler.schedules].map(([name, spec]) => [name, spec.enabled]));
    expect(after).toEqual(before);
    expect([...after.keys()].sort()).toEqual([...ALL_REGIONS.map((region) => `probe-${a.id}-${region}`), `probe-${b.id}-ap-southeast-1`, `probe-${paused.id}-eu-west-1`].sort());
    expect(after.get(`probe-${paused.id}-eu-west-1`)).toBe(false);

    // The local workers start the scheduler with the probe runner and re-arm the same way.
    t.deps.scheduler.schedules.clear();
    try {
      expect(await startLocalProbes(t.deps)).toBe(3);
      expect(t.deps.scheduler.schedules.size).toBe(5);
    } finally {
      t.deps.scheduler.stop();
    }
  });

  it('runs a schedule payload and drops a malformed one', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/event`, { regions: ['us-east-1'] });
    const report = await handleProbeEvent(t.deps, { checkId: check.id, region: 'us-east-1' });
    expect(report).toMatchObject({ ran: true, run: { checkId: check.id, region: 'us-east-1', ok: true } });
    for (const bad of [null, {}, { checkId: check.id }, { checkId: 'x', region: 'us-east-1' }, { checkId: check.id, region: 'moon-1' }]) {
      expect(await handleProbeEvent(t.deps, bad)).toBeNull();
    }
  });

  it('folds a round once when every region tries to fold it at the same moment', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/fold`, { failAfterConsecutive: 1, resolveAfterConsecutiveSuccess: 1 });
    const token = check.token;
    const rounds = [
      { roundAt: '2026-03-01T13:00:00.000Z', ok: false, flip: { from: 'NEW', to: 'DOWN' } },
      { roundAt: '2026-03-01T13:01:00.000Z', ok: true, flip: { from: 'DOWN', to: 'OK' } },
    ];
    for (const { roundAt, ok, flip } of rounds) {
      for (const region of ALL_REGIONS) await reportToRound(t.deps, { checkId: check.id, workspaceId: user.workspaceId }, roundAt, region, ok);
      const round = (await t.deps.store.entities.probeRound.get({ checkId: check.id, roundAt }).go()).data!;
      const flips = await Promise.all(ALL_REGIONS.map(() => foldRound(t.deps, token, round, t.clock.now())));
      expect(flips.filter((made) => made !== null)).toEqual([flip]);
    }
    expect(pendingMessages(t, 'check.status_changed', check.id)).toMatchObject(rounds.map((r) => r.flip));
    // A round older than the last one folded changes nothing.
    const late = await reportToRound(t.deps, { checkId: check.id, workspaceId: user.workspaceId }, '2026-03-01T12:59:00.000Z', 'us-east-1', true);
    expect(await foldRound(t.deps, token, late, t.clock.now())).toBeNull();
    const stored = (await t.deps.store.entities.probeRound.get({ checkId: check.id, roundAt: late.roundAt }).go()).data;
    expect(stored?.evaluatedAt).toBeDefined();
  });

  it('counts a region reporting twice in a round once', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/twice`);
    const roundAt = '2026-03-01T14:00:00.000Z';
    await reportToRound(t.deps, { checkId: check.id, workspaceId: user.workspaceId }, roundAt, 'us-east-1', false);
    const round = await reportToRound(t.deps, { checkId: check.id, workspaceId: user.workspaceId }, roundAt, 'us-east-1', false);
    expect(round.failedRegions).toEqual(['us-east-1']);
    expect(round.okRegions).toBeUndefined();
  });
});
