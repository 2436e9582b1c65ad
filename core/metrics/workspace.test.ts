import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { recordRun } from '../probes/runs.js';
import { checkPages } from './workspace.js';
import { parseExposition, samplesOf, valueOf } from '../../test/support/metrics.js';
import type { User } from '../../test/support/users.js';

type Created = { id: number; token?: string };

let t: TestContext;
let owner: User;
let stranger: User;
let key: string;
let readOnlyKey: string;
let strangerKey: string;
let secondProject: number;
let nightly: Created;
let oddlyNamed: Created;
let probed: Created;
const ODD_NAME = 'backup "db" \\ eu\nsecond line';

const v1 = <T = Record<string, unknown>>(method: string, path: string, token: string, body?: unknown) =>
  t.request<T>(method, `/v1${path}`, { token, ...(body === undefined ? {} : { body }) });

async function created(method: string, path: string, body: unknown): Promise<Created> {
  const res = await v1<Created>(method, path, key, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' });
  owner = await t.signup('metrics-owner');
  stranger = await t.signup('metrics-stranger');
  key = await t.apiKey(owner);
  readOnlyKey = await t.apiKey(owner, { permission: 'read_only' });
  strangerKey = await t.apiKey(stranger, { permission: 'read_only' });
  secondProject = (await created('POST', '/projects', { name: 'second' })).id;
  nightly = await created('POST', '/jobs', { name: 'nightly', projectId: owner.projectId, intervalSeconds: 3600 });
  oddlyNamed = await created('POST', '/jobs', { name: ODD_NAME, projectId: secondProject });
  probed = await created('POST', '/checks', { name: 'homepage', projectId: owner.projectId, config: { url: 'https://example.com/', regions: ['us-east-1', 'eu-west-1'] } });
  const strangerJob = await v1<Created>('POST', '/jobs', await t.apiKey(stranger), { name: 'stranger job', projectId: stranger.projectId });
  expect(strangerJob.status).toBe(201);

  expect((await t.request('GET', `/signals/ping/${nightly.token}`)).status).toBe(200);
  const run = (region: 'us-east-1' | 'eu-west-1', ok: boolean, latencyMs: number) =>
    recordRun(t.deps, {
      checkId: probed.id,
      workspaceId: owner.workspaceId,
      region,
      startedAt: t.clock.now(),
      roundAt: t.clock.now().toISOString(),
      result: { ok, statusCode: ok ? 200 : 503, latencyMs, failureReason: ok ? null : 'UNEXPECTED_STATUS', sslExpiresAt: null },
    });
  await run('us-east-1', true, 120);
  await run('eu-west-1', false, 340);
  expect((await v1('POST', '/incidents', key, { title: 'Payments slow', severity: 'P2' })).status).toBe(201);
  const resolved = await v1<Created>('POST', '/incidents', key, { title: 'Old', severity: 'P1' });
  expect((await v1('POST', `/incidents/${resolved.body.id}/resolve`, key)).status).toBe(200);
  t.clock.advanceSeconds(90);
});

async function scrape(query = '', token = readOnlyKey) {
  const res = await v1('GET', `/metrics${query}`, token);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.text);
}

