import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { emailChannel, mailTo } from '../alerting/testSupport.js';
import { listIncidentEvents } from '../incidents/repository.js';
import { createJob, type Job } from '../signals/test-support.js';
import { atEveryCrashPoint } from './testSupport.js';

/**
 * Every state change that owes messages, crashed after each of its writes in turn and then swept:
 * the owed effect happens exactly once (one incident, one alert per recipient, one resolution).
 * The queue is drained by hand, so what a step published is delivered only when the test says.
 */
let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
let channels: { id: number; email: string }[];
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1' });
  user = await t.signup('crasher');
  key = await t.apiKey(user);
  channels = [await emailChannel(t, user), await emailChannel(t, user)];
});

const ping = (job: Job, kind = '') => t.request('GET', `/signals/ping/${job.token}${kind}`);
const incidentsOf = async (checkId: number) => (await t.deps.store.entities.incident.query.byCheck({ checkId }).go({ pages: 'all' })).data;
/** What each channel was mailed about the job, in order (headlines only). */
const mailsAbout = (job: { name: string }) =>
  channels.map((channel) =>
    mailTo(t, channel.email)
      .filter((mail) => mail.subject.includes(job.name))
      .map((mail) => mail.subject.split(':')[0]),
  );
const eachChannel = <T>(value: T): T[] => channels.map(() => value);

/** A job that pinged and then failed: DOWN, with its incident open and mailed. */
async function downJob(): Promise<Job & { name: string }> {
  const job = await createJob(t, user, key);
  const name = (await t.request<{ name: string }>('GET', `/v1/jobs/${job.id}`, { token: key })).body.name;
  await ping(job);
  t.clock.advanceSeconds(2);
  await ping(job, '/fail');
  await t.deps.queue.drain();
  return { ...job, name };
}

describe('a crash after any write of a state change, then a sweep: the effect happens once', () => {
  it('check deleted: its open incident resolves once, and the resolution is mailed once per channel', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: downJob,
      act: (job) => t.request('DELETE', `/v1/jobs/${job.id}`, { token: key }),
      verify: async (job, after) => {
        const incidents = await incidentsOf(job.id);
        expect(incidents.map((i) => `${after}: ${i.state}`)).toEqual([`${after}: RESOLVED`]);
        const events = await listIncidentEvents(t.deps, incidents[0]!.incidentId);
        expect(events.filter((e) => e.type === 'RESOLVED')).toHaveLength(1);
        expect(mailsAbout(job)).toEqual(eachChannel(['[P1] Incident opened', '[P1] Incident resolved']));
        expect((await t.request('GET', `/v1/jobs/${job.id}`, { token: key })).status).toBe(404);
      },
    });
    expect(points).toBeGreaterThanOrEqual(1);
  });
});
