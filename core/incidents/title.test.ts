import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createJob, member, ok, ping, sweep, v1, type User } from '../../test/support/windows.js';

type Incident = { id: number; title: string; severity: string; state: string };

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await member(t, 'titles');
});

const incidentsOf = async (jobId: number) => ok(await v1<{ items: Incident[] }>(t, user.key, 'GET', `/incidents?checkId=${jobId}`), 200).items;

describe('the title of a check incident follows the check', () => {
  it('goes from "is late" to "is down" when the job goes DOWN, with its severity raised', async () => {
    const job = await createJob(t, user, { name: 'nightly export', lateSeverity: 'P3', downSeverity: 'P1' });
    await ping(t, job);
    t.clock.advanceSeconds(66);
    await sweep(t);
    expect((await incidentsOf(job.id)).map((i) => [i.title, i.severity])).toEqual([['nightly export is late', 'P3']]);
    t.clock.advanceSeconds(5);
    await sweep(t);
    expect((await incidentsOf(job.id)).map((i) => [i.title, i.severity])).toEqual([['nightly export is down', 'P1']]);
  });

  it('says "is down" too when late and down have the same severity (nothing is raised)', async () => {
    const job = await createJob(t, user, { name: 'hourly sync', lateSeverity: 'P2', downSeverity: 'P2' });
    await ping(t, job);
    t.clock.advanceSeconds(66);
    await sweep(t);
    t.clock.advanceSeconds(5);
    await sweep(t);
    const [incident, ...others] = await incidentsOf(job.id);
    expect(others).toEqual([]);
    expect(incident).toMatchObject({ title: 'hourly sync is down', severity: 'P2', state: 'ACTIVE' });
    // The recovery resolves it under that title.
    await ping(t, job);
    await t.deps.queue.drain();
    expect((await incidentsOf(job.id)).map((i) => [i.title, i.state])).toEqual([['hourly sync is down', 'RESOLVED']]);
  });
});
