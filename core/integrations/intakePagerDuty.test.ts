import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { timeline } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { incidentsOf, type IncidentBody } from '../../test/support/incidents.js';
import { createIntegration, postIntake, type CreatedIntegration } from '../../test/support/integrations.js';
import type { User } from '../../test/support/users.js';
import { episodeOf } from './apply.js';

/* PagerDuty Events API v2 events, over HTTP through the real app, as a tool that pages PagerDuty sends them. */

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('pagerduty');
});
beforeEach(() => t.clock.advanceSeconds(61));

type Accepted = { status: string; message: string; dedup_key: string; incidentIds: number[] };

async function send(integration: CreatedIntegration, event: unknown) {
  const res = await postIntake(t, integration, event);
  expect(res.status, res.text).toBe(202);
  await t.deps.queue.drain();
  return res.body as Accepted;
}

const incidentsFrom = async (integration: CreatedIntegration): Promise<IncidentBody[]> =>
  (await incidentsOf(t, user, '&limit=100')).items.filter((incident) => incident.integrationId === integration.id);

async function snapshot(integration: CreatedIntegration) {
  const incidents = await incidentsFrom(integration);
  return { incidents, timelines: await Promise.all(incidents.map((incident) => timeline(t, user, incident.id))) };
}

const trigger = (extra: Record<string, unknown> = {}) => ({
  routing_key: 'R0UT1NGKEY0123456789ABCDEFGHIJKL',
  event_action: 'trigger',
  payload: { summary: 'Checkout error rate above 5%', source: 'checkout-api', severity: 'error', custom_details: { error_rate: 0.07 } },
  client: 'Sentry',
  ...extra,
});

