import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { timeline } from '../../test/support/alerting.js';
import { LONG_SESSIONS } from '../../test/support/checks.js';
import { incidentsOf, type IncidentBody } from '../../test/support/incidents.js';
import { alertmanagerNotification, createIntegration, intakePath, postIntake, type CreatedIntegration } from '../../test/support/integrations.js';
import type { User } from '../../test/support/users.js';
import { consumeRateLimit } from '../http/rateLimit.js';
import { INTAKE_RATE_LIMIT } from './intake.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('intake');
});
beforeEach(() => t.clock.advanceSeconds(61));

const incidentsFrom = async (integration: CreatedIntegration): Promise<IncidentBody[]> =>
  (await incidentsOf(t, user, '&limit=100')).items.filter((i) => i.integrationId === integration.id);

/** Everything an observer could see change: the integration's incidents and their timelines. */
async function snapshot(integration: CreatedIntegration) {
  const incidents = await incidentsFrom(integration);
  return { incidents, timelines: await Promise.all(incidents.map((i) => timeline(t, user, i.id))) };
}

async function send(integration: CreatedIntegration, body: unknown) {
  const res = await postIntake(t, integration, body);
  expect(res.status, res.text).toBe(200);
  await t.deps.queue.drain();
  return res.body as { accepted: number; incidentIds: number[] };
}

