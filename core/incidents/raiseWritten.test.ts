import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createCheck, deliver, incidentsOf, statusChanged, type User } from '../../test/support/incidents.js';
import type { Deps } from '../deps.js';
import { resolveByHand } from './incidents.js';
import { applyIncidentInput } from './repository.js';

/**
 * A DOWN's raise starts from the incident as this process last wrote it, unread
 * (core/incidents/episodes.ts raiseWritten), its write conditional on the revision remembered. Each
 * way the memory can be wrong reads the incident as before: written since by another process, resolved
 * by a person, or not remembered at all (a restart).
 */
let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('raise-written');
});

const later = (seconds: number): Date => new Date(t.clock.now().getTime() + seconds * 1000);
/** Another process on the same table: its own store object, so none of this one's memory (core/store/storeMemo.ts). */
const elsewhere = (): Deps => ({ ...t.deps, store: { ...t.deps.store } });

/** The incident requests `work` makes, as `<command>` -> count. */
async function incidentRequests(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const name = `incident-requests-${Math.random().toString(36).slice(2)}`;
  const counts: Record<string, number> = {};
  const stacks = [t.deps.store.client.middlewareStack, t.deps.store.hot.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        const command = (context.commandName ?? '?').replace(/Command$/, '');
        if (JSON.stringify(args.input).includes('"$incident_1"')) counts[command] = (counts[command] ?? 0) + 1;
        return next(args);
      },
      { step: 'initialize', name },
    );
  }
  try {
    await work();
  } finally {
    for (const stack of stacks) stack.remove(name);
  }
  return counts;
}

async function openedLate() {
  const check = await createCheck(t, user, { lateSeverity: 'P3', downSeverity: 'P1' });
  await deliver(t, statusChanged(check, 'OK', 'LATE', later(1)));
  const [incident] = (await incidentsOf(t, user, `&checkId=${check.id}`)).items;
  if (!incident) throw new Error('the LATE opened no incident');
  return { check, incidentId: incident.id };
}

const incidentsOfCheck = async (checkId: number) => (await incidentsOf(t, user, `&checkId=${checkId}`)).items.map((i) => [i.state, i.severity, i.title]);

describe('a raise from the incident this process wrote', () => {
  it('reads nothing when it wrote the incident last', async () => {
    const { check } = await openedLate();
    const requests = await incidentRequests(() => deliver(t, statusChanged(check, 'LATE', 'DOWN', later(2))));
    // The raise's write and its outbox clear; no get.
    expect(requests).toEqual({ UpdateItem: 2 });
    expect(await incidentsOfCheck(check.id)).toEqual([['ACTIVE', 'P1', 'nightly backup is down']]);
  });

  it('written since by another process: the write on the remembered revision is refused, the incident read, the raise made', async () => {
    const { check, incidentId } = await openedLate();
    await applyIncidentInput(elsewhere(), incidentId, { type: 'acknowledge', by: { kind: 'system' } }, t.clock.now());
    // Its alert (published: a write outside a queue consumer) goes out before the requests are counted.
    await t.deps.queue.drain();
    const requests = await incidentRequests(() => deliver(t, statusChanged(check, 'LATE', 'DOWN', later(2))));
    // The refused write, the get, the raise, its outbox clear.
    expect(requests).toEqual({ UpdateItem: 3, GetItem: 1 });
    const [incident] = (await incidentsOf(t, user, `&checkId=${check.id}`)).items;
    expect([incident?.severity, incident?.acknowledgedAt !== null]).toEqual(['P1', true]);
  });

  it('resolved by a person in another process: the episode is read as before, and the outage opens nothing new', async () => {
    const { check, incidentId } = await openedLate();
    await resolveByHand(elsewhere(), incidentId, { kind: 'apiKey', apiKeyId: 1, name: 'ops' }, t.clock.now());
    await t.deps.queue.drain();
    await deliver(t, statusChanged(check, 'LATE', 'DOWN', later(2)));
    // The episode awaits the check's recovery: the same outage has had its incident.
    expect(await incidentsOfCheck(check.id)).toEqual([['RESOLVED', 'P3', 'nightly backup is late']]);
    // And the memory is gone: the next outage after a recovery opens its own incident.
    await deliver(t, statusChanged(check, 'DOWN', 'OK', later(3)), statusChanged(check, 'OK', 'DOWN', later(4)));
    expect((await incidentsOfCheck(check.id)).map(([state]) => state)).toEqual(['ACTIVE', 'RESOLVED']);
  });

  it('not remembered (another process, or this one after a restart): the incident is read first', async () => {
    const { check } = await openedLate();
    const down = { id: 'down', body: statusChanged(check, 'LATE', 'DOWN', later(2)) };
    const { handleIncidentMessages } = await import('./worker.js');
    const requests = await incidentRequests(() => handleIncidentMessages(elsewhere(), [down]));
    // The episode's get finds the incident's id, then the incident is read, raised and cleared.
    expect(requests).toEqual({ GetItem: 1, UpdateItem: 2 });
    expect(await incidentsOfCheck(check.id)).toEqual([['ACTIVE', 'P1', 'nightly backup is down']]);
  });
});
