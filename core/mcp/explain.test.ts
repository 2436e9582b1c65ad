import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../../test/harness.js';
import { probeContext, runRound, targetServer } from '../../test/support/probes.js';
import { runSweep } from '../sweep/index.js';
import { connect, ok, serveApp } from '../../test/support/mcp.js';

type Explanation = {
  summary: string;
  status: string;
  since: string | null;
  sinceExact: boolean;
  check: { id: number; lastPingAt: string | null };
  lateAt: string | null;
  downAt: string | null;
  recentSignals: { type: string; source: string; receivedAt: string; payloadPreview: string | null }[];
  probe: { consecutiveFailures: number; regions: { region: string; ok: boolean | null; statusCode: number | null; failureReason: string | null }[] } | null;
  openIncident: { id: number; severity: string; state: string; startedAt: string; events: { type: string; message: string }[] } | null;
  holds: { kind: string }[];
  dependencies: { name: string; status: string }[];
  onCall: { note: string };
};

let t: TestContext;
let origin: string;
let close: () => Promise<void>;
let client: Client;
let projectId: number;
beforeAll(async () => {
  // Probes may reach the loopback target of the HTTP scenario.
  t = await probeContext();
  ({ origin, close } = await serveApp(t));
  const owner = await t.signup('explain');
  projectId = owner.projectId;
  client = await connect(origin, await t.apiKey(owner));
});
afterAll(async () => {
  await client.close();
  await close();
});

async function createJob(name: string): Promise<{ id: number; token: string }> {
  const job = await ok<{ check: { id: number }; pingUrl: string }>(client, 'create_job', {
    name,
    projectId,
    intervalSeconds: 300,
    graceSeconds: 60,
    lateSeverity: 'P3',
    downSeverity: 'P1',
  });
  return { id: job.data.check.id, token: job.data.pingUrl.split('/').pop() ?? '' };
}

async function sweepAt(seconds: number): Promise<string> {
  t.clock.advanceSeconds(seconds);
  await runSweep(t.deps);
  await t.deps.queue.drain();
  return t.clock.now().toISOString();
}

const explain = async (check: number | string) => (await ok<Explanation>(client, 'explain_check', { check })).data;

describe('explain_check: a heartbeat job that misses its pings', () => {
  it('answers in one call: DOWN, since when, the last ping, the incident and its events', async () => {
    const job = await createJob('nightly backup');
    const pingedAt = t.clock.now().toISOString();
    expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);

    const healthy = await explain(job.id);
    expect(healthy).toMatchObject({ status: 'OK', since: pingedAt, openIncident: null, lateAt: new Date(Date.parse(pingedAt) + 360_000).toISOString() });
    const dueBy = new Date(Date.parse(pingedAt) + 300_000).toISOString();
    expect(healthy.summary).toContain(`Last ping at ${pingedAt}; next due by ${dueBy}, LATE after ${healthy.lateAt} without a ping.`);
    // Within the 60 s of grace a late ping is tolerated: still OK.
    await sweepAt(360);
    expect((await explain(job.id)).status).toBe('OK');
    expect(healthy.summary).toMatch(/^nightly backup \(#\d+, heartbeat job\) is OK since at least .*Last ping at /);

    const lateAt = await sweepAt(1);
    const late = await explain(job.id);
    expect(late).toMatchObject({ status: 'LATE', since: lateAt, sinceExact: true, openIncident: { severity: 'P3', startedAt: lateAt } });
    expect(late.summary).toContain(
      `No ping since ${pingedAt}; it was due by ${dueBy}, turned LATE after its 60s grace at ${healthy.lateAt}, and it turns DOWN at ${late.downAt} unless it pings.`,
    );
    const downAt = await sweepAt(60);

    const down = await explain(job.id);
    expect(down).toMatchObject({
      status: 'DOWN',
      since: downAt,
      sinceExact: true,
      check: { id: job.id, lastPingAt: pingedAt },
      downAt: new Date(Date.parse(pingedAt) + 420_000).toISOString(),
      holds: [],
      onCall: { note: 'no schedule' },
    });
    expect(down.recentSignals.map((s) => `${s.type}/${s.source}`)).toEqual(['FAIL/SYSTEM', 'SUSPECT/SYSTEM', 'SUCCESS/PING']);
    expect(down.openIncident).toMatchObject({ state: 'ACTIVE', severity: 'P1', startedAt: lateAt });
    expect(down.openIncident?.events.map((e) => e.type)).toEqual(['OPENED', 'SEVERITY_CHANGED']);
    expect(down.summary).toBe(
      `nightly backup (#${job.id}, heartbeat job) is DOWN since ${downAt}. No ping since ${pingedAt}; it was due by ` +
        `${dueBy}, turned LATE after its 60s grace at ${healthy.lateAt} and DOWN after 60s more at ${down.downAt}. Incident #${down.openIncident?.id} (P1, ACTIVE) open since ` +
        `${lateAt}, not acknowledged. No deployment or maintenance window holds it. On call: no schedule.`,
    );

    // The text a model reads leads with the same summary.
    const asText = await ok(client, 'explain_check', { check: job.id });
    expect(asText.text.split('\n')[0]).toBe(down.summary);
  });

  it('quotes the failure a job reported, its dependencies, and the window holding it', async () => {
    const job = await createJob('etl');
    const failedAt = t.clock.now().toISOString();
    const fail = await t.request('POST', `/signals/ping/${job.token}/fail`, { body: { error: 'disk full on /var', dependencies: [{ name: 'warehouse-db', status: 'down' }] } });
    expect(fail.status).toBe(200);
    await t.deps.queue.drain();
    await ok(client, 'open_maintenance_window', {
      name: 'warehouse upgrade',
      endAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
      suppressAlerts: true,
      suppressIncidents: false,
    });

    const down = await explain(job.id);
    expect(down).toMatchObject({ status: 'DOWN', since: failedAt, dependencies: [{ name: 'warehouse-db', status: 'DOWN' }], holds: [{ kind: 'MAINTENANCE' }] });
    expect(down.recentSignals[0]?.payloadPreview).toContain('disk full on /var');
    expect(down.summary).toContain(`The job reported a failure at ${failedAt}: {"error":"disk full on /var"`);
    expect(down.summary).toContain('Reported dependencies down: warehouse-db.');
    expect(down.summary).toMatch(/Held by maintenance #\d+ \(no alerts\)\./);
  });
});

describe('explain_check: an HTTP check failing in every region', () => {
  it('gives each region its latest run with the failure reason, and the incident', async () => {
    const target = await targetServer();
    target.status = 503;
    try {
      const created = await ok<{ check: { id: number } }>(client, 'create_http_check', {
        name: 'api',
        projectId,
        intervalSeconds: 60,
        config: { url: `${target.origin}/health`, regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'], failAfterConsecutive: 2 },
      });
      const id = created.data.check.id;
      await runRound(t, id);
      await runRound(t, id);
      await t.deps.queue.drain();

      const down = await explain(id);
      expect(down.status).toBe('DOWN');
      expect(down.probe?.consecutiveFailures).toBeGreaterThanOrEqual(2);
      expect(down.probe?.regions).toHaveLength(3);
      for (const region of down.probe?.regions ?? []) expect(region).toMatchObject({ ok: false, statusCode: 503, failureReason: 'UNEXPECTED_STATUS' });
      expect(down.openIncident).toMatchObject({ state: 'ACTIVE', severity: 'P1' });
      expect(down.summary).toMatch(/^api \(#\d+, HTTP check\) is DOWN since at least .*us-east-1: UNEXPECTED_STATUS \(503\)/);
    } finally {
      await target.close();
    }
  });
});