describe('Alertmanager intake', () => {
  it('a firing group opens one incident (critical -> P1, the integration project); a re-sent group changes nothing; resolved closes it', async () => {
    const integration = await createIntegration(t, user, { projectId: user.projectId });
    const firing = alertmanagerNotification({ groupKey: 'g1', alerts: [{}, { labels: { alertname: 'HighLatency', severity: 'warning', instance: 'web-1' } }] });
    const first = await send(integration, firing);
    expect(first.accepted).toBe(1);
    const [incident] = await incidentsFrom(integration);
    expect(incident).toMatchObject({ state: 'ACTIVE', severity: 'P1', projectId: user.projectId, integrationId: integration.id, title: 'Latency is high', declared: false });
    expect(incident?.startedAt).toBe('2026-03-01T11:58:00.000Z');
    expect(first.incidentIds).toEqual([incident?.id]);
    expect((await timeline(t, user, incident?.id ?? 0)).map((e) => e.type)).toContain('OPENED');

    const before = await snapshot(integration);
    t.clock.advanceSeconds(300);
    await send(integration, firing);
    expect(await snapshot(integration)).toEqual(before);

    t.clock.advanceSeconds(60);
    await send(integration, alertmanagerNotification({ groupKey: 'g1', status: 'resolved', alerts: [{ endsAt: '2026-03-01T12:05:00.000Z' }] }));
    const [resolved] = await incidentsFrom(integration);
    expect(resolved).toMatchObject({ id: incident?.id, state: 'RESOLVED', resolvedAt: '2026-03-01T12:05:00.000Z', recoveredAt: '2026-03-01T12:05:00.000Z' });
    expect((await timeline(t, user, incident?.id ?? 0)).find((e) => e.type === 'RESOLVED')?.message).toBe('Resolved: the alert source reported it resolved');

    // The same resolve again, and the old firing group delivered late: nothing changes.
    const after = await snapshot(integration);
    await send(integration, alertmanagerNotification({ groupKey: 'g1', status: 'resolved', alerts: [{ endsAt: '2026-03-01T12:05:00.000Z' }] }));
    await send(integration, firing);
    expect(await snapshot(integration)).toEqual(after);

    // The group firing again after it resolved is a new episode: a new incident.
    await send(integration, alertmanagerNotification({ groupKey: 'g1', alerts: [{ startsAt: t.clock.now().toISOString() }] }));
    const all = await incidentsFrom(integration);
    expect(all).toHaveLength(2);
    expect(all.filter((i) => i.state === 'ACTIVE')).toHaveLength(1);
  });

  it('a resolve that arrives before its firing group opens nothing, then or later (idempotent out of order)', async () => {
    const integration = await createIntegration(t, user);
    const resolved = alertmanagerNotification({ groupKey: 'ooo', status: 'resolved', alerts: [{ startsAt: '2026-03-01T11:50:00.000Z', endsAt: '2026-03-01T11:55:00.000Z' }] });
    const firing = alertmanagerNotification({ groupKey: 'ooo', alerts: [{ startsAt: '2026-03-01T11:50:00.000Z' }] });
    expect((await send(integration, resolved)).incidentIds).toEqual([]);
    expect((await send(integration, firing)).incidentIds).toEqual([]);
    expect((await send(integration, resolved)).incidentIds).toEqual([]);
    expect(await incidentsFrom(integration)).toEqual([]);
  });

  it('maps severities by the integration settings and raises an open incident, never lowers it', async () => {
    const integration = await createIntegration(t, user, { severityMap: { page: 'P1', ticket: 'P4' }, defaultSeverity: 'P2' });
    const labelled = (severity: string) =>
      alertmanagerNotification({ groupKey: 'sev', alerts: [{ labels: { alertname: 'Disk', severity } }], commonLabels: { alertname: 'Disk' } });
    await send(integration, labelled('ticket'));
    expect((await incidentsFrom(integration))[0]?.severity).toBe('P4');
    await send(integration, labelled('unknown'));
    expect((await incidentsFrom(integration))[0]?.severity).toBe('P2');
    await send(integration, labelled('page'));
    await send(integration, labelled('ticket'));
    const incidents = await incidentsFrom(integration);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]?.severity).toBe('P1');
  });

  it('the vigil_project label picks a project of the workspace by id or name; an unknown one falls back to the integration project', async () => {
    const other = await t.request<{ id: number; name: string }>('POST', '/projects', { token: user.token, body: { workspaceId: user.workspaceId, name: 'Payments' } });
    expect(other.status, other.text).toBe(201);
    const integration = await createIntegration(t, user, { projectId: user.projectId });
    const labelled = (key: string, project: string) =>
      alertmanagerNotification({
        groupKey: key,
        alerts: [{ labels: { alertname: 'X', severity: 'critical', vigil_project: project } }],
        // Alertmanager's commonLabels: the labels every alert of the group has.
        commonLabels: { alertname: 'X', severity: 'critical', vigil_project: project },
      });
    const byName = await send(integration, labelled('p1', 'Payments'));
    const byId = await send(integration, labelled('p2', String(other.body.id)));
    const unknown = await send(integration, labelled('p3', 'Nope'));
    const projectOf = async (id: number | undefined) => (await t.request<IncidentBody>('GET', `/incidents/${id}`, { token: user.token })).body.projectId;
    expect(await projectOf(byName.incidentIds[0])).toBe(other.body.id);
    expect(await projectOf(byId.incidentIds[0])).toBe(other.body.id);
    expect(await projectOf(unknown.incidentIds[0])).toBe(user.projectId);
  });

  it('grouping ALERT opens one incident per fingerprint and resolves each on its own', async () => {
    const integration = await createIntegration(t, user, { grouping: 'ALERT' });
    const two = alertmanagerNotification({ groupKey: 'many', alerts: [{ fingerprint: 'a1' }, { fingerprint: 'a2' }] });
    expect((await send(integration, two)).incidentIds).toHaveLength(2);
    await send(integration, two);
    expect(await incidentsFrom(integration)).toHaveLength(2);
    const oneResolved = alertmanagerNotification({
      groupKey: 'many',
      alerts: [{ fingerprint: 'a1', status: 'resolved', endsAt: t.clock.now().toISOString() }, { fingerprint: 'a2' }],
    });
    await send(integration, oneResolved);
    expect((await incidentsFrom(integration)).map((i) => i.state).sort()).toEqual(['ACTIVE', 'RESOLVED']);
    const noFingerprint = { ...two, alerts: two.alerts.map(({ fingerprint: _f, ...rest }) => rest) };
    expectError(await postIntake(t, integration, noFingerprint), 400);
  });

  it('an acknowledged incident stays acknowledged when its group is re-sent', async () => {
    const integration = await createIntegration(t, user);
    const firing = alertmanagerNotification({ groupKey: 'ack' });
    const [id] = (await send(integration, firing)).incidentIds;
    expect((await t.request('POST', `/incidents/${id}/acknowledge`, { token: user.token })).status).toBe(200);
    await send(integration, firing);
    const incident = (await t.request<IncidentBody>('GET', `/incidents/${id}`, { token: user.token })).body;
    expect(incident.acknowledgedBy).toBe(user.userId);
    expect(incident.state).toBe('ACTIVE');
  });

  it('a person resolving the incident while the group still fires: the re-sent group opens nothing until it resolved at the source', async () => {
    const integration = await createIntegration(t, user);
    const firing = alertmanagerNotification({ groupKey: 'manual', alerts: [{ startsAt: t.clock.now().toISOString() }] });
    const [id] = (await send(integration, firing)).incidentIds;
    t.clock.advanceSeconds(60);
    expect((await t.request('POST', `/incidents/${id}/resolve`, { token: user.token })).status).toBe(200);
    t.clock.advanceSeconds(60);
    expect((await send(integration, firing)).incidentIds).toEqual([]);
    expect(await incidentsFrom(integration)).toHaveLength(1);
    await send(integration, alertmanagerNotification({ groupKey: 'manual', status: 'resolved', alerts: [{ endsAt: t.clock.now().toISOString() }] }));
    t.clock.advanceSeconds(60);
    expect((await send(integration, alertmanagerNotification({ groupKey: 'manual', alerts: [{ startsAt: t.clock.now().toISOString() }] }))).incidentIds).toHaveLength(1);
    expect(await incidentsFrom(integration)).toHaveLength(2);
  });
});

