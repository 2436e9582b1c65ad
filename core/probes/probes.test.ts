import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../../test/harness.js';
import type { DashboardCheck } from '../checks/schema.js';
import { expectStatus } from '../../test/support/checks.js';
import { spyConnect } from '../../test/support/outbound.js';
import { runProbeForRegion } from './runner.js';
import type { OutboundDetails, ProbeRun } from './schema.js';
import { ALL_REGIONS, createOutboundCheck, pendingMessages, probeContext, runRound, targetServer } from '../../test/support/probes.js';

type Page<T> = { items: T[]; total: number };
type Incident = { id: number; state: string; checkId: number };

describe('outbound probes end to end', () => {
  let t: TestContext;
  let server: Awaited<ReturnType<typeof targetServer>>;
  beforeAll(async () => {
    t = await probeContext();
    server = await targetServer();
  });
  afterAll(() => server.close());

  const incidentsOf = async (token: string, check: DashboardCheck) =>
    expectStatus(await t.request<Page<Incident>>('GET', `/incidents?checkId=${check.id}&workspaceId=${check.workspaceId}`, { token }), 200).items;

  it('records runs per region, goes DOWN when the server fails and OK when it recovers, with one incident opened and resolved', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/health`);
    const requestsBefore = server.requests.length;
    expect([...t.deps.scheduler.schedules.keys()].filter((name) => name.startsWith(`probe-${check.id}-`)).sort()).toEqual(
      ALL_REGIONS.map((region) => `probe-${check.id}-${region}`).sort(),
    );

    server.status = 200;
    await runRound(t, check.id);
    await runRound(t, check.id);
    expect(server.requests.length - requestsBefore).toBe(6);
    let details = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${check.id}/outbound`, { token: user.token }), 200);
    expect(details.state.status).toBe('OK');
    expect(details.state.regions.map((r) => [r.region, r.lastRun?.ok, r.lastRun?.statusCode])).toEqual(ALL_REGIONS.map((region) => [region, true, 200]));
    expect(pendingMessages(t, 'check.status_changed', check.id)).toMatchObject([{ from: 'NEW', to: 'OK', cause: 'PROBE' }]);
    await t.deps.queue.drain();

    server.status = 503;
    await runRound(t, check.id);
    details = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${check.id}/outbound`, { token: user.token }), 200);
    expect(details.state).toMatchObject({ status: 'OK', consecutiveFailures: 1 });
    await runRound(t, check.id);
    expect(pendingMessages(t, 'check.status_changed', check.id)).toMatchObject([{ from: 'OK', to: 'DOWN', cause: 'PROBE' }]);
    await t.deps.queue.drain();
    const open = await incidentsOf(user.token, check);
    expect(open).toMatchObject([{ state: 'ACTIVE', checkId: check.id }]);
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: user.token }), 200).status).toBe('DOWN');

    // Staying down publishes nothing more.
    await runRound(t, check.id);
    expect(pendingMessages(t, 'check.status_changed', check.id)).toEqual([]);

    server.status = 200;
    await runRound(t, check.id);
    await runRound(t, check.id);
    expect(pendingMessages(t, 'check.status_changed', check.id)).toMatchObject([{ from: 'DOWN', to: 'OK', cause: 'PROBE' }]);
    await t.deps.queue.drain();
    const after = await incidentsOf(user.token, check);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: open[0]!.id, state: 'RESOLVED' });

    const runs = expectStatus(await t.request<Page<ProbeRun>>('GET', `/checks/${check.id}/runs?limit=100`, { token: user.token }), 200);
    expect(runs.total).toBe(21);
    const failed = runs.items.filter((run) => !run.ok);
    expect(failed).toHaveLength(9);
    expect(new Set(failed.map((run) => run.failureReason))).toEqual(new Set(['UNEXPECTED_STATUS']));
    for (const region of ALL_REGIONS) expect(runs.items.filter((run) => run.region === region)).toHaveLength(7);
  });

  it('makes one flip and one queue message when every region reports at the same moment', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/race`, { failAfterConsecutive: 1, resolveAfterConsecutiveSuccess: 1 });
    for (let round = 0; round < 6; round++) {
      server.status = round % 2 === 0 ? 500 : 200;
      const reports = await Promise.all(ALL_REGIONS.map((region) => runProbeForRegion(t.deps, { checkId: check.id, region })));
      const flips = reports.flatMap((report) => (report.ran ? report.flips : []));
      expect(flips).toEqual([{ from: round === 0 ? 'NEW' : round % 2 === 0 ? 'OK' : 'DOWN', to: round % 2 === 0 ? 'DOWN' : 'OK' }]);
      expect(pendingMessages(t, 'check.status_changed', check.id)).toHaveLength(1);
      await t.deps.queue.drain();
      t.clock.advanceSeconds(60);
    }
    expect(await incidentsOf(user.token, check)).toHaveLength(3);
  });

  it('folds a round a region never reported to when the next round starts, without counting the silent region as failed', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/partial`);
    server.status = 500;
    // Round 1: two regions fail, the third never reports: still a majority of the three failing.
    for (const region of ['us-east-1', 'eu-west-1']) await runProbeForRegion(t.deps, { checkId: check.id, region });
    let state = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${check.id}/outbound`, { token: user.token }), 200).state;
    expect(state).toMatchObject({ status: 'NEW', consecutiveFailures: 0, lastRoundAt: null });
    t.clock.advanceSeconds(60);
    // Round 2: its first report folds round 1; its last completes it: DOWN after two failing rounds.
    const first = await runProbeForRegion(t.deps, { checkId: check.id, region: 'ap-southeast-1' });
    expect(first.ran && first.flips).toEqual([]);
    state = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${check.id}/outbound`, { token: user.token }), 200).state;
    expect(state).toMatchObject({ status: 'NEW', consecutiveFailures: 1 });
    await runProbeForRegion(t.deps, { checkId: check.id, region: 'us-east-1' });
    const last = await runProbeForRegion(t.deps, { checkId: check.id, region: 'eu-west-1' });
    expect(last.ran && last.flips).toEqual([{ from: 'NEW', to: 'DOWN' }]);

    // One failing region of three, the others silent: no verdict, the streak breaks.
    server.status = 200;
    t.clock.advanceSeconds(60);
    const other = await createOutboundCheck(t, user, `${server.origin}/minority`, { failAfterConsecutive: 1 });
    await runProbeForRegion(t.deps, { checkId: other.id, region: 'us-east-1' }, { connect: spyConnect().connect });
    t.clock.advanceSeconds(60);
    await runProbeForRegion(t.deps, { checkId: other.id, region: 'us-east-1' });
    state = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${other.id}/outbound`, { token: user.token }), 200).state;
    expect(state).toMatchObject({ status: 'NEW', consecutiveFailures: 0, consecutiveSuccesses: 0 });
  });

  it('holds the check while a deployment window is active, then goes DOWN on the next failing round', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/held`, { regions: ['us-east-1'] });
    const iso = t.clock.now().toISOString();
    const hold = {
      projectId: user.projectId,
      kind: 'DEPLOYMENT' as const,
      windowId: 9_000 + check.id,
      workspaceId: user.workspaceId,
      startsAt: iso,
      suppressIncidents: false,
      suppressAlerts: false,
    };
    await t.deps.store.entities.windowHold.create(hold).go();
    server.status = 500;
    for (let i = 0; i < 3; i++) await runRound(t, check.id);
    let state = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${check.id}/outbound`, { token: user.token }), 200).state;
    expect(state).toMatchObject({ status: 'NEW', consecutiveFailures: 3 });
    await t.deps.store.entities.windowHold.delete({ projectId: hold.projectId, kind: hold.kind, windowId: hold.windowId }).go();
    await runRound(t, check.id);
    state = expectStatus(await t.request<OutboundDetails>('GET', `/checks/${check.id}/outbound`, { token: user.token }), 200).state;
    expect(state.status).toBe('DOWN');
  });

  it('does nothing for paused, deleted or inbound checks, or a region the check is not probed from', async () => {
    const user = await t.signup();
    const check = await createOutboundCheck(t, user, `${server.origin}/stale`, { regions: ['eu-west-1'] });
    expect(await runProbeForRegion(t.deps, { checkId: check.id, region: 'us-east-1' })).toEqual({ ran: false, reason: 'REGION_NOT_CONFIGURED' });
    expectStatus(await t.request('PUT', `/checks/${check.id}/pause`, { token: user.token }), 200);
    expect(await runProbeForRegion(t.deps, { checkId: check.id, region: 'eu-west-1' })).toEqual({ ran: false, reason: 'PAUSED' });
    expectStatus(await t.request('DELETE', `/checks/${check.id}`, { token: user.token }), 204);
    expect(await runProbeForRegion(t.deps, { checkId: check.id, region: 'eu-west-1' })).toEqual({ ran: false, reason: 'CHECK_NOT_FOUND' });
    const inbound = expectStatus(
      await t.request<DashboardCheck>('POST', '/checks', { token: user.token, body: { name: 'job', projectId: user.projectId, intervalSeconds: 300, graceSeconds: 30 } }),
      201,
    );
    expect(await runProbeForRegion(t.deps, { checkId: inbound.id, region: 'us-east-1' })).toEqual({ ran: false, reason: 'NOT_OUTBOUND' });
  });
});

