import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createJob } from '../../test/support/signals.js';
import { runSweep } from '../sweep/index.js';
import { handleAlertMessages } from '../escalation/dispatch.js';
import { alertsSent, declare, emailChannel, mailTo, openedMessage, timeline, type User } from '../../test/support/alerting.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

/** Each test gets its own workspace, so channels and mail never cross between tests. */
async function workspace(name: string): Promise<{ user: User; key: string }> {
  const user = await t.signup(name);
  return { user, key: await t.apiKey(user) };
}

describe('alert dispatch: ping -> status change -> incident -> alert', () => {
  it('mails once per event as a job goes LATE, DOWN and recovers through the sweep', async () => {
    const { user, key } = await workspace('sweep');
    const { email } = await emailChannel(t, user);
    const job = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 60 });
    await t.request('GET', `/signals/ping/${job.token}`);

    // Due at 60 s; the 60 s of grace are tolerated lateness: LATE after 120 s, DOWN after 180 s.
    t.clock.advanceSeconds(121);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    let mail = mailTo(t, email);
    expect(mail).toHaveLength(1);
    expect(mail[0]?.subject).toMatch(/^\[P3\] Incident opened: .+ is late$/);
    expect(mail[0]?.text).toContain('went LATE (sweep)');

    t.clock.advanceSeconds(60);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    mail = mailTo(t, email);
    expect(mail).toHaveLength(2);
    // A severity raise is its own event, and the incident a late job opened now says it is down.
    expect(mail[1]?.subject).toMatch(/^\[P1\] Incident severity raised to P1: .+ is down$/);
    expect(mail[1]?.text).toContain('Severity raised from P3 to P1');

    // Sweeps that change nothing send nothing.
    await runSweep(t.deps);
    await t.deps.queue.drain();
    expect(mailTo(t, email)).toHaveLength(2);

    await t.request('GET', `/signals/ping/${job.token}`);
    await t.deps.queue.drain();
    mail = mailTo(t, email);
    expect(mail.map((m) => m.subject.split(':')[0])).toEqual(['[P3] Incident opened', '[P1] Incident severity raised to P1', '[P1] Incident resolved']);
    expect(mail[2]?.text).toContain('Resolved: the check recovered');
    expect(t.deps.queue.deadLetters.alerts ?? []).toEqual([]);

    const incidents = await t.request<{ items: { id: number }[] }>('GET', `/incidents?workspaceId=${user.workspaceId}&checkId=${job.id}`, { token: user.token });
    const [incident] = incidents.body.items;
    const events = await timeline(t, user, incident!.id);
    expect(events.filter((e) => e.type !== 'ALERT_SENT').map((e) => e.type)).toEqual(['OPENED', 'SEVERITY_CHANGED', 'RESOLVED']);
    expect(events.filter((e) => e.type === 'ALERT_SENT').map((e) => e.message)).toEqual(
      ['incident.opened', 'incident.severity_changed', 'incident.resolved'].map((event) => `Alert sent to EMAIL channel "email channel" (${event})`),
    );
  });

  it('mails every enabled channel of the workspace, acknowledged and resolved too, but not monitoring', async () => {
    const { user, key } = await workspace('acks');
    const first = await emailChannel(t, user);
    const second = await emailChannel(t, user);
    const disabled = await emailChannel(t, user);
    expect((await t.request('PATCH', `/alert-channels/${disabled.id}`, { token: user.token, body: { enabled: false } })).status).toBe(200);
    const stranger = await workspace('stranger');
    const foreign = await emailChannel(t, stranger.user);

    const incident = await declare(t, key, { title: 'Checkout\r\nBcc: someone@evil.example' });
    for (const action of ['acknowledge', 'monitor', 'resolve']) {
      expect((await t.request('POST', `/incidents/${incident.id}/${action}`, { token: user.token })).status).toBe(200);
      await t.deps.queue.drain();
    }

    for (const channel of [first, second]) {
      expect(mailTo(t, channel.email).map((m) => m.subject)).toEqual([
        '[P2] Incident opened: Checkout Bcc: someone@evil.example',
        '[P2] Incident acknowledged: Checkout Bcc: someone@evil.example',
        '[P2] Incident resolved: Checkout Bcc: someone@evil.example',
      ]);
    }
    expect(mailTo(t, second.email)[1]?.text).toContain(`Acknowledged by ${user.email}`);
    expect(mailTo(t, disabled.email)).toEqual([]);
    expect(mailTo(t, foreign.email)).toEqual([]);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(6);
  });
});

