import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { signalsOf } from '../../test/support/signals.js';
import type { ImportReport } from './report.js';

// Shaped from Healthchecks' documented `GET /api/v3/checks/` response (https://healthchecks.io/docs/api/#list-checks).
const EXPORT = JSON.parse(readFileSync(new URL('../../test/fixtures/healthchecks-v3.json', import.meta.url), 'utf8')) as { checks: { uuid: string; name: string }[] };
const [BACKUP, DATABASE, WEEKLY] = EXPORT.checks.map((check) => check.uuid) as [string, string, string];

type Job = {
  id: number;
  name: string;
  slug: string | null;
  token: string;
  intervalSeconds: number | null;
  graceSeconds: number;
  schedule: string | null;
  timezone: string | null;
  paused: boolean;
  description: string | null;
  tags: string[];
};

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('hc');
  key = await t.apiKey(user);
});

const importHc = (body: unknown, query = '', token = key) => t.request<ImportReport>('POST', `/v1/import/healthchecks${query}`, { token, body });
const jobs = async (token = key) => (await t.request<{ items: Job[]; total: number }>('GET', '/v1/jobs?limit=100', { token })).body;

describe('POST /v1/import/healthchecks', () => {
  it('dry run, real run, second run: the second changes nothing, and pings to /ping/<uuid> land on the imported jobs', async () => {
    const dry = await importHc(EXPORT, '?dryRun=true');
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.dryRun).toBe(true);
    expect(dry.body.created).toEqual(['Filesystem Backup', 'Database Backup', 'Weekly Report'].map((name) => ({ kind: 'job', name })));
    // 30 days between pings is past Vigil's 7: listed, not dropped.
    expect(dry.body.skipped).toContainEqual({ kind: 'job', name: 'Monthly Invoices', reason: expect.stringContaining('intervalSeconds') });
    expect(dry.body.skipped.filter((s) => s.kind === 'channel').map((s) => s.name)).toEqual(expect.arrayContaining(['Ops e-mail', '#alerts', 'Filesystem Backup']));
    expect((await jobs()).total).toBe(0);

    const real = await importHc(EXPORT);
    expect(real.status, real.text).toBe(200);
    expect(real.body.created.map((c) => c.name)).toEqual(['Filesystem Backup', 'Database Backup', 'Weekly Report']);
    expect(real.body.created.every((c) => typeof c.id === 'number')).toBe(true);
    expect(real.body.skipped).toEqual(dry.body.skipped);

    const listed = await jobs();
    expect(listed.total).toBe(3);
    const byToken = new Map(listed.items.map((job) => [job.token, job]));
    expect(byToken.get(BACKUP)).toMatchObject({
      name: 'Filesystem Backup',
      slug: 'filesystem-backup',
      intervalSeconds: 3600,
      graceSeconds: 600,
      schedule: null,
      paused: false,
      description: 'Runs incremental backup every hour',
      tags: ['backup', 'fs'],
    });
    expect(byToken.get(DATABASE)).toMatchObject({
      slug: 'database-backup',
      intervalSeconds: null,
      schedule: '15 5 * * *',
      timezone: 'Europe/Riga',
      graceSeconds: 1200,
      tags: ['production', 'db'],
    });
    expect(byToken.get(WEEKLY)).toMatchObject({ intervalSeconds: 604800, graceSeconds: 3600, paused: true, description: null, tags: [] });

    const again = await importHc(EXPORT);
    expect(again.body.created).toEqual([]);
    expect(again.body.unchanged).toEqual(real.body.created);
    expect((await jobs()).total).toBe(3);

    const ping = await t.request('POST', `/signals/ping/${BACKUP}`, { rawBody: 'backup done', headers: { 'content-type': 'text/plain' } });
    expect(ping.status, ping.text).toBe(200);
    const backupId = byToken.get(BACKUP)?.id ?? 0;
    expect((await signalsOf(t, backupId)).map((s) => [s.type, s.payload])).toEqual([['SUCCESS', 'backup done']]);
    expect((await t.request<Job>('GET', `/v1/jobs/${backupId}`, { token: key })).body).toMatchObject({ status: 'OK' });
  });

  it('never takes a UUID that is already a ping token elsewhere: listed as skipped, the other check untouched', async () => {
    const other = await t.signup('hc-other');
    const otherKey = await t.apiKey(other);
    const res = await importHc({ checks: [EXPORT.checks[0]] }, '', otherKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body.created).toEqual([]);
    expect(res.body.skipped[0]).toEqual({ kind: 'job', name: 'Filesystem Backup', reason: expect.stringContaining('outside this workspace') });
    expect((await jobs(otherKey)).total).toBe(0);
  });

  it('keeps a deleted job’s UUID retired: importing it again is skipped (a token never names a second check)', async () => {
    const fresh = await t.signup('hc-deleted');
    const freshKey = await t.apiKey(fresh);
    const check = { name: 'Once', grace: 60, timeout: 600, uuid: '0b7c5e1a-2f3d-4c8b-9a6e-5d4c3b2a1f00' };
    const first = await importHc({ checks: [check] }, '', freshKey);
    const id = first.body.created[0]?.id;
    expect((await t.request('DELETE', `/v1/jobs/${id}`, { token: freshKey })).status).toBe(204);
    const again = await importHc({ checks: [check] }, '', freshKey);
    expect(again.status, again.text).toBe(200);
    expect(again.body.created).toEqual([]);
    expect(again.body.skipped).toEqual([{ kind: 'job', name: 'Once', reason: 'This ping token is already used by another check' }]);
    expect((await jobs(freshKey)).total).toBe(0);
  });

  it('refuses a body that is not a Healthchecks export with a 400 and creates nothing', async () => {
    const fresh = await t.signup('hc-bad');
    const freshKey = await t.apiKey(fresh);
    const bad = await importHc({ checks: [{ name: 'x', grace: 60, uuid: 'not-a-uuid', timeout: 60 }] }, '', freshKey);
    expect(expectError(bad, 400, 'VALIDATION_ERROR').message).toContain('uuid');
    expectError(await importHc({ nothing: true }, '', freshKey), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', '/v1/import/healthchecks', { token: freshKey, rawBody: '{"checks": [', headers: { 'content-type': 'application/json' } }), 400);
    expectError(await importHc(EXPORT, '?dryRun=maybe', freshKey), 400, 'VALIDATION_ERROR');
    expect((await jobs(freshKey)).total).toBe(0);
  });

  it('needs a read_write key (401 without one), and a foreign project is 404', async () => {
    expectError(await t.request('POST', '/v1/import/healthchecks', { body: EXPORT }), 401);
    const readOnly = await t.apiKey(user, { permission: 'read_only' });
    expectError(await importHc(EXPORT, '?dryRun=true', readOnly), 403);
    const other = await t.signup('hc-foreign');
    expectError(await importHc(EXPORT, `?projectId=${other.projectId}`), 404);
    expectError(await t.request('POST', '/v1/import/nagios', { token: key, body: EXPORT }), 404);
  });

  it('matches a read-only export (no UUIDs) by slug and says the ping URLs change', async () => {
    const fresh = await t.signup('hc-readonly');
    const freshKey = await t.apiKey(fresh);
    const { uuid: _uuid, ping_url: _url, ...noUuid } = EXPORT.checks[0] as Record<string, unknown>;
    const first = await importHc({ checks: [{ ...noUuid, unique_key: 'a6c7b0a8a66bed0df66abfdab3c77736861703ee' }] }, '', freshKey);
    expect(first.body.created).toMatchObject([{ kind: 'job', name: 'Filesystem Backup' }]);
    expect(first.body.skipped).toContainEqual({ kind: 'ping-url', name: 'Filesystem Backup', reason: expect.stringContaining('new ping URL') });
    const second = await importHc({ checks: [noUuid] }, '', freshKey);
    expect(second.body.unchanged).toEqual(first.body.created);
  });
});
