import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { emailChannel, mailTo } from '../../test/support/alerting.js';
import { createCheck, LONG_SESSIONS, outboundBody } from '../../test/support/checks.js';
import { listIncidentEvents } from '../incidents/repository.js';
import { startLoopbackServer } from '../../test/support/outbound.js';
import { runRound } from '../../test/support/probes.js';
import { sweepHeartbeats } from '../sweep/index.js';
import { sweepMissedRuns } from '../sweep/missedRuns.js';
import { randomUUID } from 'node:crypto';
import { checkOf, createJob, signalsOf, type Job } from '../../test/support/signals.js';
import { atEveryCrashPoint } from '../../test/support/outbox.js';

/**
 * Every state change that owes messages, crashed after each of its writes in turn and then swept:
 * the owed effect happens exactly once (one incident, one alert per recipient, one resolution).
 * The queue is drained by hand, so what a step published is delivered only when the test says.
 */
let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
let channels: { id: number; email: string }[];
let broken: Awaited<ReturnType<typeof startLoopbackServer>>;
afterAll(() => broken.close());
beforeAll(async () => {
  t = await createTestContext({ VIGIL_PROBE_ALLOW_PRIVATE: '1', ...LONG_SESSIONS });
  broken = await startLoopbackServer((_request, response) => {
    response.writeHead(500);
    response.end('broken');
  });
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

/** A job that pinged once: OK, nothing owed. In a project of its own when asked (deployments act per project). */
async function okJob(options: { ownProject?: boolean } = {}): Promise<Job & { name: string; projectId: number }> {
  let projectId = user.projectId;
  if (options.ownProject) {
    const project = await t.request<{ id: number }>('POST', '/projects', {
      token: user.token,
      body: { workspaceId: user.workspaceId, name: `deploys ${Math.random().toString(36).slice(2)}` },
    });
    expect(project.status, project.text).toBe(201);
    projectId = project.body.id;
  }
  const job = await createJob(t, user, key, { projectId });
  const name = (await t.request<{ name: string }>('GET', `/v1/jobs/${job.id}`, { token: key })).body.name;
  await ping(job);
  await t.deps.queue.drain();
  t.clock.advanceSeconds(2);
  return { ...job, name, projectId };
}

/** A job that pinged and then failed: DOWN, with its incident open and mailed. */
async function downJob(options: { ownProject?: boolean } = {}): Promise<Job & { name: string; projectId: number }> {
  const job = await okJob(options);
  await ping(job, '/fail');
  await t.deps.queue.drain();
  t.clock.advanceSeconds(2);
  return job;
}

/** The one incident of a check and how many timeline events of `type` it has. */
async function theIncident(checkId: number, after: number) {
  const incidents = await incidentsOf(checkId);
  expect(incidents.map(() => after)).toEqual([after]);
  const incident = incidents[0]!;
  const events = await listIncidentEvents(t.deps, incident.incidentId);
  return { incident, count: (type: string) => events.filter((e) => e.type === type).length };
}

describe('a crash after any write of a state change, then a sweep: the effect happens once', { timeout: 90_000 }, () => {
  it('a /fail ping: the check is DOWN, one incident opens and each channel is mailed once', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: okJob,
      act: async (job) => {
        await ping(job, '/fail');
        await t.deps.queue.drain();
      },
      verify: async (job, after) => {
        expect((await checkOf(t, job.token)).status).toBe('DOWN');
        const { incident, count } = await theIncident(job.id, after);
        expect([incident.state, count('OPENED')]).toEqual(['ACTIVE', 1]);
        expect(mailsAbout(job)).toEqual(eachChannel(['[P1] Incident opened']));
      },
    });
    expect(points).toBeGreaterThanOrEqual(8);
  });

  it('a recovering ping: the incident resolves once and each channel hears it once; a retried ping is not swallowed', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: downJob,
      act: async (job) => {
        const answer = await ping(job);
        await t.deps.queue.drain();
        // A client that saw the crash sends the ping again at once.
        if (answer.status !== 200) await ping(job);
        await t.deps.queue.drain();
      },
      verify: async (job, after) => {
        expect((await checkOf(t, job.token)).status).toBe('OK');
        expect((await signalsOf(t, job.id)).filter((s) => s.type === 'SUCCESS').length).toBeGreaterThanOrEqual(2);
        const { incident, count } = await theIncident(job.id, after);
        expect([incident.state, count('RESOLVED')]).toEqual(['RESOLVED', 1]);
        expect(mailsAbout(job)).toEqual(eachChannel(['[P1] Incident opened', '[P1] Incident resolved']));
      },
    });
    expect(points).toBeGreaterThanOrEqual(7);
  });

  it('a missed heartbeat: the sweep flips the check once, one incident opens and each channel is mailed once', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: async () => {
        const job = await okJob();
        t.clock.advanceSeconds(60);
        return job;
      },
      act: async () => {
        await sweepHeartbeats(t.deps, t.clock.now());
        await t.deps.queue.drain();
      },
      verify: async (job, after) => {
        expect((await checkOf(t, job.token)).status).toBe('DOWN');
        // The sweep's own FAIL signal is a record, not a message: never doubled, but a crash right after the flip loses it.
        expect((await signalsOf(t, job.id)).filter((s) => s.type === 'FAIL').length).toBeLessThanOrEqual(1);
        const { incident, count } = await theIncident(job.id, after);
        expect([incident.state, count('OPENED')]).toEqual(['ACTIVE', 1]);
        expect(mailsAbout(job)).toEqual(eachChannel(['[P1] Incident opened']));
      },
    });
    expect(points).toBeGreaterThanOrEqual(8);
  });

  it('a missed run: the sweep fails the job once, one incident opens and each channel is mailed once', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: async () => {
        // Hourly, so only the run (not the heartbeat) can be missed here.
        const job = await createJob(t, user, key, { intervalSeconds: 3600, graceSeconds: 60 });
        const name = (await t.request<{ name: string }>('GET', `/v1/jobs/${job.id}`, { token: key })).body.name;
        await ping(job);
        await t.deps.queue.drain();
        t.clock.advanceSeconds(2);
        await ping(job, `/start?rid=${randomUUID()}`);
        t.clock.advanceSeconds(61);
        return { ...job, name };
      },
      act: async () => {
        await sweepMissedRuns(t.deps, t.clock.now());
        await t.deps.queue.drain();
      },
      verify: async (job, after) => {
        expect((await checkOf(t, job.token)).status).toBe('DOWN');
        // As with a missed heartbeat, the FAIL signal is a record: never doubled, lost to a crash right after the flip.
        expect((await signalsOf(t, job.id)).filter((s) => s.type === 'FAIL').length).toBeLessThanOrEqual(1);
        const { incident, count } = await theIncident(job.id, after);
        expect([incident.state, count('OPENED')]).toEqual(['ACTIVE', 1]);
        expect(mailsAbout(job)).toEqual(eachChannel(['[P1] Incident opened']));
      },
    });
    expect(points).toBeGreaterThanOrEqual(3);
  });

  it('a deployment pause: the incident of a DOWN check resolves once', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: () => downJob({ ownProject: true }),
      act: async (job) => {
        await t.request('POST', '/v1/deployments', { token: key, body: { projectId: job.projectId, autoPause: true } });
        await t.deps.queue.drain();
      },
      verify: async (job, after) => {
        expect((await checkOf(t, job.token)).status).toBe('PAUSED');
        const { incident, count } = await theIncident(job.id, after);
        expect([incident.state, count('RESOLVED')]).toEqual(['RESOLVED', 1]);
        expect(mailsAbout(job)).toEqual(eachChannel(['[P1] Incident opened', '[P1] Incident resolved']));
      },
    });
    expect(points).toBeGreaterThanOrEqual(9);
  });

  it('an acknowledgement: acknowledged once, and each channel hears it once', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: async () => {
        const job = await downJob();
        return { job, incidentId: (await incidentsOf(job.id))[0]!.incidentId };
      },
      act: async ({ incidentId }) => {
        const answer = await t.request('POST', `/v1/incidents/${incidentId}/acknowledge`, { token: key });
        await t.deps.queue.drain();
        if (answer.status !== 200) await t.request('POST', `/v1/incidents/${incidentId}/acknowledge`, { token: key });
        await t.deps.queue.drain();
      },
      verify: async ({ job }, after) => {
        const { incident, count } = await theIncident(job.id, after);
        expect([incident.state, incident.acknowledgedAt !== undefined, count('ACKNOWLEDGED')]).toEqual(['ACTIVE', true, 1]);
        expect(mailsAbout(job)).toEqual(eachChannel(['[P1] Incident opened', '[P1] Incident acknowledged']));
      },
    });
    expect(points).toBeGreaterThanOrEqual(4);
  });

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
    expect(points).toBeGreaterThanOrEqual(2);
  });

  it('a probe round that finds the site down: one incident opens and each channel is mailed once', async () => {
    const points = await atEveryCrashPoint(t, {
      setup: async () => {
        const name = `site ${Math.random().toString(36).slice(2)}`;
        const check = await createCheck(t, user, outboundBody(user, { name, url: `${broken.origin}/`, regions: ['us-east-1'], failAfterConsecutive: 1 }));
        return { id: check.id, name };
      },
      act: async (check) => {
        await runRound(t, check.id);
        await t.deps.queue.drain();
      },
      verify: async (check, after) => {
        const { incident, count } = await theIncident(check.id, after);
        expect([incident.state, count('OPENED')]).toEqual(['ACTIVE', 1]);
        expect(mailsAbout(check)).toEqual(eachChannel(['[P1] Incident opened']));
        // Stop probing it, so that later sweeps leave it be.
        await t.request('DELETE', `/checks/${check.id}`, { token: user.token });
        await t.deps.queue.drain();
      },
    });
    expect(points).toBeGreaterThanOrEqual(2);
  });
});
