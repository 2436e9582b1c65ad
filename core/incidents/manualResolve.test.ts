import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { applyIncidentInput } from './repository.js';
import { createCheck, deliver, incidentsOf, reported, statusChanged, type CreatedCheck, type IncidentBody, type User } from '../../test/support/incidents.js';
import { handleIncidentMessages } from './worker.js';

/** A manual resolve while the outage goes on: the check must recover before a new incident opens. */
let t: TestContext;
let owner: User;
beforeAll(async () => {
  t = await createTestContext();
  owner = await t.signup('resolver');
});

const at = (seconds: number): Date => new Date(t.clock.now().getTime() + seconds * 1000);
const incidentsOfCheck = async (check: CreatedCheck): Promise<IncidentBody[]> => (await incidentsOf(t, owner, `&checkId=${check.id}`)).items;
const summary = async (check: CreatedCheck) => (await incidentsOfCheck(check)).map((i) => [i.state, i.severity]);

async function resolveByHand(incidentId: number): Promise<void> {
  const res = await t.request('POST', `/incidents/${incidentId}/resolve`, { token: owner.token });
  expect(res.status).toBe(200);
  await t.deps.queue.drain();
}

/** A check whose LATE opened an incident that a person then resolved while the check stayed LATE. */
async function resolvedWhileLate(): Promise<{ check: CreatedCheck; incident: IncidentBody }> {
  const check = await createCheck(t, owner, { lateSeverity: 'P3', downSeverity: 'P1' });
  await deliver(t, statusChanged(check, 'OK', 'LATE', at(-60)));
  const [incident] = await incidentsOfCheck(check);
  if (!incident) throw new Error('no incident opened');
  await resolveByHand(incident.id);
  return { check, incident };
}

describe('manual resolve during an outage', () => {
  it('opens nothing for the same outage going DOWN later; after a recovery the next outage opens a new incident', async () => {
    const { check, incident } = await resolvedWhileLate();
    await deliver(t, statusChanged(check, 'LATE', 'DOWN', at(30)));
    expect(await summary(check)).toEqual([['RESOLVED', 'P3']]);
    const events = await t.request<{ type: string }[]>('GET', `/incident-events/${incident.id}`, { token: owner.token });
    expect(events.body.map((e) => e.type)).toEqual(['OPENED', 'RESOLVED']);

    // The recovery resolves nothing (nothing is open) and ends the outage.
    await deliver(t, statusChanged(check, 'DOWN', 'OK', at(60), 'PING'));
    expect(await summary(check)).toEqual([['RESOLVED', 'P3']]);
    // Redelivered, the old DOWN is older than the recovery: still nothing.
    await deliver(t, statusChanged(check, 'LATE', 'DOWN', at(30)));
    expect(await incidentsOfCheck(check)).toHaveLength(1);

    await deliver(t, statusChanged(check, 'OK', 'LATE', at(90)));
    const [opened, first] = await incidentsOfCheck(check);
    expect(first?.id).toBe(incident.id);
    expect(opened).toMatchObject({ state: 'ACTIVE', severity: 'P3', startedAt: at(90).toISOString() });
  });

  it('holds against copies of the DOWN arriving at once', async () => {
    const { check } = await resolvedWhileLate();
    const down = statusChanged(check, 'LATE', 'DOWN', at(30));
    const results = await Promise.all([0, 1, 2].map((n) => handleIncidentMessages(t.deps, [{ id: `down-${n}`, body: down }])));
    expect(results.flatMap((r) => r.failedIds)).toEqual([]);
    expect(await summary(check)).toEqual([['RESOLVED', 'P3']]);
  });

  it('counts a recovery during the outage that arrives after the resolve, but not one from before the outage', async () => {
    const stale = await resolvedWhileLate();
    await deliver(t, statusChanged(stale.check, 'LATE', 'OK', at(-90), 'PING'));
    await deliver(t, statusChanged(stale.check, 'OK', 'LATE', at(30)));
    expect(await summary(stale.check)).toEqual([['RESOLVED', 'P3']]);

    const delayed = await resolvedWhileLate();
    await deliver(t, statusChanged(delayed.check, 'LATE', 'OK', at(-30), 'PING'));
    await deliver(t, statusChanged(delayed.check, 'OK', 'LATE', at(30)));
    expect(await summary(delayed.check)).toEqual([
      ['ACTIVE', 'P3'],
      ['RESOLVED', 'P3'],
    ]);
  });

  it('lets monitoring start afresh after a pause and resume', async () => {
    const { check } = await resolvedWhileLate();
    await deliver(t, statusChanged(check, 'LATE', 'PAUSED', at(10), 'PAUSE'), statusChanged(check, 'PAUSED', 'RESUMED', at(20), 'RESUME'));
    expect(await incidentsOfCheck(check)).toHaveLength(1);
    await deliver(t, statusChanged(check, 'RESUMED', 'LATE', at(400)));
    expect(await summary(check)).toEqual([
      ['ACTIVE', 'P3'],
      ['RESOLVED', 'P3'],
    ]);
  });

  it('holds a dependency episode until the dependency is reported ok', async () => {
    const check = await createCheck(t, owner);
    await deliver(t, reported(check, at(-60), [{ name: 'payments', status: 'down' }]));
    const [incident] = await incidentsOfCheck(check);
    await resolveByHand(incident!.id);
    await deliver(t, reported(check, at(10), [{ name: 'payments', status: 'down' }]));
    expect(await incidentsOfCheck(check)).toHaveLength(1);
    await deliver(t, reported(check, at(20), [{ name: 'payments', status: 'ok' }]), reported(check, at(30), [{ name: 'payments', status: 'down' }]));
    expect((await incidentsOfCheck(check)).map((i) => [i.state, i.reason])).toEqual([
      ['ACTIVE', 'DEPENDENCY_DOWN'],
      ['RESOLVED', 'DEPENDENCY_DOWN'],
    ]);
  });

  it('holds too when the release was cut short by a crash, but not after a recovery cut short the same way', async () => {
    const { check, incident } = await resolvedWhileLate();
    // The pointer survived the manual resolve (a crash between the incident write and the release).
    const episode = { checkId: check.id, episodeKey: 'service' };
    await t.deps.store.entities.incidentEpisode.update(episode).set({ openIncidentId: incident.id }).remove(['awaitingRecoverySince']).go();
    await deliver(t, statusChanged(check, 'LATE', 'DOWN', at(30)));
    expect(await summary(check)).toEqual([['RESOLVED', 'P3']]);

    const recovered = await createCheck(t, owner);
    await deliver(t, statusChanged(recovered, 'OK', 'LATE', at(-60)));
    const [open] = await incidentsOfCheck(recovered);
    // Resolved by the recovery, whose release never happened.
    await applyIncidentInput(t.deps, open!.id, { type: 'resolve', cause: 'RECOVERED', at: at(-30).toISOString() }, t.clock.now());
    await deliver(t, statusChanged(recovered, 'OK', 'LATE', at(30)));
    expect((await incidentsOfCheck(recovered)).map((i) => i.state)).toEqual(['ACTIVE', 'RESOLVED']);
  });
});