describe('a check at the cloud metadata address', () => {
  for (const allowPrivate of ['1', '0']) {
    it(`records SSRF_BLOCKED runs and never opens a socket (VIGIL_PROBE_ALLOW_PRIVATE=${allowPrivate})`, async () => {
      const t = await probeContext({ VIGIL_PROBE_ALLOW_PRIVATE: allowPrivate });
      const user = await t.signup();
      const check = await createOutboundCheck(t, user, 'http://169.254.169.254/latest/meta-data/');
      const spy = spyConnect();
      for (let round = 0; round < 2; round++) {
        for (const region of ALL_REGIONS) {
          const report = await runProbeForRegion(t.deps, { checkId: check.id, region }, { connect: spy.connect });
          expect(report.ran && report.run).toMatchObject({ ok: false, statusCode: null, failureReason: 'SSRF_BLOCKED', region });
        }
        t.clock.advanceSeconds(60);
      }
      expect(spy.calls).toEqual([]);
      const runs = expectStatus(await t.request<Page<ProbeRun>>('GET', `/checks/${check.id}/runs`, { token: user.token }), 200);
      expect(runs.total).toBe(6);
      expect(runs.items.every((run) => run.failureReason === 'SSRF_BLOCKED')).toBe(true);
      expect(pendingMessages(t, 'check.status_changed', check.id)).toMatchObject([{ from: 'NEW', to: 'DOWN', cause: 'PROBE' }]);
    });
  }

  it('blocks a loopback target unless the local testing switch is on', async () => {
    const t = await probeContext({ VIGIL_PROBE_ALLOW_PRIVATE: '0' });
    const server = await targetServer();
    try {
      const user = await t.signup();
      const check = await createOutboundCheck(t, user, `${server.origin}/`, { regions: ['us-east-1'] });
      const report = await runProbeForRegion(t.deps, { checkId: check.id, region: 'us-east-1' });
      expect(report.ran && report.run.failureReason).toBe('SSRF_BLOCKED');
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
