import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../../test/harness.js';
import { emailChannel, mailTo } from '../../test/support/alerting.js';
import type { User } from '../../test/support/checks.js';
import { fakeResolver, fakeResponse, spyConnect } from '../../test/support/outbound.js';
import { atEveryCrashPoint } from '../../test/support/outbox.js';
import { runProbeForRegion } from './runner.js';
import { ALL_REGIONS, createOutboundCheck, fixedLatency, pendingMessages, probeContext, targetServer } from '../../test/support/probes.js';
import { warningsFor } from './warnings.js';

const DAY_MS = 86_400_000;

/** Warnings are alerts: they wait on the `alerts` queue, never on `incidents`. */
const pendingWarnings = (t: TestContext, type: string, checkId: number): Record<string, unknown>[] => {
  expect(pendingMessages(t, type, checkId)).toEqual([]);
  return t.deps.queue.peek('alerts').filter((body): body is Record<string, unknown> => {
    const message = body as Record<string, unknown>;
    return message.type === type && message.checkId === checkId;
  });
};

describe('latency and SSL-expiry warnings', () => {
  let t: TestContext;
  let server: Awaited<ReturnType<typeof targetServer>>;
  let user: User;
  beforeAll(async () => {
    t = await probeContext();
    server = await targetServer();
    user = await t.signup();
  });
  afterAll(() => server.close());

  it('warns about slow answers at most once per check per hour, even when every region is slow at once', async () => {
    const check = await createOutboundCheck(t, user, `${server.origin}/slow`, { latencyWarnMs: 300 });
    const slowRound = () => Promise.all(ALL_REGIONS.map((region) => runProbeForRegion(t.deps, { checkId: check.id, region }, { now: fixedLatency(450) })));
    await slowRound();
    expect(pendingWarnings(t, 'check.latency_warning', check.id)).toMatchObject([{ latencyMs: 450, thresholdMs: 300, workspaceId: user.workspaceId, projectId: user.projectId }]);
    for (let minutes = 10; minutes <= 50; minutes += 10) {
      t.clock.advanceSeconds(600);
      await slowRound();
    }
    expect(pendingWarnings(t, 'check.latency_warning', check.id)).toHaveLength(1);
    t.clock.advanceSeconds(61 * 60);
    await slowRound();
    expect(pendingWarnings(t, 'check.latency_warning', check.id)).toHaveLength(2);
    // Fast answers and failures do not warn.
    t.clock.advanceSeconds(61 * 60);
    await runProbeForRegion(t.deps, { checkId: check.id, region: 'us-east-1' }, { now: fixedLatency(100) });
    server.status = 500;
    await runProbeForRegion(t.deps, { checkId: check.id, region: 'us-east-1' }, { now: fixedLatency(900) });
    server.status = 200;
    expect(pendingWarnings(t, 'check.latency_warning', check.id)).toHaveLength(2);
  });

  it('warns when an https certificate expires within sslExpiryWarnDays, without any traffic leaving loopback', async () => {
    const check = await createOutboundCheck(t, user, 'https://shop.example.test/', { regions: ['eu-west-1'], sslExpiryWarnDays: 14 });
    const now = t.clock.now().getTime();
    const { resolve } = fakeResolver({ 'shop.example.test': ['93.184.216.34'] });
    const answering = (validTo: Date) => spyConnect(async () => fakeResponse(200, { tlsCertValidTo: validTo })).connect;
    await runProbeForRegion(t.deps, { checkId: check.id, region: 'eu-west-1' }, { resolve, connect: answering(new Date(now + 30 * DAY_MS)) });
    expect(pendingWarnings(t, 'check.ssl_expiry_warning', check.id)).toEqual([]);
    const expiresAt = new Date(now + 3.5 * DAY_MS);
    const report = await runProbeForRegion(t.deps, { checkId: check.id, region: 'eu-west-1' }, { resolve, connect: answering(expiresAt) });
    expect(report.ran && report.run.sslExpiresAt).toBe(expiresAt.toISOString());
    expect(pendingWarnings(t, 'check.ssl_expiry_warning', check.id)).toMatchObject([
      { region: 'eu-west-1', sslExpiresAt: expiresAt.toISOString(), daysLeft: 3, thresholdDays: 14 },
    ]);
    await runProbeForRegion(t.deps, { checkId: check.id, region: 'eu-west-1' }, { resolve, connect: answering(expiresAt) });
    expect(pendingWarnings(t, 'check.ssl_expiry_warning', check.id)).toHaveLength(1);
  });

  it('mails a slow run to every enabled channel of the workspace once, and opens no incident', async () => {
    const owner = await t.signup();
    const channels = [await emailChannel(t, owner), await emailChannel(t, owner)];
    const check = await createOutboundCheck(t, owner, `${server.origin}/slow`, { regions: ['us-east-1'], latencyWarnMs: 200 });
    await runProbeForRegion(t.deps, { checkId: check.id, region: 'us-east-1' }, { now: fixedLatency(750) });
    const [warning] = pendingWarnings(t, 'check.latency_warning', check.id);
    await t.deps.queue.drain();
    // Redelivered after the cooldown's hour has long begun: still one mail per channel.
    await t.deps.queue.publish('alerts', [warning]);
    await t.deps.queue.drain();
    for (const channel of channels) {
      const mail = mailTo(t, channel.email);
      expect(mail.map((m) => m.subject)).toEqual([`[Warning] Slow response: ${check.name} took 750 ms`]);
      expect(mail[0]?.text).toContain('above its latency warning threshold of 200 ms');
    }
    expect(t.deps.queue.peek('alerts')).toEqual([]);
    expect(t.deps.queue.deadLetters.alerts ?? []).toEqual([]);
    const incidents = await t.request<{ total: number }>('GET', `/incidents?workspaceId=${owner.workspaceId}&checkId=${check.id}`, { token: owner.token });
    expect(incidents.body.total).toBe(0);
  });

  it('a crash after any write from the cooldown on, then a sweep: the warning is mailed once per channel, and not again within the hour', async () => {
    const owner = await t.signup();
    const channels = [await emailChannel(t, owner), await emailChannel(t, owner)];
    const slowRun = (checkId: number) => runProbeForRegion(t.deps, { checkId, region: 'us-east-1' }, { now: fixedLatency(750) });
    const mails = () => channels.map((channel) => mailTo(t, channel.email).map((m) => m.subject));
    const crashPoints = await atEveryCrashPoint(t, {
      setup: async () => ({ check: await createOutboundCheck(t, owner, `${server.origin}/slow`, { regions: ['us-east-1'], latencyWarnMs: 200 }), before: mails() }),
      act: ({ check }) => slowRun(check.id),
      verify: async ({ check, before }, crashAfter) => {
        // The region reports again within the hour: the cooldown holds, nothing more is owed.
        t.clock.advanceSeconds(60);
        await slowRun(check.id);
        await t.deps.queue.drain();
        const sent = mails().map((subjects, i) => subjects.slice(before[i]?.length).map((subject) => `${crashAfter}: ${subject}`));
        expect(sent).toEqual(channels.map(() => [`${crashAfter}: [Warning] Slow response: ${check.name} took 750 ms`]));
        expect(t.deps.queue.deadLetters.alerts ?? []).toEqual([]);
      },
    });
    expect(crashPoints).toBeGreaterThanOrEqual(2);
  });

  it('judges only successful runs, and the latency threshold only when one is set', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    const soon = new Date(now.getTime() + DAY_MS).toISOString();
    const run = { ok: true, statusCode: 200, latencyMs: 900, failureReason: null, sslExpiresAt: soon };
    expect(warningsFor(run, { latencyWarnMs: 500, sslExpiryWarnDays: 2 }, now).map((w) => w.kind)).toEqual(['latency', 'ssl']);
    expect(warningsFor(run, { sslExpiryWarnDays: 1 }, now)).toEqual([]);
    expect(warningsFor({ ...run, ok: false, failureReason: 'UNEXPECTED_STATUS' }, { latencyWarnMs: 500, sslExpiryWarnDays: 30 }, now)).toEqual([]);
  });
});
