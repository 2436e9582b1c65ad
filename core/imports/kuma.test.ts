import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { KUMA_PUSH_TOKEN, kumaDatabase } from '../../test/support/kuma.js';
import { signalsOf } from '../../test/support/signals.js';
import type { ImportReport } from './report.js';

type Job = { id: number; name: string; token: string; intervalSeconds: number; graceSeconds: number; paused: boolean; description: string | null; tags: string[] };
type Check = { id: number; name: string; paused: boolean; intervalSeconds: number; config: Record<string, unknown> };
type Window = { id: number; name: string; startAt: string; endAt: string; projectIds: number[] };

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
let database: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('kuma');
  key = await t.apiKey(user);
  database = Buffer.from(await kumaDatabase()).toString('base64');
});

const importKuma = (body: unknown, query = '', token = key) => t.request<ImportReport>('POST', `/v1/import/uptime-kuma${query}`, { token, body });
// Status pages have their own file (kumaPages.test.ts); here only what the pages follow.
const notPages = <T extends { kind: string }>(items: T[]) => items.filter((i) => !i.kind.startsWith('status-'));
const list = async <T>(path: string, token = key) => (await t.request<{ items: T[]; total: number }>('GET', `${path}?limit=100`, { token })).body;

describe('POST /v1/import/uptime-kuma', () => {
  it('imports a Kuma database: dry run, real run, second run unchanged; pushes to /api/push/<token> land on the job', async () => {
    const dry = await importKuma({ database }, '?dryRun=true');
    expect(dry.status, dry.text).toBe(200);
    const expected = [
      { kind: 'job', name: 'Nightly backup' },
      { kind: 'job', name: 'Old push (paused)' },
      { kind: 'check', name: 'Website' },
      { kind: 'check', name: 'API health' },
      { kind: 'maintenance', name: 'Database upgrade' },
    ];
    expect(notPages(dry.body.created)).toEqual(expected);
    const reasons = new Map(dry.body.skipped.map((s) => [`${s.kind}:${s.name}`, s.reason]));
    expect(reasons.get('monitor:Router')).toContain('no ping monitors');
    expect(reasons.get('monitor:Login page')).toContain('keyword');
    expect(reasons.get('job:Short token')).toContain('push token');
    expect(reasons.get('notification:Ops Telegram')).toContain('not imported');
    expect(reasons.get('maintenance:Weekly reboot')).toContain('recurring');
    expect(reasons.get("maintenance:Last year's move")).toBe('already over');
    expect((await list('/v1/jobs')).total + (await list('/v1/checks')).total + (await list('/v1/maintenance-windows')).total).toBe(0);

    const real = await importKuma({ database });
    expect(real.status, real.text).toBe(200);
    expect(notPages(real.body.created).map(({ kind, name }) => ({ kind, name }))).toEqual(expected);
    expect(real.body.skipped.map((s) => `${s.kind}:${s.name}`).sort()).toEqual(dry.body.skipped.map((s) => `${s.kind}:${s.name}`).sort());

    const jobs = (await list<Job>('/v1/jobs')).items;
    expect(jobs.find((j) => j.name === 'Nightly backup')).toMatchObject({
      token: KUMA_PUSH_TOKEN,
      intervalSeconds: 86400,
      graceSeconds: 600,
      paused: false,
      description: 'Pushes when restic finishes',
      tags: ['prod'],
    });
    expect(jobs.find((j) => j.name === 'Old push (paused)')).toMatchObject({ token: 'aB3dE5gH7j', intervalSeconds: 300, graceSeconds: 60, paused: true });
    const checks = (await list<Check>('/v1/checks')).items;
    expect(checks.find((c) => c.name === 'Website')?.config).toMatchObject({
      url: 'https://example.com/',
      method: 'GET',
      expectedStatusMin: 200,
      expectedStatusMax: 299,
      failAfterConsecutive: 3,
      timeoutMs: 15000,
      maxRedirects: 3,
    });
    expect(checks.find((c) => c.name === 'API health')).toMatchObject({
      intervalSeconds: 120,
      config: { method: 'HEAD', expectedStatusMin: 200, expectedStatusMax: 204, customHeaders: { 'X-Probe': 'kuma' } },
    });
    const windows = (await list<Window>('/v1/maintenance-windows')).items;
    // 22:00 in Berlin on 5 March (UTC+1).
    expect(windows).toMatchObject([{ name: 'Database upgrade', startAt: '2026-03-05T21:00:00.000Z', endAt: '2026-03-05T22:30:00.000Z', projectIds: [user.projectId] }]);

    const again = await importKuma({ database });
    expect(again.body.created).toEqual([]);
    expect(again.body.unchanged).toEqual(real.body.created);
    expect((await list('/v1/jobs')).total).toBe(2);
    expect((await list('/v1/checks')).total).toBe(2);
    expect((await list('/v1/maintenance-windows')).total).toBe(1);

    const up = await t.request('GET', `/push/${KUMA_PUSH_TOKEN}?status=up&msg=backup%20done&ping=12`);
    expect(up.status, up.text).toBe(200);
    expect(up.body).toEqual({ ok: true });
    t.clock.advanceSeconds(2);
    const down = await t.request('POST', `/push/${KUMA_PUSH_TOKEN}?status=down&msg=disk%20full`);
    expect(down.body).toEqual({ ok: true });
    const nightly = jobs.find((j) => j.name === 'Nightly backup')?.id ?? 0;
    expect((await signalsOf(t, nightly)).map((s) => [s.type, s.payload]).sort()).toEqual([
      ['FAIL', 'disk full'],
      ['SUCCESS', 'backup done\nping: 12'],
    ]);
    const unknown = await t.request('GET', '/push/NoSuchToken123456');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ ok: false, msg: 'Monitor not found or not active.' });
  });

  it('imports the JSON backup (monitorList) the same way', async () => {
    const fresh = await t.signup('kuma-json');
    const freshKey = await t.apiKey(fresh);
    const backup = {
      version: '1.23.16',
      notificationList: [],
      monitorList: [
        {
          id: 11,
          name: 'Cron push',
          type: 'push',
          interval: 3600,
          retryInterval: 60,
          maxretries: 0,
          active: true,
          pushToken: 'Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9d',
          accepted_statuscodes: ['200-299'],
          tags: [],
          notificationIDList: {},
        },
        {
          id: 12,
          name: 'Shop',
          type: 'http',
          url: 'https://shop.example.com/',
          method: 'GET',
          interval: 300,
          retryInterval: 60,
          maxretries: 1,
          active: 1,
          accepted_statuscodes: ['200-399'],
          upsideDown: false,
          ignoreTls: false,
          maxredirects: 2,
          tags: [{ name: 'team', value: 'web' }],
        },
        { id: 13, name: 'Inverted', type: 'http', url: 'https://down.example.com/', method: 'GET', interval: 60, upsideDown: true },
      ],
    };
    const res = await importKuma(backup, '', freshKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body.created.map((c) => c.name)).toEqual(['Cron push', 'Shop']);
    expect(res.body.skipped).toContainEqual({ kind: 'monitor', name: 'Inverted', reason: expect.stringContaining('upside-down') });
    expect((await importKuma(backup, '', freshKey)).body.unchanged.map((c) => c.name)).toEqual(['Cron push', 'Shop']);
    expect((await t.request('GET', '/push/Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9d')).body).toEqual({ ok: true });
  });

  it('answers 400 for what is not Kuma data, and changes nothing', async () => {
    const fresh = await t.signup('kuma-bad');
    const freshKey = await t.apiKey(fresh);
    expectError(await importKuma({ database: Buffer.from('not a database at all').toString('base64') }, '', freshKey), 400);
    expectError(await importKuma({ monitorList: 'nope' }, '', freshKey), 400, 'VALIDATION_ERROR');
    expectError(await importKuma({ monitorList: [{ id: 1, name: 'x', type: 'http', interval: -5 }] }, '', freshKey), 400, 'VALIDATION_ERROR');
    expect((await list('/v1/checks', freshKey)).total + (await list('/v1/jobs', freshKey)).total).toBe(0);
  });
});
