import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createChannel, startReceiver, type Receiver } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { alertmanagerNotification, createIntegration, postIntake } from '../../test/support/integrations.js';
import type { User } from '../../test/support/users.js';

/** An integration's incidents are routed like any incident: by policies (which may name integrations) and under maintenance windows. */
let t: TestContext;
let receiver: Receiver;
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
beforeEach(() => t.clock.advanceSeconds(61));

async function policy(user: User, body: Record<string, unknown>, path: string) {
  const hook = await createChannel(t, user, { type: 'WEBHOOK', config: { url: receiver.url(path) } });
  const res = await t.request<{ id: number; integrationIds: number[] }>('POST', '/escalation-policies', {
    token: user.token,
    body: { workspaceId: user.workspaceId, name: path, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: hook.id }] }], ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const types = (path: string) => receiver.at(path).map((r) => (JSON.parse(r.body) as { type: string }).type);

describe('routing of integration incidents', () => {
  it('a policy that names the integration pages for its incidents; one for another project does not', async () => {
    const user = await t.signup('route');
    const prefix = `/${Math.random().toString(36).slice(2)}`;
    const integration = await createIntegration(t, user);
    const other = await createIntegration(t, user, { name: 'Other' });
    await policy(user, { priority: 0, projectIds: [user.projectId] }, `${prefix}/project`);
    const selected = await policy(user, { priority: 1, projectIds: [], integrationIds: [integration.id] }, `${prefix}/integration`);
    expect(selected.integrationIds).toEqual([integration.id]);
    expect((await postIntake(t, integration, alertmanagerNotification({ groupKey: 'r1' }))).status).toBe(200);
    await t.deps.queue.drain();
    expect(types(`${prefix}/integration`)).toEqual(['incident.opened']);
    expect(types(`${prefix}/project`)).toEqual([]);
    // The other integration's incident matches neither policy: no catch-all, so every channel of the workspace.
    expect((await postIntake(t, other, alertmanagerNotification({ groupKey: 'r2' }))).status).toBe(200);
    await t.deps.queue.drain();
    expect(types(`${prefix}/integration`)).toEqual(['incident.opened', 'incident.opened']);
    expect(types(`${prefix}/project`)).toEqual(['incident.opened']);
  });

  it("refuses another workspace's integration (404) and a policy that would select nothing (400)", async () => {
    const user = await t.signup('route-bad');
    const stranger = await t.signup('route-stranger');
    const theirs = await createIntegration(t, stranger);
    const body = { workspaceId: user.workspaceId, name: 'p', priority: 5, steps: [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'USER', targetUserId: user.userId }] }] };
    expectError(await t.request('POST', '/escalation-policies', { token: user.token, body: { ...body, integrationIds: [theirs.id] } }), 404);
    expectError(await t.request('POST', '/escalation-policies', { token: user.token, body: { ...body, projectIds: [] } }), 400);
    const created = await t.request<{ id: number }>('POST', '/escalation-policies', { token: user.token, body: { ...body, projectIds: [user.projectId] } });
    expect(created.status, created.text).toBe(201);
    expectError(await t.request('PUT', `/escalation-policies/${created.body.id}`, { token: user.token, body: { projectIds: [] } }), 400);
    expectError(await t.request('PUT', `/escalation-policies/${created.body.id}`, { token: user.token, body: { integrationIds: [theirs.id] } }), 404);
  });

  it('maintenance windows over the project: suppressAlerts holds the pages, suppressIncidents opens nothing', async () => {
    const user = await t.signup('route-window');
    const key = await t.apiKey(user);
    const prefix = `/${Math.random().toString(36).slice(2)}`;
    await policy(user, { priority: 0, projectIds: null }, `${prefix}/all`);
    const integration = await createIntegration(t, user, { projectId: user.projectId });
    const window = async (body: Record<string, unknown>) => {
      const res = await t.request<{ id: number }>('POST', '/v1/maintenance-windows', {
        token: key,
        body: { name: 'upgrade', endAt: new Date(t.clock.now().getTime() + 30 * 60_000).toISOString(), projectIds: [user.projectId], ...body },
      });
      expect(res.status, res.text).toBe(201);
      return res.body.id;
    };
    const end = async (id: number) => expect((await t.request('POST', `/v1/maintenance-windows/${id}/end`, { token: key })).status).toBe(200);
    const quiet = await window({ suppressAlerts: true, suppressIncidents: false });
    const held = await postIntake(t, integration, alertmanagerNotification({ groupKey: 'w1', alerts: [{ startsAt: t.clock.now().toISOString() }] }));
    await t.deps.queue.drain();
    expect((held.body as { incidentIds: number[] }).incidentIds).toHaveLength(1);
    expect(types(`${prefix}/all`)).toEqual([]);
    await end(quiet);
    const closed = await window({ suppressIncidents: true });
    const none = await postIntake(t, integration, alertmanagerNotification({ groupKey: 'w2', alerts: [{ startsAt: t.clock.now().toISOString() }] }));
    expect((none.body as { incidentIds: number[] }).incidentIds).toEqual([]);
    await end(closed);
  });
});
