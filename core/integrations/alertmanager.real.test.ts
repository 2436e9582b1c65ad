import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createChannel, startReceiver, timeline, type Receiver } from '../../test/support/alerting.js';
import { hasAlertmanager, ALERTMANAGER, pollUntil, postAlerts, startAlertmanager, type RunningAlertmanager } from '../../test/support/alertmanager.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import type { IncidentBody } from '../../test/support/incidents.js';
import { createIntegration, intakePath, type CreatedIntegration } from '../../test/support/integrations.js';
import type { User } from '../../test/support/users.js';

/**
 * The real Prometheus Alertmanager (Debian's package) sends its webhook to the intake URL of an
 * integration served over real HTTP: one incident opens, the policy's step 0 pages a local
 * webhook, the group Alertmanager sends again changes nothing, and its resolve closes the incident.
 */
if (!hasAlertmanager) console.warn(`Alertmanager tests skipped: no ${ALERTMANAGER} (apt-get install prometheus-alertmanager, or set VIGIL_ALERTMANAGER)`);

type Notification = { status: string; groupKey: string; alerts: unknown[] };

describe.skipIf(!hasAlertmanager)('the real Alertmanager', { timeout: 60_000 }, () => {
  let t: TestContext;
  let user: User;
  let receiver: Receiver;
  let server: ServerType;
  let am: RunningAlertmanager;
  let integration: CreatedIntegration;
  /** Every body Alertmanager posted to the intake URL, with the status the app answered. */
  const deliveries: { body: string; status: number }[] = [];

  beforeAll(async () => {
    t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
    // Alertmanager stamps its alerts with the real time: the app's clock starts there (and follows it below).
    t.clock.set(new Date());
    user = await t.signup('alertmanager');
    receiver = await startReceiver();
    const hook = await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url('/step0') } });
    const policy = await t.request('POST', '/escalation-policies', {
      token: user.token,
      body: {
        workspaceId: user.workspaceId,
        name: 'Alerts from Prometheus',
        priority: 0,
        projectIds: null,
        repeatCount: 0,
        ackTimeoutMinutes: null,
        steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: hook.id }] }],
      },
    });
    expect(policy.status, policy.text).toBe(201);
    integration = await createIntegration(t, user, { name: 'Prometheus', projectId: user.projectId });
    const intake = intakePath(integration);
    server = await new Promise<ServerType>((resolve) => {
      const started: ServerType = serve(
        {
          // The app itself, with a note of what Alertmanager sent to the intake URL and the answer it got.
          fetch: async (request: Request) => {
            const body = new URL(request.url).pathname === intake ? await request.clone().text() : undefined;
            const response = await t.app.fetch(request);
            if (body !== undefined) deliveries.push({ body, status: response.status });
            return response;
          },
          port: 0,
          hostname: '127.0.0.1',
        },
        () => resolve(started),
      );
    });
    am = await startAlertmanager(`http://127.0.0.1:${(server.address() as AddressInfo).port}${intake}`);
  });

  afterAll(async () => {
    await am?.stop();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await receiver?.close();
  });

  const notifications = (status: string): Notification[] => deliveries.map((d) => JSON.parse(d.body) as Notification).filter((n) => n.status === status);
  const incidents = async () =>
    (await t.request<{ items: IncidentBody[] }>('GET', `/incidents?workspaceId=${user.workspaceId}&limit=100`, { token: user.token })).body.items.filter(
      (i) => i.integrationId === integration.id,
    );
  /** The app's clock follows the real one (Alertmanager's), and what the deliveries owe is sent. */
  const settle = async () => {
    t.clock.set(new Date(Math.max(Date.now(), t.clock.now().getTime())));
    await t.deps.queue.drain();
  };

  it('fires: one incident opens, escalates to step 0 once, and the group sent again changes nothing; resolves: the incident closes', async () => {
    const labels = { alertname: 'CheckoutLatency', severity: 'critical', service: 'checkout' };
    await postAlerts(am, [{ labels, annotations: { summary: 'Checkout latency is high' } }]);

    // Alertmanager sends the group, then sends it again (repeat_interval): two firing deliveries.
    await pollUntil('two firing notifications', async () => {
      await settle();
      return notifications('firing').length >= 2 ? true : undefined;
    });
    expect(
      deliveries.every((d) => d.status === 200),
      JSON.stringify(deliveries),
    ).toBe(true);
    const [notification] = notifications('firing');
    expect(notification?.alerts).toHaveLength(1);
    await settle();
    const opened = await incidents();
    expect(opened).toHaveLength(1);
    const incident = opened[0] as IncidentBody;
    expect(incident).toMatchObject({ state: 'ACTIVE', severity: 'P1', title: 'Checkout latency is high', projectId: user.projectId });
    const step0 = await pollUntil('the step-0 webhook', async () => {
      await settle();
      const got = receiver.at('/step0');
      return got.length > 0 ? got : undefined;
    });
    expect(step0.map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual(['incident.opened']);
    const before = { incidents: await incidents(), timeline: await timeline(t, user, incident.id) };

    // A third delivery of the same group, and still nothing more.
    const firingSoFar = notifications('firing').length;
    await pollUntil('another firing notification', async () => (notifications('firing').length > firingSoFar ? true : undefined));
    await settle();
    expect({ incidents: await incidents(), timeline: await timeline(t, user, incident.id) }).toEqual(before);
    expect(receiver.at('/step0')).toHaveLength(1);

    // Resolved through Alertmanager's API, as Prometheus does when the alert stops firing.
    await postAlerts(am, [{ labels, annotations: { summary: 'Checkout latency is high' }, endsAt: new Date().toISOString() }]);
    const resolved = await pollUntil('the incident to resolve', async () => {
      await settle();
      const [now] = await incidents();
      // Both: the answer to Alertmanager is noted just after the write the API already shows.
      return now?.state === 'RESOLVED' && notifications('resolved').length > 0 ? now : undefined;
    });
    expect(resolved.id).toBe(incident.id);
    expect(await incidents()).toHaveLength(1);

    // Every notification Alertmanager sent, delivered again: nothing changes.
    await settle();
    const after = { incidents: await incidents(), timeline: await timeline(t, user, incident.id), step0: receiver.at('/step0').length };
    for (const delivery of [...deliveries]) {
      const res = await t.request('POST', intakePath(integration), { rawBody: delivery.body, headers: { 'content-type': 'application/json' } });
      expect(res.status, res.text).toBe(200);
    }
    await settle();
    expect({ incidents: await incidents(), timeline: await timeline(t, user, incident.id), step0: receiver.at('/step0').length }).toEqual(after);
  });
});