describe('Grafana intake', () => {
  it("accepts Grafana Alerting's webhook (version 1, with orgId, title, state and message) and resolves", async () => {
    const integration = await createIntegration(t, user, { kind: 'GRAFANA' });
    const grafana = (status: 'firing' | 'resolved') => ({
      ...alertmanagerNotification({ groupKey: '{}/{__grafana_autogenerated__="true"}:{alertname="CPU"}', status, commonLabels: { alertname: 'CPU', grafana_folder: 'Infra' } }),
      version: '1',
      orgId: 1,
      title: `[${status.toUpperCase()}:1] CPU (Infra)`,
      state: status === 'firing' ? 'alerting' : 'ok',
      message: '**Firing**\n\nValue: A=97',
      commonAnnotations: {},
    });
    const [id] = (await send(integration, grafana('firing'))).incidentIds;
    const incident = (await t.request<IncidentBody>('GET', `/incidents/${id}`, { token: user.token })).body;
    expect(incident).toMatchObject({ title: 'CPU', severity: 'P1', integrationId: integration.id, state: 'ACTIVE' });
    await send(integration, grafana('resolved'));
    expect((await t.request<IncidentBody>('GET', `/incidents/${id}`, { token: user.token })).body.state).toBe('RESOLVED');
  });
});

