import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { putHolds } from '../windows/holdStore.js';
import { createCheck, deliver, incidentsOf, reported, statusChanged, type User } from '../../test/support/incidents.js';
import { handleIncidentMessages } from './worker.js';
import { consumeIncidentsAndAlerts } from '../runtime.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('worker');
});

const later = (seconds: number): Date => new Date(t.clock.now().getTime() + seconds * 1000);

async function timeline(incidentId: number) {
  const res = await t.request<{ type: string; message: string; occurredAt: string }[]>('GET', `/incident-events/${incidentId}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}

async function incidentsOfCheck(checkId: number) {
  return (await incidentsOf(t, user, `&checkId=${checkId}`)).items;
}

describe('incident worker: check status changes', () => {
  it('opens at LATE with lateSeverity, raises at DOWN, resolves on recovery with recoveredAt', async () => {
    const check = await createCheck(t, user, { lateSeverity: 'P3', downSeverity: 'P1' });
    // The alerts queue has its own consumer now, so watch what is published rather than what waits;
    // and publish them, as on AWS (the embedded runtime sends them from here: core/escalation/handOff.test.ts).
    consumeIncidentsAndAlerts(t.deps, { handOffAlerts: false });
    const published = vi.spyOn(t.deps.queue, 'publish');
    const lateAt = later(1);
    await deliver(t, statusChanged(check, 'OK', 'LATE', lateAt));
    let [incident] = await incidentsOfCheck(check.id);
    expect(incident).toMatchObject({ state: 'ACTIVE', reason: 'SERVICE_DOWN', severity: 'P3', checkId: check.id, startedAt: lateAt.toISOString(), resolvedAt: null });
    expect(incident?.publicId).toMatch(/^[0-9a-z]{26}$/);

    await deliver(t, statusChanged(check, 'LATE', 'DOWN', later(60)));
    [incident] = await incidentsOfCheck(check.id);
    expect(incident?.severity).toBe('P1');

    const okAt = later(120);
    await deliver(t, statusChanged(check, 'DOWN', 'OK', okAt, 'PING'));
    const all = await incidentsOfCheck(check.id);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ state: 'RESOLVED', recoveredAt: okAt.toISOString(), resolvedAt: okAt.toISOString() });
    expect((await timeline(all[0]!.id)).map((e) => e.type)).toEqual(['OPENED', 'SEVERITY_CHANGED', 'RESOLVED']);
    const alerts = published.mock.calls.filter(([queue]) => queue === 'alerts').flatMap(([, bodies]) => bodies);
    published.mockRestore();
    consumeIncidentsAndAlerts(t.deps, { handOffAlerts: true });
    expect(alerts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'incident.opened', incidentId: all[0]!.id }),
        expect.objectContaining({ type: 'incident.resolved', incidentId: all[0]!.id }),
      ]),
    );

    // The next outage is a new episode, a new incident.
    await deliver(t, statusChanged(check, 'OK', 'LATE', later(600)));
    const again = await incidentsOfCheck(check.id);
    expect(again.map((i) => i.state)).toEqual(['ACTIVE', 'RESOLVED']);
  });

  it('opens straight at DOWN with downSeverity, and resolves from LATE too (DESIGN 6)', async () => {
    const down = await createCheck(t, user, { downSeverity: 'P2' });
    await deliver(t, statusChanged(down, 'OK', 'DOWN', later(1), 'FAIL_PING'));
    expect((await incidentsOfCheck(down.id))[0]).toMatchObject({ severity: 'P2', state: 'ACTIVE' });

    const late = await createCheck(t, user);
    await deliver(t, statusChanged(late, 'OK', 'LATE', later(1)), statusChanged(late, 'LATE', 'OK', later(2), 'PING'));
    expect((await incidentsOfCheck(late.id))[0]).toMatchObject({ state: 'RESOLVED', severity: 'P3' });
  });

  it('opens exactly one incident and one OPENED event for duplicate and concurrent deliveries', async () => {
    const check = await createCheck(t, user);
    const message = statusChanged(check, 'OK', 'LATE', later(1));
    await deliver(t, message);
    await deliver(t, message);
    const batch = (id: string) => [{ id, body: message }];
    const results = await Promise.all([handleIncidentMessages(t.deps, batch('a')), handleIncidentMessages(t.deps, batch('b'))]);
    expect(results).toEqual([{ failedIds: [] }, { failedIds: [] }]);
    const incidents = await incidentsOfCheck(check.id);
    expect(incidents).toHaveLength(1);
    expect((await timeline(incidents[0]!.id)).filter((e) => e.type === 'OPENED')).toHaveLength(1);
  });

  it('settles racing LATE and DOWN deliveries of a fresh check on one incident at downSeverity', async () => {
    const check = await createCheck(t, user, { lateSeverity: 'P4', downSeverity: 'P1' });
    const late = { id: 'late', body: statusChanged(check, 'OK', 'LATE', later(1)) };
    const down = { id: 'down', body: statusChanged(check, 'LATE', 'DOWN', later(2)) };
    await Promise.all([
      handleIncidentMessages(t.deps, [late]),
      handleIncidentMessages(t.deps, [down]),
      handleIncidentMessages(t.deps, [late]),
      handleIncidentMessages(t.deps, [down]),
    ]);
    const incidents = await incidentsOfCheck(check.id);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]?.severity).toBe('P1');
    expect((await timeline(incidents[0]!.id)).filter((e) => e.type === 'OPENED')).toHaveLength(1);
  });

  it('ignores stale redeliveries: an old LATE after recovery opens nothing, an old OK does not end a newer episode', async () => {
    const check = await createCheck(t, user);
    const lateOne = statusChanged(check, 'OK', 'LATE', later(1));
    const okOne = statusChanged(check, 'LATE', 'OK', later(2), 'PING');
    await deliver(t, lateOne, okOne);
    await deliver(t, lateOne);
    expect((await incidentsOfCheck(check.id)).map((i) => i.state)).toEqual(['RESOLVED']);

    await deliver(t, statusChanged(check, 'OK', 'DOWN', later(10)));
    await deliver(t, okOne);
    expect((await incidentsOfCheck(check.id)).map((i) => i.state)).toEqual(['ACTIVE', 'RESOLVED']);
  });

  it('raises the incident another process opened when a flip from OK finds its episode open: the unread claim is refused, the episode read', async () => {
    const check = await createCheck(t, user, { lateSeverity: 'P3', downSeverity: 'P1' });
    await deliver(t, statusChanged(check, 'OK', 'LATE', later(1)));
    // Its own store object: none of this process's memory of the incident it opened (core/store/storeMemo.ts).
    const elsewhere = { ...t.deps, store: { ...t.deps.store } };
    const reordered = { id: 'down', body: statusChanged(check, 'OK', 'DOWN', later(2), 'FAIL_PING') };
    expect(await handleIncidentMessages(elsewhere, [reordered])).toEqual({ failedIds: [] });
    const incidents = await incidentsOfCheck(check.id);
    expect(incidents.map((i) => [i.state, i.severity])).toEqual([['ACTIVE', 'P1']]);
    expect((await timeline(incidents[0]!.id)).map((e) => e.type)).toEqual(['OPENED', 'SEVERITY_CHANGED']);
  });

  it('resolves open incidents when the check is deleted or paused by a deployment, not by a user pause', async () => {
    const deleted = await createCheck(t, user);
    await deliver(t, statusChanged(deleted, 'OK', 'DOWN', later(1)), reported(deleted, later(2), [{ name: 'redis-del', status: 'down' }]));
    expect((await incidentsOfCheck(deleted.id)).map((i) => i.state)).toEqual(['ACTIVE', 'ACTIVE']);
    await deliver(t, statusChanged(deleted, 'DOWN', 'DOWN', later(3), 'DELETE'));
    const resolved = await incidentsOfCheck(deleted.id);
    expect(resolved.map((i) => i.state)).toEqual(['RESOLVED', 'RESOLVED']);
    expect(resolved.every((i) => i.recoveredAt === null)).toBe(true);
    expect((await timeline(resolved[0]!.id)).at(-1)?.message).toMatch(/deleted/);

    const paused = await createCheck(t, user);
    await deliver(t, statusChanged(paused, 'OK', 'LATE', later(1)));
    await deliver(t, statusChanged(paused, 'LATE', 'PAUSED', later(2), 'PAUSE'));
    expect((await incidentsOfCheck(paused.id))[0]?.state).toBe('ACTIVE');
    await deliver(t, statusChanged(paused, 'PAUSED', 'RESUMED', later(3), 'DEPLOYMENT'));
    expect((await incidentsOfCheck(paused.id))[0]?.state).toBe('ACTIVE');
    await deliver(t, statusChanged(paused, 'LATE', 'PAUSED', later(4), 'DEPLOYMENT'));
    expect((await incidentsOfCheck(paused.id))[0]?.state).toBe('RESOLVED');
  });

  it("opens from the check a sweep's flip carries, unread; a deletion handled first leaves the flip opening nothing", async () => {
    // The stored check says "nightly backup", P3 when late: the message, as the flip's write saw it, wins.
    const check = await createCheck(t, user);
    const carried = { name: 'renamed since', lateSeverity: 'P4', downSeverity: 'P2' } as const;
    await deliver(t, { ...statusChanged(check, 'OK', 'LATE', later(1)), check: carried });
    expect((await incidentsOfCheck(check.id)).map((i) => [i.title, i.severity])).toEqual([['renamed since is late', 'P4']]);
    await deliver(t, { ...statusChanged(check, 'LATE', 'DOWN', later(2)), check: carried });
    expect((await incidentsOfCheck(check.id)).map((i) => [i.title, i.severity])).toEqual([['renamed since is down', 'P2']]);

    // Deleted after its flip: the deletion's message, handled first, moves the episode past the flip.
    const deleted = await createCheck(t, user);
    expect((await t.request('DELETE', `/checks/${deleted.id}`, { token: user.token })).status).toBe(204);
    await t.deps.queue.drain();
    await deliver(t, { ...statusChanged(deleted, 'OK', 'LATE', later(-1)), check: carried });
    expect(await incidentsOfCheck(deleted.id)).toEqual([]);
  });

  it('opens nothing while a maintenance window suppresses incidents', async () => {
    const project = await t.request<{ id: number }>('POST', '/projects', { token: user.token, body: { workspaceId: user.workspaceId, name: 'maintained' } });
    const check = await createCheck(t, user, { projectId: project.body.id });
    const now = t.clock.now();
    await putHolds(t.deps, [project.body.id], {
      kind: 'MAINTENANCE',
      windowId: 1,
      workspaceId: user.workspaceId,
      startsAt: now.toISOString(),
      endsAt: new Date(now.getTime() + 3_600_000).toISOString(),
      suppressIncidents: true,
      suppressAlerts: true,
    });
    await deliver(t, statusChanged(check, 'OK', 'DOWN', later(1)), reported(check, later(2), [{ name: 'quiet-db', status: 'down' }]));
    expect(await incidentsOfCheck(check.id)).toEqual([]);
    // After the window the next outage opens as usual.
    await deliver(t, statusChanged(check, 'DOWN', 'OK', later(3_700), 'PING'), statusChanged(check, 'OK', 'LATE', later(3_800)));
    expect(await incidentsOfCheck(check.id)).toHaveLength(1);
  });
});

describe('incident worker: a batch', () => {
  it("reads a project's window holds once for a whole batch of its checks' flips, and opens each check's incident", async () => {
    const checks = await Promise.all(Array.from({ length: 5 }, (_, i) => createCheck(t, user, { name: `batch job ${i}` })));
    const send = vi.spyOn(t.deps.store.client, 'send');
    const at = later(1);
    const result = await handleIncidentMessages(
      t.deps,
      checks.map((check, i) => ({ id: `flip-${i}`, body: statusChanged(check, 'OK', 'LATE', at) })),
    );
    const holdQueries = send.mock.calls.filter(([command]) => command.constructor.name === 'QueryCommand' && JSON.stringify(command.input).includes('windowhold'));
    send.mockRestore();
    expect(result.failedIds).toEqual([]);
    // One query for the five messages (core/store/batchReads.ts), where each message used to ask again.
    expect(holdQueries).toHaveLength(1);
    for (const check of checks) expect((await incidentsOfCheck(check.id)).map((i) => i.state)).toEqual(['ACTIVE']);
  });
});

describe('incident worker: reported dependencies', () => {
  it('registers unknown names once, opens one DEPENDENCY_DOWN incident per dependency, resolves it on ok', async () => {
    const check = await createCheck(t, user, { downSeverity: 'P2' });
    const down = reported(check, later(1), [
      { name: 'Postgres', status: 'down' },
      { name: 'stripe-api', status: 'ok' },
    ]);
    await deliver(t, down, down);
    await deliver(t, reported(check, later(2), [{ name: '  postgres ', status: 'down' }]));
    const open = await incidentsOfCheck(check.id);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ reason: 'DEPENDENCY_DOWN', severity: 'P2', state: 'ACTIVE', dependencyName: 'Postgres', dependency: { name: 'Postgres' } });

    const deps = await t.request<{ items: { id: number; name: string; source: string; status: string }[] }>('GET', `/dependencies?workspaceId=${user.workspaceId}&limit=100`, {
      token: user.token,
    });
    const names = deps.body.items.map((d) => d.name);
    expect(names.filter((n) => n.toLowerCase() === 'postgres')).toEqual(['Postgres']);
    expect(deps.body.items.find((d) => d.name === 'Postgres')).toMatchObject({ source: 'REPORTED', status: 'DOWN' });
    expect(deps.body.items.find((d) => d.name === 'stripe-api')).toMatchObject({ status: 'OK' });

    await deliver(t, reported(check, later(3), [{ name: 'POSTGRES', status: 'ok' }]));
    const after = await incidentsOfCheck(check.id);
    expect(after[0]).toMatchObject({ state: 'RESOLVED', recoveredAt: later(3).toISOString() });
  });

  it('registers a new name once when two reports race', async () => {
    const check = await createCheck(t, user);
    const body = reported(check, later(1), [{ name: 'race-cache', status: 'down' }]);
    await Promise.all([handleIncidentMessages(t.deps, [{ id: '1', body }]), handleIncidentMessages(t.deps, [{ id: '2', body }])]);
    const deps = await t.request<{ items: { name: string }[] }>('GET', `/dependencies?workspaceId=${user.workspaceId}&limit=100`, { token: user.token });
    expect(deps.body.items.filter((d) => d.name === 'race-cache')).toHaveLength(1);
    expect(await incidentsOfCheck(check.id)).toHaveLength(1);
  });

  it('opens a dependency incident from a real ping payload', async () => {
    const check = await createCheck(t, user);
    const ping = await t.request('POST', `/signals/ping/${check.token}`, { body: { dependencies: [{ name: 'from-ping', status: 'down' }] } });
    expect(ping.status).toBe(200);
    await t.deps.queue.drain();
    expect((await incidentsOfCheck(check.id))[0]).toMatchObject({ reason: 'DEPENDENCY_DOWN', dependencyName: 'from-ping', lastSignalType: 'SUCCESS' });
  });
});

describe('incident worker: delivery', () => {
  it('drops malformed messages and reports only the failing message of a batch', async () => {
    const inFlight = await createCheck(t, user);
    const healthy = await createCheck(t, user);
    // A claimed episode whose incident is not written yet: an opener still in flight (or crashed).
    await t.deps.store.entities.incidentEpisode.update({ checkId: inFlight.id, episodeKey: 'service' }).set({ openIncidentId: 999_999 }).go();
    const result = await handleIncidentMessages(t.deps, [
      { id: 'junk', body: { type: 'nonsense' } },
      { id: 'recovery', body: statusChanged(inFlight, 'LATE', 'OK', later(5), 'PING') },
      { id: 'late', body: statusChanged(healthy, 'OK', 'LATE', later(1)) },
    ]);
    expect(result.failedIds).toEqual(['recovery']);
    expect(await incidentsOfCheck(healthy.id)).toHaveLength(1);

    // The opener's redelivery completes the claimed incident, then the retried recovery resolves it.
    await deliver(t, statusChanged(inFlight, 'OK', 'LATE', later(1)));
    const healed = await incidentsOfCheck(inFlight.id);
    expect(healed.map((i) => i.id)).toEqual([999_999]);
    expect(await handleIncidentMessages(t.deps, [{ id: 'recovery', body: statusChanged(inFlight, 'LATE', 'OK', later(5), 'PING') }])).toEqual({ failedIds: [] });
    expect((await incidentsOfCheck(inFlight.id))[0]?.state).toBe('RESOLVED');
  });

  it('quietly acknowledges latency and SSL-expiry warnings still in flight from before they moved to the alerts queue', async () => {
    const check = await createCheck(t, user);
    const base = { checkId: check.id, workspaceId: check.workspaceId, projectId: check.projectId, at: later(1).toISOString() };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const result = await handleIncidentMessages(t.deps, [
      { id: 'slow', body: { type: 'check.latency_warning', ...base, latencyMs: 900, thresholdMs: 500 } },
      { id: 'cert', body: { type: 'check.ssl_expiry_warning', ...base, sslExpiresAt: later(86_400).toISOString(), daysLeft: 1, thresholdDays: 14 } },
    ]);
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
    expect(result).toEqual({ failedIds: [] });
    expect(await incidentsOfCheck(check.id)).toHaveLength(0);
  });
});