describe('PagerDuty Events v2 intake over HTTP', () => {
  it('trigger, acknowledge and resolve act on one incident; a re-sent trigger changes nothing', async () => {
    const integration = await createIntegration(t, user, { name: 'Sentry', kind: 'PAGERDUTY_EVENTS', projectId: user.projectId });
    // No dedup_key: Vigil makes one up and answers it, as PagerDuty does.
    const triggered = await send(integration, trigger());
    const [incident, ...others] = await incidentsFrom(integration);
    expect(others).toEqual([]);
    expect(triggered).toEqual({ status: 'success', message: 'Event processed', dedup_key: expect.stringMatching(/^[0-9a-f]{32}$/), incidentIds: [incident?.id] });
    expect(incident).toMatchObject({ state: 'ACTIVE', severity: 'P2', title: 'Checkout error rate above 5%', projectId: user.projectId, acknowledgedAt: null });
    const key = triggered.dedup_key;

    const before = await snapshot(integration);
    t.clock.advanceSeconds(30);
    expect(await send(integration, trigger({ dedup_key: key }))).toMatchObject({ dedup_key: key });
    expect(await snapshot(integration)).toEqual(before);

    t.clock.advanceSeconds(60);
    expect(await send(integration, { routing_key: 'whatever', event_action: 'acknowledge', dedup_key: key })).toEqual({
      status: 'success',
      message: 'Event processed',
      dedup_key: key,
      incidentIds: [incident?.id],
    });
    const [acknowledged] = await incidentsFrom(integration);
    expect(acknowledged).toMatchObject({ id: incident?.id, state: 'ACTIVE', acknowledgedAt: t.clock.now().toISOString() });

    t.clock.advanceSeconds(60);
    expect(await send(integration, { event_action: 'resolve', dedup_key: key })).toEqual({
      status: 'success',
      message: 'Event processed',
      dedup_key: key,
      incidentIds: [incident?.id],
    });
    expect(await incidentsFrom(integration)).toMatchObject([{ id: incident?.id, state: 'RESOLVED' }]);
  });

  it('takes the secret as a Bearer token on /integrations/intake, as a fixed events URL needs', async () => {
    const integration = await createIntegration(t, user, { name: 'Datadog', kind: 'PAGERDUTY_EVENTS' });
    const res = await t.request('POST', '/integrations/intake', {
      token: integration.secret,
      body: trigger({ dedup_key: 'dd-monitor-42', payload: { summary: 'Disk full', source: 'db-1', severity: 'critical' } }),
    });
    expect([res.status, res.text]).toEqual([202, expect.stringContaining('"dedup_key":"dd-monitor-42"')]);
    await t.deps.queue.drain();
    expect(await incidentsFrom(integration)).toMatchObject([{ state: 'ACTIVE', severity: 'P1', title: 'Disk full' }]);
  });

  it('a change event is answered 202 and opens nothing; a bad event gets 400 with its fields and changes nothing', async () => {
    const integration = await createIntegration(t, user, { name: 'CI', kind: 'PAGERDUTY_EVENTS' });
    const change = await postIntake(t, integration, { routing_key: 'x', payload: { summary: 'Deployed checkout v2.3.0', source: 'github' } });
    expect([change.status, change.body]).toEqual([202, { status: 'success', message: 'Change event processed' }]);
    const bad = expectError(await postIntake(t, integration, trigger({ payload: { summary: 'x', source: 'y', severity: 'fatal' } })), 400, 'VALIDATION_ERROR') as {
      details?: { path: string }[];
    };
    expect(bad.details?.map((detail) => detail.path)).toEqual(['payload.severity']);
    expectError(await postIntake(t, integration, { event_action: 'resolve' }), 400, 'VALIDATION_ERROR');
    await t.deps.queue.drain();
    expect(await incidentsFrom(integration)).toEqual([]);
  });

  it('an acknowledge or resolve for a key with no open incident changes nothing', async () => {
    const integration = await createIntegration(t, user, { name: 'Quiet', kind: 'PAGERDUTY_EVENTS' });
    expect(await send(integration, { event_action: 'acknowledge', dedup_key: 'never-triggered' })).toEqual({
      status: 'success',
      message: 'Event processed',
      dedup_key: 'never-triggered',
      incidentIds: [],
    });
    expect(await send(integration, { event_action: 'resolve', dedup_key: 'never-triggered' })).toMatchObject({ incidentIds: [] });
    expect(await incidentsFrom(integration)).toEqual([]);
  });

  it('an acknowledge or resolve racing the trigger that opens its incident answers 503 with Retry-After and changes nothing; sent again after it, it acts', async () => {
    const integration = await createIntegration(t, user, { name: 'Racy', kind: 'PAGERDUTY_EVENTS' });
    const key = 'race-4711';
    // The trigger between its two writes (core/incidents/episodes.ts): the episode claims an incident id that is not written yet.
    const claimed = await t.deps.store.nextId('incident');
    await t.deps.store.entities.incidentEpisode.update(episodeOf(integration.id, key)).set({ openIncidentId: claimed, workspaceId: user.workspaceId }).go();
    for (const event_action of ['acknowledge', 'resolve']) {
      const res = await postIntake(t, integration, { routing_key: 'R0UT1NGKEY0123456789ABCDEFGHIJKL', event_action, dedup_key: key });
      expectError(res, 503, 'INCIDENT_OPENING');
      expect(res.headers.get('retry-after')).toBe('5');
    }
    await t.deps.queue.drain();
    expect(await incidentsFrom(integration)).toEqual([]);
    expect((await t.deps.store.entities.incidentEpisode.get(episodeOf(integration.id, key)).go({ consistent: true })).data?.openIncidentId).toBe(claimed);
    // The trigger completes (its redelivery writes the claimed incident), and the resolve sent again acts on it.
    expect((await send(integration, trigger({ dedup_key: key }))).incidentIds).toEqual([claimed]);
    t.clock.advanceSeconds(5);
    expect((await send(integration, { routing_key: 'R0UT1NGKEY0123456789ABCDEFGHIJKL', event_action: 'resolve', dedup_key: key })).incidentIds).toEqual([claimed]);
    expect(await incidentsFrom(integration)).toEqual([expect.objectContaining({ id: claimed, state: 'RESOLVED' })]);
  });
});
