import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createChannel, declare, mailTo, startReceiver, timeline, type Receiver, type User } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { createJob } from '../../test/support/signals.js';
import { atEveryCrashPoint } from '../../test/support/outbox.js';
import { handleAlertMessages } from './dispatch.js';
import { dueKey } from '../store/escalationDue.js';
import { sweepEscalations } from './sweep.js';

/**
 * The engine end to end: over HTTP into the embedded store, the alerts queue drained by hand, the
 * clock injected. Each test has its own workspace, policy and receiver paths.
 */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

type Setup = { user: User; key: string; prefix: string; policyId: number };

/** Steps at 0, 10 and 30 minutes (L = 50), each to its own webhook; step 2 also mails the owner. */
async function setup(options: { repeatCount?: number; ackTimeoutMinutes?: number | null } = {}): Promise<Setup> {
  const user = await t.signup('escalation');
  const key = await t.apiKey(user);
  const prefix = `/${Math.random().toString(36).slice(2)}`;
  const hooks = [];
  for (const step of [0, 1, 2]) hooks.push((await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url(`${prefix}/s${step}`) } })).id);
  const res = await t.request<{ id: number }>('POST', '/escalation-policies', {
    token: user.token,
    body: {
      workspaceId: user.workspaceId,
      name: 'Production',
      priority: 0,
      projectIds: null,
      repeatCount: options.repeatCount ?? 0,
      ackTimeoutMinutes: options.ackTimeoutMinutes ?? null,
      steps: [
        { position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: hooks[0] }] },
        { position: 1, delayMinutes: 10, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: hooks[1] }] },
        {
          position: 2,
          delayMinutes: 30,
          targets: [
            { targetType: 'ALERT_CHANNEL', alertChannelId: hooks[2] },
            { targetType: 'USER', targetUserId: user.userId },
          ],
        },
      ],
    },
  });
  expect(res.status, res.text).toBe(201);
  return { user, key, prefix, policyId: res.body.id };
}

/** What each step's webhook received, as `<minute after opening>: <event type>`. */
function received(s: Setup, openedAt: number) {
  return [0, 1, 2].map((step) =>
    receiver
      .at(`${s.prefix}/s${step}`)
      .map((r) => `${Math.round((Number(r.headers['webhook-timestamp']) * 1000 - openedAt) / 60_000)}: ${(JSON.parse(r.body) as { type: string }).type}`),
  );
}

const sweep = async () => {
  await sweepEscalations(t.deps, t.clock.now());
  await t.deps.queue.drain();
};
/** The sweep once a minute for `minutes` minutes. */
async function minutes(n: number) {
  for (let i = 0; i < n; i++) {
    t.clock.advanceSeconds(60);
    await sweep();
  }
}

