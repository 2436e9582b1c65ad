import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { runSweep } from '../sweep/index.js';
import { addMember, createCheck, deliver, incidentsOf, reported, statusChanged, type CreatedCheck, type IncidentBody, type User } from '../../test/support/incidents.js';

let t: TestContext;
let owner: User;
let stranger: User;
let viewer: User;
beforeAll(async () => {
  t = await createTestContext();
  owner = await t.signup('owner');
  stranger = await t.signup('stranger');
  viewer = await t.signup('viewer');
  await addMember(t, owner, viewer, 'VIEWER');
});

const at = (seconds: number): Date => new Date(t.clock.now().getTime() + seconds * 1000);

/** A check of `owner` with one open SERVICE_DOWN incident. */
async function openIncident(extra: Record<string, unknown> = {}): Promise<{ check: CreatedCheck; incident: IncidentBody }> {
  const check = await createCheck(t, owner, extra);
  await deliver(t, statusChanged(check, 'OK', 'LATE', at(0)));
  const [incident] = (await incidentsOf(t, owner, `&checkId=${check.id}`)).items;
  if (!incident) throw new Error('no incident opened');
  return { check, incident };
}

const post = (user: User, path: string) => t.request<IncidentBody>('POST', path, { token: user.token });
const get = <T = IncidentBody>(user: User, path: string) => t.request<T>('GET', path, { token: user.token });