describe('bad intake requests', () => {
  it('bad payloads get a 4xx in the error shape and change nothing', async () => {
    const integration = await createIntegration(t, user);
    const good = alertmanagerNotification({ groupKey: 'bad' });
    await send(integration, good);
    const before = await snapshot(integration);
    const bad: [unknown, number][] = [
      [{ ...good, version: '3' }, 400],
      [{ ...good, status: 'pending' }, 400],
      [{ ...good, alerts: [] }, 400],
      [{ ...good, alerts: 'many' }, 400],
      [{ ...good, groupKey: '' }, 400],
      [{ ...good, groupKey: undefined }, 400],
      [{ ...good, alerts: [{ ...good.alerts[0], startsAt: 'yesterday' }] }, 400],
      [{ ...good, alerts: [{ ...good.alerts[0], labels: { severity: 5 } }] }, 400],
      [{ ...good, status: 'resolved', alerts: [{ ...good.alerts[0], status: 'resolved', endsAt: 'soon' }] }, 400],
      [[good], 400],
      ['a string', 400],
      [null, 400],
    ];
    for (const [body, status] of bad) {
      const err = expectError(await postIntake(t, integration, body), status) as { details?: unknown[] };
      expect(err.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expectError(await t.request('POST', intakePath(integration), { rawBody: '{"version":', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    expectError(await t.request('POST', intakePath(integration), { rawBody: '', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    const huge = JSON.stringify({ ...good, commonAnnotations: { summary: 'x'.repeat(1024 * 1024) } });
    expectError(await t.request('POST', intakePath(integration), { rawBody: huge, headers: { 'content-type': 'application/json' } }), 413);
    await t.deps.queue.drain();
    expect(await snapshot(integration)).toEqual(before);
  });

  it("another workspace's integration secret never reaches this workspace's incidents", async () => {
    const stranger = await t.signup('stranger');
    const theirs = await createIntegration(t, stranger);
    const [id] = (await send(theirs, alertmanagerNotification({ groupKey: 'theirs' }))).incidentIds;
    expectError(await t.request('GET', `/incidents/${id}`, { token: user.token }), 404);
    expectError(await t.request('GET', `/integrations/${theirs.id}`, { token: user.token }), 404);
  });
});

describe('intake rate limit (core/integrations/intake.ts INTAKE_RATE_LIMIT)', () => {
  it('past the limit an integration gets 429 with Retry-After and nothing opens; the next minute it is taken again; another integration is unaffected', async () => {
    expect(INTAKE_RATE_LIMIT).toMatchObject({ limit: 600, windowSeconds: 60 });
    // Start 1 s into a fresh window, so nothing below crosses a window edge by accident.
    t.clock.advanceSeconds(60 - ((t.clock.now().getTime() / 1000) % 60) + 1);
    const noisy = await createIntegration(t, user, { name: 'noisy' });
    const quiet = await createIntegration(t, user, { name: 'quiet' });
    // 596 requests' worth spent through the limiter itself, so the test pays for a handful.
    expect((await consumeRateLimit(t.deps, INTAKE_RATE_LIMIT, `integration:${noisy.id}`, 596)).allowed).toBe(true);
    for (const n of [1, 2, 3, 4]) await send(noisy, alertmanagerNotification({ groupKey: `burst-${n}`, alerts: [{ startsAt: t.clock.now().toISOString() }] }));
    const before = await snapshot(noisy);
    expect(before.incidents).toHaveLength(4);

    const refused = await postIntake(t, noisy, alertmanagerNotification({ groupKey: 'burst-over', alerts: [{ startsAt: t.clock.now().toISOString() }] }));
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBe(59);
    // The Bearer path counts against the same integration.
    const bearer = await t.request('POST', '/integrations/intake', {
      headers: { authorization: `Bearer ${noisy.secret}` },
      body: alertmanagerNotification({ groupKey: 'burst-bearer' }),
    });
    expectError(bearer, 429, 'RATE_LIMITED');
    await t.deps.queue.drain();
    expect(await snapshot(noisy)).toEqual(before);

    // Another integration of the same workspace has its own budget.
    expect((await send(quiet, alertmanagerNotification({ groupKey: 'quiet-1', alerts: [{ startsAt: t.clock.now().toISOString() }] }))).incidentIds).toHaveLength(1);

    t.clock.advanceSeconds(60);
    const again = await send(noisy, alertmanagerNotification({ groupKey: 'burst-over', alerts: [{ startsAt: t.clock.now().toISOString() }] }));
    expect(again.incidentIds).toHaveLength(1);
    expect(await incidentsFrom(noisy)).toHaveLength(5);
  });
});