describe('the escalation engine over HTTP', { timeout: 120_000 }, () => {
  it('a policy with a webhook target receives step 0 with the opening, before any sweep', async () => {
    const s = await setup();
    const openedAt = t.clock.now().getTime();
    const incident = await declare(t, s.key, { title: 'Checkout down' });
    expect(received(s, openedAt)).toEqual([['0: incident.opened'], [], []]);
    const sent = (await timeline(t, s.user, incident.id)).filter((e) => e.type === 'ALERT_SENT').map((e) => e.message);
    expect(sent).toEqual([expect.stringMatching(/^Step 0 \(cycle 0\), channel #\d+: alert sent, WEBHOOK channel "webhook channel" \(incident\.opened\)$/)]);
  });

  it('the opening plans the steps after step 0: a sweep at the opening instant reads no incident, and step 1 still fires at its minute', async () => {
    const s = await setup();
    const openedAt = t.clock.now().getTime();
    const incident = await declare(t, s.key, { title: 'Planned at the opening' });
    const stored = (await t.deps.store.entities.incident.get({ incidentId: incident.id }).go()).data;
    expect(stored?.dueAt).toBe(dueKey(new Date(openedAt + 10 * 60_000)));
    expect((await sweepEscalations(t.deps, t.clock.now())).read).toBe(0);
    await minutes(10);
    expect(received(s, openedAt)).toEqual([['0: incident.opened'], ['10: incident.escalated'], []]);
  });

  it('fires each step at its minute and repeats by the L formula; later steps are ESCALATED and incident.escalated', async () => {
    const s = await setup({ repeatCount: 1 });
    const openedAt = t.clock.now().getTime();
    const incident = await declare(t, s.key);
    await minutes(9);
    expect(received(s, openedAt)).toEqual([['0: incident.opened'], [], []]);
    await minutes(120);
    expect(received(s, openedAt)).toEqual([
      ['0: incident.opened', '50: incident.escalated'],
      ['10: incident.escalated', '60: incident.escalated'],
      ['30: incident.escalated', '80: incident.escalated'],
    ]);
    expect(mailTo(t, s.user.email).map((m) => m.subject.split(':')[0])).toEqual(['[P2] Incident escalated to P2', '[P2] Incident escalated to P2']);
    const events = await timeline(t, s.user, incident.id);
    expect(events.filter((e) => e.type === 'ESCALATED').map((e) => e.message.split(':')[0])).toEqual([
      'Escalated to step 1 (cycle 0)',
      'Escalated to step 2 (cycle 0)',
      'Escalated to step 0 (cycle 1)',
      'Escalated to step 1 (cycle 1)',
      'Escalated to step 2 (cycle 1)',
    ]);
    expect(events.filter((e) => e.type === 'ALERT_SENT').some((e) => /^Step 2 \(cycle 1\), user #\d+: alert sent, e-mail to /.test(e.message))).toBe(true);
    const stored = (await t.deps.store.entities.incident.get({ incidentId: incident.id }).go()).data;
    expect(stored?.dueShard).toBeUndefined();
  });

  it('an acknowledgement stops every pending step; with ackTimeoutMinutes it re-escalates from step 0', async () => {
    const s = await setup({ ackTimeoutMinutes: 30 });
    const openedAt = t.clock.now().getTime();
    const incident = await declare(t, s.key);
    await minutes(15);
    expect((await t.request('POST', `/v1/incidents/${incident.id}/acknowledge`, { token: s.key })).status).toBe(200);
    await t.deps.queue.drain();
    await minutes(29);
    expect(received(s, openedAt)).toEqual([['0: incident.opened', '15: incident.acknowledged'], ['10: incident.escalated', '15: incident.acknowledged'], []]);
    // Acknowledged at 15: at 45 the acknowledgement is cleared and the policy runs again from step 0.
    await minutes(1);
    const stored = (await t.deps.store.entities.incident.get({ incidentId: incident.id }).go()).data;
    expect(stored?.acknowledgedAt).toBeUndefined();
    await minutes(40);
    expect(received(s, openedAt).map((r) => r.filter((x) => !x.endsWith('acknowledged')))).toEqual([
      ['0: incident.opened', '45: incident.escalated'],
      ['10: incident.escalated', '55: incident.escalated'],
      ['75: incident.escalated'],
    ]);
    const escalated = (await timeline(t, s.user, incident.id)).filter((e) => e.type === 'ESCALATED').map((e) => e.message);
    expect(escalated[1]).toMatch(/^Still unresolved 30 minutes after the acknowledgement/);
    // A second acknowledgement is its own event and its own notice; then nothing more.
    expect((await t.request('POST', `/v1/incidents/${incident.id}/acknowledge`, { token: s.key })).status).toBe(200);
    await t.deps.queue.drain();
    const acks = (await timeline(t, s.user, incident.id)).filter((e) => e.type === 'ACKNOWLEDGED');
    expect(acks).toHaveLength(2);
    expect(receiver.at(`${s.prefix}/s2`).map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual(['incident.escalated', 'incident.acknowledged']);
  });

  it('resolution stops every pending step and leaves the index; the resolution goes to everyone told, once', async () => {
    const s = await setup({ repeatCount: 3 });
    const openedAt = t.clock.now().getTime();
    const incident = await declare(t, s.key);
    await minutes(12);
    expect((await t.request('POST', `/v1/incidents/${incident.id}/resolve`, { token: s.key })).status).toBe(200);
    await t.deps.queue.drain();
    const stored = (await t.deps.store.entities.incident.get({ incidentId: incident.id }).go()).data;
    expect(stored?.dueShard).toBeUndefined();
    await minutes(200);
    expect(received(s, openedAt)).toEqual([['0: incident.opened', '12: incident.resolved'], ['10: incident.escalated', '12: incident.resolved'], []]);
  });
  it('a maintenance window with suppressAlerts holds the steps; when it ends, escalation starts again from step 0', async () => {
    const s = await setup();
    const job = await createJob(t, s.user, s.key, { intervalSeconds: 3600, graceSeconds: 300 });
    const window = await t.request('POST', '/v1/maintenance-windows', {
      token: s.key,
      body: { name: 'db upgrade', endAt: new Date(t.clock.now().getTime() + 20 * 60_000).toISOString(), projectIds: [s.user.projectId], suppressIncidents: false },
    });
    expect(window.status, window.text).toBe(201);
    const openedAt = t.clock.now().getTime();
    await declare(t, s.key, { jobId: job.id });
    await minutes(19);
    expect(received(s, openedAt)).toEqual([[], [], []]);
    await minutes(15);
    expect(received(s, openedAt)).toEqual([['20: incident.opened'], ['30: incident.escalated'], []]);
  });
});

describe('every (incident, cycle, step, target) is sent exactly once', { timeout: 180_000 }, () => {
  const s1 = (s: Setup) => receiver.at(`${s.prefix}/s1`).length;

  it('two sweeps racing', async () => {
    const s = await setup();
    const incident = await declare(t, s.key);
    t.clock.advanceSeconds(600);
    await Promise.all([0, 1, 2].map(() => sweepEscalations(t.deps, t.clock.now())));
    // One cursor write won: one step message for this incident (others' incidents share the table).
    expect(t.deps.queue.peek('alerts').filter((m) => (m as { incidentId?: number }).incidentId === incident.id)).toHaveLength(1);
    await t.deps.queue.drain();
    expect(s1(s)).toBe(1);
  });

  it('duplicate queue deliveries, one after another and at once', async () => {
    const s = await setup();
    const incident = await declare(t, s.key);
    t.clock.advanceSeconds(600);
    await sweepEscalations(t.deps, t.clock.now());
    // Other tests' incidents share the table (and may fall due too): this incident's messages only.
    const fired = t.deps.queue.peek('alerts').filter((m) => (m as { incidentId?: number }).incidentId === incident.id);
    expect(fired.map((m) => (m as { type: string }).type)).toEqual(['incident.escalation_step']);
    const copies = fired.flatMap((body, i) => [0, 1, 2].map((n) => ({ id: `copy-${i}-${n}`, body })));
    await Promise.all(copies.map((copy) => handleAlertMessages(t.deps, [copy])));
    await handleAlertMessages(t.deps, copies);
    await t.deps.queue.drain();
    expect(s1(s)).toBe(1);
  });

  it('a crash after each write of the sweep, then the next sweep', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: async () => {
        const s = await setup();
        const incident = await declare(t, s.key);
        t.clock.advanceSeconds(600);
        return { s, incident };
      },
      act: () => sweep(),
      verify: async ({ s, incident }) => {
        // A queue message the crashed process held comes back after the visibility timeout (180 s).
        t.clock.advanceSeconds(181);
        await sweep();
        expect(s1(s)).toBe(1);
        const escalated = (await timeline(t, s.user, incident.id)).filter((e) => e.type === 'ESCALATED');
        expect(escalated).toHaveLength(1);
      },
    });
    expect(points).toBeGreaterThanOrEqual(2);
  });

  it('a restart between steps: the first sweep after it fires every step that fell due, each once', async () => {
    const s = await setup({ repeatCount: 1 });
    const openedAt = t.clock.now().getTime();
    await declare(t, s.key);
    t.clock.advanceSeconds(65 * 60);
    await sweep();
    await sweep();
    expect(received(s, openedAt).map((r) => r.length)).toEqual([2, 2, 1]);
  });
});