describe('GET /incidents', () => {
  it('lists newest first, paginated with limit 20 by default, with the spec envelope', async () => {
    const user = await t.signup('lister');
    const check = await createCheck(t, user);
    const episodes = Array.from({ length: 22 }, (_, i) => [statusChanged(check, 'OK', 'LATE', at(i * 10 + 1)), statusChanged(check, 'LATE', 'OK', at(i * 10 + 2), 'PING')]);
    await deliver(t, ...episodes.flat());
    const first = await incidentsOf(t, user);
    expect(first).toMatchObject({ total: 22, page: 1, itemCount: 20, pageCount: 2, limit: 20 });
    const ids = first.items.map((i) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const second = await incidentsOf(t, user, '&page=2&limit=20');
    expect(second).toMatchObject({ itemCount: 2, page: 2 });
    expect((await get(user, '/incidents?limit=5')).body).toMatchObject({ itemCount: 5, pageCount: 5 });
  });

  it('filters by state with OPEN and MONITORING as case-insensitive aliases of ACTIVE', async () => {
    const { check, incident } = await openIncident();
    const monitored = await openIncident();
    expect((await post(owner, `/incidents/${monitored.incident.id}/monitor`)).status).toBe(200);
    await deliver(t, statusChanged(check, 'LATE', 'OK', at(5), 'PING'));
    const states = async (state: string) =>
      (await incidentsOf(t, owner, `&state=${state}`)).items.filter((i) => [incident.id, monitored.incident.id].includes(i.id)).map((i) => i.state);
    for (const alias of ['ACTIVE', 'active', 'OPEN', 'open', 'Monitoring']) expect(await states(alias)).toEqual(['MONITORING']);
    expect(await states('resolved')).toEqual(['RESOLVED']);
    expectError(await get(owner, '/incidents?state=CLOSED'), 400, 'VALIDATION_ERROR');
  });

  it('filters by project and check, and 404s for filters from another workspace', async () => {
    const project = await t.request<{ id: number }>('POST', '/projects', { token: owner.token, body: { workspaceId: owner.workspaceId, name: 'filtered' } });
    const { check, incident } = await openIncident({ projectId: project.body.id });
    expect((await incidentsOf(t, owner, `&projectId=${project.body.id}`)).items.map((i) => i.id)).toEqual([incident.id]);
    expect((await incidentsOf(t, owner, `&checkId=${check.id}`)).items.map((i) => i.id)).toEqual([incident.id]);
    // Both filters in the same workspace but not matching each other: an empty page, not an error.
    expect((await get<{ items: unknown[] }>(owner, `/incidents?projectId=${owner.projectId}&checkId=${check.id}`)).body.items).toEqual([]);

    expectError(await get(stranger, `/incidents?checkId=${check.id}`), 404);
    expectError(await get(stranger, `/incidents?projectId=${project.body.id}`), 404);
    expectError(await get(stranger, `/incidents?workspaceId=${owner.workspaceId}`), 404);
    expectError(await get(stranger, `/incidents?workspaceId=${stranger.workspaceId}&checkId=${check.id}`), 404);
    expectError(await get(owner, '/incidents?checkId=987654'), 404);
    expectError(await get(owner, '/incidents?page=0'), 400);
    expectError(await get(owner, '/incidents?limit=101'), 400);
    const key = await t.apiKey(owner);
    expectError(await t.request('GET', '/incidents', { token: key }), 401);
  });

  it('enriches with project, check, signals and the acknowledging user', async () => {
    const check = await createCheck(t, owner, { name: 'enriched' });
    expect((await t.request('GET', `/signals/ping/${check.token}`)).status).toBe(200);
    const pingedAt = t.clock.now();
    t.clock.advanceSeconds(600);
    await deliver(t, statusChanged(check, 'OK', 'LATE', t.clock.now()));
    t.clock.advanceSeconds(60);
    const [incident] = (await incidentsOf(t, owner, `&checkId=${check.id}`)).items;
    expect(incident).toMatchObject({
      project: { id: owner.projectId, name: expect.any(String) },
      check: { id: check.id, name: 'enriched', token: check.token },
      dependency: null,
      acknowledgedBy: null,
      acknowledgedByUser: null,
      lastSignalType: 'SUCCESS',
      lastSuccessAt: pingedAt.toISOString(),
      durationSinceSuccessMs: 660_000,
    });
    expect(typeof incident?.lastSignalSource).toBe('string');
    expect(incident?.lastSignalAt).toBe(pingedAt.toISOString());

    const acked = await post(owner, `/incidents/${incident!.id}/acknowledge`);
    expect(acked.body.acknowledgedByUser).toEqual({ id: owner.userId, email: owner.email });
  });

  it('names the dependency of a DEPENDENCY_DOWN incident', async () => {
    const check = await createCheck(t, owner);
    await deliver(t, reported(check, at(1), [{ name: 'billing-api', status: 'down' }]));
    const [incident] = (await incidentsOf(t, owner, `&checkId=${check.id}`)).items;
    expect(incident).toMatchObject({ reason: 'DEPENDENCY_DOWN', dependencyName: 'billing-api', dependency: { id: incident?.dependencyId, name: 'billing-api' } });
  });
});

describe('GET /incidents/:id', () => {
  it('returns the enriched incident; foreign, unknown and malformed ids are 404/404/400', async () => {
    const { incident } = await openIncident();
    const res = await get(owner, `/incidents/${incident.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(incident);
    expect((await get(viewer, `/incidents/${incident.id}`)).status).toBe(200);
    expectError(await get(stranger, `/incidents/${incident.id}`), 404);
    expectError(await get(owner, '/incidents/99999999'), 404);
    expectError(await get(owner, '/incidents/abc'), 400);
  });
});

describe('incident actions', () => {
  it('acknowledges idempotently and records one ACKNOWLEDGED event', async () => {
    const { incident } = await openIncident();
    const first = await post(owner, `/incidents/${incident.id}/acknowledge`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ acknowledgedBy: owner.userId, acknowledgedAt: t.clock.now().toISOString(), state: 'ACTIVE' });
    t.clock.advanceSeconds(30);
    const second = await post(owner, `/incidents/${incident.id}/acknowledge`);
    expect(second.status).toBe(200);
    expect(second.body.acknowledgedAt).toBe(first.body.acknowledgedAt);
    const events = await get<{ type: string; message: string }[]>(owner, `/incident-events/${incident.id}`);
    expect(events.body.filter((e) => e.type === 'ACKNOWLEDGED')).toEqual([expect.objectContaining({ message: `Acknowledged by ${owner.email}` })]);
  });

  it('refuses to acknowledge or monitor a resolved incident with 409 INCIDENT_RESOLVED', async () => {
    const { incident } = await openIncident();
    const resolved = await post(owner, `/incidents/${incident.id}/resolve`);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ state: 'RESOLVED', resolvedAt: t.clock.now().toISOString(), recoveredAt: null });
    expectError(await post(owner, `/incidents/${incident.id}/acknowledge`), 409, 'INCIDENT_RESOLVED');
    expectError(await post(owner, `/incidents/${incident.id}/monitor`), 409, 'INCIDENT_RESOLVED');
    const again = await post(owner, `/incidents/${incident.id}/resolve`);
    expect(again.status).toBe(200);
    expect(again.body.resolvedAt).toBe(resolved.body.resolvedAt);
    const events = await get<{ type: string; message: string }[]>(owner, `/incident-events/${incident.id}`);
    expect(events.body.map((e) => e.type)).toEqual(['OPENED', 'RESOLVED']);
    expect(events.body[1]?.message).toBe(`Resolved by ${owner.email}`);
  });

  it('moves ACTIVE to MONITORING; the episode still resolves on recovery', async () => {
    const { check, incident } = await openIncident();
    const monitored = await post(owner, `/incidents/${incident.id}/monitor`);
    expect(monitored.body.state).toBe('MONITORING');
    expect((await post(owner, `/incidents/${incident.id}/monitor`)).body.state).toBe('MONITORING');
    await deliver(t, statusChanged(check, 'LATE', 'OK', at(1), 'PING'));
    expect((await get(owner, `/incidents/${incident.id}`)).body.state).toBe('RESOLVED');
    const events = await get<{ type: string }[]>(owner, `/incident-events/${incident.id}`);
    expect(events.body.map((e) => e.type)).toEqual(['OPENED', 'MONITORING', 'RESOLVED']);
  });

  it('ends the episode on a manual resolve: an older DOWN redelivered opens nothing', async () => {
    const check = await createCheck(t, owner);
    await deliver(t, statusChanged(check, 'OK', 'LATE', at(-20)));
    const [incident] = (await incidentsOf(t, owner, `&checkId=${check.id}`)).items;
    await post(owner, `/incidents/${incident!.id}/resolve`);
    await deliver(t, statusChanged(check, 'LATE', 'DOWN', at(-10)));
    expect((await incidentsOf(t, owner, `&checkId=${check.id}`)).items.map((i) => i.state)).toEqual(['RESOLVED']);
  });

  it('needs MEMBER to act (VIEWER 403) and 404s for other workspaces', async () => {
    const { incident } = await openIncident();
    for (const action of ['acknowledge', 'resolve', 'monitor']) {
      expectError(await post(viewer, `/incidents/${incident.id}/${action}`), 403);
      expectError(await post(stranger, `/incidents/${incident.id}/${action}`), 404);
      expectError(await post(owner, `/incidents/424242/${action}`), 404);
    }
    expectError(await get(stranger, `/incident-events/${incident.id}`), 404);
    expectError(await get(owner, '/incident-events/424242'), 404);
    expect((await get(owner, `/incidents/${incident.id}`)).body.state).toBe('ACTIVE');
  });
});

describe('end to end', () => {
  it('a missed heartbeat opens at LATE, DOWN raises it, the next ping resolves it', async () => {
    const user = await t.signup('e2e');
    const check = await createCheck(t, user, { intervalSeconds: 300, graceSeconds: 30, lateSeverity: 'P4', downSeverity: 'P1' });
    expect((await t.request('GET', `/signals/ping/${check.token}`)).status).toBe(200);
    await t.deps.queue.drain();
    // The 30 s of grace are tolerated lateness: no incident yet 330 s after the ping.
    t.clock.advanceSeconds(330);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    expect((await incidentsOf(t, user)).items).toEqual([]);
    t.clock.advanceSeconds(1);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    expect((await incidentsOf(t, user)).items.map((i) => [i.state, i.severity])).toEqual([['ACTIVE', 'P4']]);
    t.clock.advanceSeconds(30);
    await runSweep(t.deps);
    await t.deps.queue.drain();
    expect((await incidentsOf(t, user)).items.map((i) => [i.state, i.severity])).toEqual([['ACTIVE', 'P1']]);
    t.clock.advanceSeconds(10);
    const pingedAt = t.clock.now().toISOString();
    expect((await t.request('GET', `/signals/ping/${check.token}`)).status).toBe(200);
    await t.deps.queue.drain();
    const [incident] = (await incidentsOf(t, user)).items;
    expect(incident).toMatchObject({ state: 'RESOLVED', recoveredAt: pingedAt, lastSignalType: 'SUCCESS', lastSuccessAt: pingedAt, durationSinceSuccessMs: 0 });
  });

  it('documents every incident and dependency route in the OpenAPI documents', async () => {
    const dashboard = await t.request<{ paths: Record<string, unknown> }>('GET', '/openapi.json');
    expect(Object.keys(dashboard.body.paths)).toEqual(
      expect.arrayContaining([
        '/incidents',
        '/incidents/{id}',
        '/incidents/{id}/acknowledge',
        '/incidents/{id}/resolve',
        '/incidents/{id}/monitor',
        '/incident-events/{incidentId}',
        '/incident-notes/{incidentId}',
        '/incident-notes/{incidentId}/{noteId}',
        '/dependencies',
        '/dependencies/{id}',
      ]),
    );
    const v1 = await t.request<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
    expect(Object.keys(v1.body.paths)).toEqual(expect.arrayContaining(['/incidents', '/incidents/{id}', '/incidents/{id}/acknowledge', '/incidents/{id}/resolve']));
  });
});