describe('GET /v1/metrics', () => {
  it('gives status and last-ping age per check, with a read_only key, in a format a strict parser reads', async () => {
    const families = await scrape();
    expect(families.get('vigil_check_status')).toMatchObject({ type: 'gauge', help: expect.any(String) });
    const nightlyLabels = { check_id: String(nightly.id), check_name: 'nightly', project_id: String(owner.projectId), check_type: 'HEARTBEAT' };
    expect(valueOf(families, 'vigil_check_status', { ...nightlyLabels, status: 'OK' })).toBe(1);
    expect(valueOf(families, 'vigil_check_status', { ...nightlyLabels, status: 'DOWN' })).toBe(0);
    expect(valueOf(families, 'vigil_check_last_ping_age_seconds', nightlyLabels)).toBe(90);
    // A check that never pinged has no age, rather than a made-up one.
    expect(samplesOf(families, 'vigil_check_last_ping_age_seconds').map((s) => s.labels.check_id)).toEqual([String(nightly.id)]);
  });

  it('escapes tenant names in labels so they come back intact', async () => {
    const families = await scrape();
    expect(valueOf(families, 'vigil_check_status', { check_id: String(oddlyNamed.id), status: 'NEW' })).toBe(1);
    const sample = samplesOf(families, 'vigil_check_status').find((s) => s.labels.check_id === String(oddlyNamed.id));
    expect(sample?.labels.check_name).toBe(ODD_NAME);
  });

  it('gives the newest probe run per region of outbound checks', async () => {
    const families = await scrape();
    const labels = { check_id: String(probed.id), check_type: 'HTTP' };
    expect(valueOf(families, 'vigil_probe_last_latency_seconds', { ...labels, region: 'us-east-1' })).toBe(0.12);
    expect(valueOf(families, 'vigil_probe_last_latency_seconds', { ...labels, region: 'eu-west-1' })).toBe(0.34);
    expect(valueOf(families, 'vigil_probe_last_success', { ...labels, region: 'us-east-1' })).toBe(1);
    expect(valueOf(families, 'vigil_probe_last_success', { ...labels, region: 'eu-west-1' })).toBe(0);
    expect(samplesOf(families, 'vigil_probe_last_success')).toHaveLength(2);
  });

  it('counts open incidents by severity, every severity present', async () => {
    const families = await scrape();
    expect(Object.fromEntries(samplesOf(families, 'vigil_incidents_open').map((s) => [s.labels.severity, s.value]))).toEqual({ P1: 0, P2: 1, P3: 0, P4: 0 });
  });

  it('narrows to one project with ?projectId', async () => {
    const families = await scrape(`?projectId=${secondProject}`);
    const ids = new Set(samplesOf(families, 'vigil_check_status').map((s) => s.labels.check_id));
    expect([...ids]).toEqual([String(oddlyNamed.id)]);
    expect(samplesOf(families, 'vigil_probe_last_success')).toEqual([]);
    // The declared incident has no project: it is the workspace's, not this project's.
    expect(valueOf(families, 'vigil_incidents_open', { severity: 'P2' })).toBe(0);
  });

  it("never lists another workspace's checks, and a foreign projectId is 404", async () => {
    const families = await scrape('', strangerKey);
    const names = samplesOf(families, 'vigil_check_status').map((s) => s.labels.check_name);
    expect(new Set(names)).toEqual(new Set(['stranger job']));
    expectError(await v1('GET', `/metrics?projectId=${owner.projectId}`, strangerKey), 404, 'NOT_FOUND');
    expectError(await v1('GET', '/metrics?projectId=999999', readOnlyKey), 404, 'NOT_FOUND');
  });

  it('refuses a bad projectId with 400, and a session token or no credential with 401', async () => {
    expectError(await v1('GET', '/metrics?projectId=abc', readOnlyKey), 400);
    expectError(await v1('GET', '/metrics', owner.token), 401);
    expectError(await t.request('GET', '/v1/metrics'), 401);
  });

  it('is in the Integration API document', async () => {
    const doc = await t.request<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).toContain('/metrics');
  });
});

describe('checkPages', () => {
  it('reads the index a page at a time, skipping deleted and moved-away checks', async () => {
    const user = await t.signup('pager');
    const userKey = await t.apiKey(user);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await v1<Created>('POST', '/jobs', userKey, { name: `job ${i}`, projectId: user.projectId });
      ids.push(res.body.id);
    }
    expect((await v1('DELETE', `/jobs/${ids[1]}`, userKey)).status).toBe(204);
    const pages: number[][] = [];
    for await (const page of checkPages(t.deps, { workspaceId: user.workspaceId, projectId: undefined }, 2)) pages.push(page.map((c) => c.checkId));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.every((page) => page.length <= 2)).toBe(true);
    expect(pages.flat()).toEqual([ids[0], ids[2], ids[3], ids[4]]);
  });
});