describe('alert dispatch: at most once per channel', () => {
  it('sends nothing twice and writes one ALERT_SENT when the same message comes again', async () => {
    const { user, key } = await workspace('dupes');
    const { email } = await emailChannel(t, user);
    const incident = await declare(t, key);
    expect(mailTo(t, email)).toHaveLength(1);

    const copy = openedMessage(t, user, incident.id);
    await t.deps.queue.publish('alerts', [copy, copy]);
    await t.deps.queue.drain();
    expect(await handleAlertMessages(t.deps, [{ id: 'again', body: copy }])).toEqual({ failedIds: [], retryAfterSeconds: {} });
    expect(mailTo(t, email)).toHaveLength(1);
    const sent = await alertsSent(t, user, incident.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.message).toBe('Alert sent to EMAIL channel "email channel" (incident.opened)');

    // A channel added later still gets a redelivered message; the first one still does not.
    const late = await emailChannel(t, user);
    await handleAlertMessages(t.deps, [{ id: 'later', body: copy }]);
    expect(mailTo(t, late.email)).toHaveLength(1);
    expect(mailTo(t, email)).toHaveLength(1);
  });

  it('sends once when two workers handle copies at the same moment; the loser retries and finds it sent', async () => {
    const { user, key } = await workspace('race');
    const incident = await declare(t, key);
    const { email } = await emailChannel(t, user);
    const copy = openedMessage(t, user, incident.id);
    const results = await Promise.all([0, 1, 2].map((n) => handleAlertMessages(t.deps, [{ id: `copy-${n}`, body: copy }])));
    expect(mailTo(t, email)).toHaveLength(1);
    const retried = results.flatMap((r) => r.failedIds);
    for (const id of retried) expect(await handleAlertMessages(t.deps, [{ id, body: copy }])).toEqual({ failedIds: [], retryAfterSeconds: {} });
    expect(mailTo(t, email)).toHaveLength(1);
    expect(await alertsSent(t, user, incident.id)).toHaveLength(1);
  });

  it('drops malformed messages and messages about incidents that do not exist or live elsewhere', async () => {
    const { user, key } = await workspace('poison');
    const { email } = await emailChannel(t, user);
    const incident = await declare(t, key);
    const stranger = await workspace('other');
    const bodies = [
      'not an object',
      { ...openedMessage(t, user, incident.id), type: 'incident.exploded' },
      { ...openedMessage(t, user, incident.id), at: 'yesterday' },
      openedMessage(t, user, 987_654),
      openedMessage(t, stranger.user, incident.id),
    ];
    const result = await handleAlertMessages(
      t.deps,
      bodies.map((body, n) => ({ id: `bad-${n}`, body })),
    );
    expect(result).toEqual({ failedIds: [], retryAfterSeconds: {} });
    expect(mailTo(t, email)).toHaveLength(1);
  });
});

describe('alert dispatch: silence', () => {
  it('sends nothing for a muted check, declared or detected', async () => {
    const { user, key } = await workspace('muted');
    const { email } = await emailChannel(t, user);
    const check = await t.request<{ id: number; token: string }>('POST', '/v1/jobs', {
      token: key,
      body: { name: 'quiet job', projectId: user.projectId, intervalSeconds: 60, graceSeconds: 60, muteNotifications: true },
    });
    expect(check.status, check.text).toBe(201);
    const declared = await declare(t, key, { checkId: check.body.id });
    await t.request('GET', `/signals/ping/${check.body.token}`);
    t.clock.advanceSeconds(200);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    expect(mailTo(t, email)).toEqual([]);
    expect(await alertsSent(t, user, declared.id)).toEqual([]);
    expect(t.deps.queue.deadLetters.alerts ?? []).toEqual([]);

    // Unmuted, the next change is heard.
    expect((await t.request('PATCH', `/v1/jobs/${check.body.id}`, { token: key, body: { muteNotifications: false } })).status).toBe(200);
    expect((await t.request('POST', `/v1/incidents/${declared.id}/resolve`, { token: key })).status).toBe(200);
    await t.deps.queue.drain();
    expect(mailTo(t, email).map((m) => m.subject)).toEqual(['[P2] Incident resolved: Checkout is failing']);
  });

  it('sends nothing while a maintenance window suppresses alerts on the project, and again after it', async () => {
    const { user, key } = await workspace('maintenance');
    const { email } = await emailChannel(t, user);
    const job = await createJob(t, user, key, { intervalSeconds: 60, graceSeconds: 60 });
    const window = await t.request<{ id: number }>('POST', '/v1/maintenance-windows', {
      token: key,
      body: { name: 'db upgrade', endAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString(), projectIds: [user.projectId], suppressIncidents: false },
    });
    expect(window.status, window.text).toBe(201);

    // The incident opens (suppressIncidents is off) but nobody is told.
    const during = await declare(t, key, { jobId: job.id });
    expect(mailTo(t, email)).toEqual([]);
    expect(await alertsSent(t, user, during.id)).toEqual([]);

    // A redelivery after the window ended is judged at the time of the change: still silent.
    t.clock.advanceSeconds(3_601);
    await handleAlertMessages(t.deps, [{ id: 'late-copy', body: openedMessage(t, user, during.id, { at: new Date(t.clock.now().getTime() - 3_600_000).toISOString() }) }]);
    expect(mailTo(t, email)).toEqual([]);

    expect((await t.request('POST', `/v1/incidents/${during.id}/resolve`, { token: key })).status).toBe(200);
    await t.deps.queue.drain();
    expect(mailTo(t, email).map((m) => m.subject)).toEqual(['[P2] Incident resolved: Checkout is failing']);
  });
});
