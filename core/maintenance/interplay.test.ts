import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import type { Page } from '../http/pagination.js';
import { windowEffects } from '../windows/holds.js';
import { createJob, isoIn, jobNow, member, minutes, ok, ping, session, sweep, v1, type Job, type User } from '../../test/support/windows.js';
import type { MaintenanceWindowView } from './schema.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await member(t, 'oncall');
});

const project = async (): Promise<User> => ({ ...user, projectId: ok(await v1<{ id: number }>(t, user.key, 'POST', '/projects', { name: 'svc' }), 201).id });
const window = async (owner: User, body: Record<string, unknown>) =>
  ok(await v1<MaintenanceWindowView>(t, user.key, 'POST', '/maintenance-windows', { name: 'upgrade', endAt: isoIn(t, minutes(30)), projectIds: [owner.projectId], ...body }), 201);
const incidents = async (job: Job) =>
  ok(await t.request<Page<{ state: string }>>('GET', `/incidents?workspaceId=${user.workspaceId}&checkId=${job.id}`, { token: await session(t, user) }), 200).items;
const failPing = async (job: Job) => {
  t.clock.advance(2000); // past the 1-second dedup window of the previous ping
  ok(await t.request('GET', `/signals/ping/${job.token}/fail`), 200);
  await t.deps.queue.drain();
};
const signalCount = async (job: Job) => ok(await t.request<Page<unknown>>('GET', `/signals/token/${job.token}`, { token: await session(t, user) }), 200).total;

describe('maintenance windows and incidents', () => {
  it('a DOWN during a window with suppressIncidents opens no incident; pings keep being recorded; after the window it does', async () => {
    const owner = await project();
    const job = await createJob(t, owner);
    await ping(t, job);
    const w = await window(owner, {});
    expect(w.state).toBe('ACTIVE');

    await failPing(job);
    expect((await jobNow(t, user, job)).status).toBe('DOWN');
    expect(await incidents(job)).toEqual([]);
    expect(await signalCount(job)).toBe(2);

    // The sweep holds heartbeats too while incidents are suppressed.
    t.clock.advance(2000);
    await ping(t, job);
    t.clock.advance(minutes(10));
    await sweep(t);
    expect((await jobNow(t, user, job)).status).toBe('OK');
    expect(await incidents(job)).toEqual([]);

    t.clock.advance(minutes(21));
    await sweep(t);
    const after = ok(await v1<Page<MaintenanceWindowView>>(t, user.key, 'GET', `/maintenance-windows?projectId=${owner.projectId}`), 200).items[0];
    expect(after).toMatchObject({ id: w.id, state: 'COMPLETED' });
    expect((await jobNow(t, user, job)).status).toBe('DOWN');
    expect((await incidents(job)).map((i) => i.state)).toEqual(['ACTIVE']);
  });

  it('without suppressIncidents, or on another project, or before a scheduled start, incidents open as usual', async () => {
    const alertsOnly = await project();
    const a = await createJob(t, alertsOnly);
    await ping(t, a);
    await window(alertsOnly, { suppressIncidents: false });
    const effects = await windowEffects(t.deps, { workspaceId: user.workspaceId, projectId: alertsOnly.projectId }, t.clock.now());
    expect(effects).toEqual({ deploymentActive: false, suppressIncidents: false, suppressAlerts: true });
    await failPing(a);
    expect((await incidents(a)).map((i) => i.state)).toEqual(['ACTIVE']);

    const elsewhere = await project();
    const b = await createJob(t, elsewhere);
    await ping(t, b);
    await failPing(b);
    expect((await incidents(b)).map((i) => i.state)).toEqual(['ACTIVE']);

    const later = await project();
    const c = await createJob(t, later);
    await ping(t, c);
    expect((await window(later, { startAt: isoIn(t, minutes(5)) })).state).toBe('SCHEDULED');
    await failPing(c);
    expect((await incidents(c)).map((i) => i.state)).toEqual(['ACTIVE']);
  });

  it('cancelling a window stops suppression at once', async () => {
    const owner = await project();
    const job = await createJob(t, owner);
    await ping(t, job);
    const w = await window(owner, {});
    ok(await t.request('POST', `/maintenance-windows/${w.id}/cancel`, { token: await session(t, user) }), 200);
    await failPing(job);
    expect((await incidents(job)).map((i) => i.state)).toEqual(['ACTIVE']);
  });
});
