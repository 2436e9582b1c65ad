import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { addToWorkspace } from '../../test/support/identity.js';
import { vigil } from './vigil.js';

// `vigil export | plan | apply` in this process against the real app over a real socket (the test store behind it).
let t: TestContext;
let server: ServerType;
let base: string;
let sourceKey: string;
let targetKey: string;
let target: Awaited<ReturnType<TestContext['signup']>>;
let sourceEmail: string;
let pageId: number;
let sourceExport: string;
const SECRET = 'Bearer sk_live_MAC_SECRET_9f3';
const HEADER_ENV = 'VIGIL_CHECK_HOMEPAGE_HEADER_AUTHORIZATION';
const SLACK_URL = 'https://hooks.slack.com/services/T0000/B0000/MacSecretPath77';
const SLACK_ENV = 'VIGIL_CHANNEL_OPS_SLACK_WEBHOOKURL';
const files = new Map<string, string>();

type Run = { code: number; stdout: string; stderr: string };
async function run(args: string[], key: string, extraEnv: Record<string, string | undefined> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const sink = (write: (s: string) => void) => ({ write: (chunk: string) => (write(chunk), true) }) as unknown as NodeJS.WritableStream;
  const code = await vigil(args, {
    env: { VIGIL_API_URL: base, VIGIL_API_KEY: key, [HEADER_ENV]: SECRET, [SLACK_ENV]: SLACK_URL, VIGIL_CHANNEL_PAGER_ROUTINGKEY: 'T0123456789abcdef0123456789abcde', ...extraEnv },
    fetch,
    readFile: async (path) => {
      const text = files.get(path);
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return Buffer.from(text);
    },
    writeFile: async (path, text) => void files.set(path, text),
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
  });
  return { code, stdout, stderr };
}

const created = async (path: string, key: string, body: unknown) => {
  const res = await t.request<{ id: number }>('POST', path, { token: key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
};

beforeAll(async () => {
  t = await createTestContext();
  const source = await t.signup('mac-source');
  sourceEmail = source.email;
  target = await t.signup('mac-target');
  sourceKey = await t.apiKey(source);
  server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;

  const backend = await created('/v1/projects', sourceKey, { name: 'Backend', description: 'APIs and workers' });
  await created('/v1/jobs', sourceKey, {
    name: 'Nightly backup',
    slug: 'nightly-backup',
    projectId: backend,
    schedule: '30 2 * * *',
    timezone: 'Europe/Berlin',
    graceSeconds: 600,
  });
  const paused = await created('/v1/jobs', sourceKey, { name: 'Queue drain', slug: 'queue-drain', projectId: source.projectId, intervalSeconds: 300, lateSeverity: 'P2' });
  await t.request('POST', `/v1/jobs/${paused}/pause`, { token: sourceKey });
  await created('/v1/jobs', sourceKey, { name: 'No slug here', projectId: backend, intervalSeconds: 900 });
  const homepage = await created('/v1/checks', sourceKey, {
    name: 'Homepage',
    slug: 'homepage',
    projectId: source.projectId,
    intervalSeconds: 60,
    config: { url: 'https://example.com/', customHeaders: { authorization: SECRET } },
  });
  const slack = await created('/v1/alert-channels', sourceKey, { name: 'Ops Slack', type: 'SLACK', config: { webhookUrl: SLACK_URL } });
  // The same person in both workspaces: a file names people by e-mail.
  await addToWorkspace(t, target, source, 'MEMBER');
  const schedule = await created('/v1/on-call-schedules', sourceKey, {
    name: 'Primary',
    timezone: 'Europe/Berlin',
    rotations: [{ type: 'weekly', layerPosition: 0, effectiveFrom: '2026-03-02T08:00:00.000Z', handoffTime: '09:00', participants: [{ userId: source.userId, position: 0 }] }],
  });
  await created('/v1/escalation-policies', sourceKey, {
    name: 'Backend first',
    priority: 1,
    projectIds: [backend],
    steps: [
      {
        position: 0,
        delayMinutes: 0,
        targets: [
          { targetType: 'ALERT_CHANNEL', alertChannelId: slack },
          { targetType: 'ON_CALL_SCHEDULE', targetScheduleId: schedule },
        ],
      },
      { position: 1, delayMinutes: 15, targets: [{ targetType: 'USER', targetUserId: source.userId }] },
    ],
  });
  await created('/v1/alert-channels', sourceKey, { name: 'Pager', type: 'PAGERDUTY', enabled: false, config: { routingKey: 'R0123456789abcdef0123456789abcde' } });
  pageId = await created('/v1/status-pages', sourceKey, { name: 'Acme status', slug: 'acme-status', primaryColor: '#112233' });
  await created(`/v1/status-pages/${pageId}/components`, sourceKey, { name: 'Website', checkId: homepage, position: 0 });
  await created(`/v1/status-pages/${pageId}/components`, sourceKey, { name: 'Backend', projectId: backend, groupName: 'Services', position: 1 });
  const start = new Date(t.clock.now().getTime() + 86_400_000);
  await created('/v1/maintenance-windows', sourceKey, {
    name: 'Database upgrade',
    startAt: start.toISOString(),
    endAt: new Date(start.getTime() + 7_200_000).toISOString(),
    projectIds: [backend],
  });
});
// A key per test: the test clock stands still, so each key's 100 requests a minute last the whole file.
beforeEach(async () => {
  targetKey = await t.apiKey(target);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('vigil export, plan and apply against Vigil', () => {
  it('exports a workspace with the schema header and every secret as a reference, never its value', async () => {
    const res = await run(['export', '-o', 'source.yaml'], sourceKey);
    expect(res.code, res.stderr).toBe(0);
    sourceExport = files.get('source.yaml') ?? '';
    expect(sourceExport.startsWith(`# yaml-language-server: $schema=${base}/schemas/vigil.schema.json\n`)).toBe(true);
    expect(sourceExport).not.toContain('MAC_SECRET');
    expect(sourceExport).not.toContain('MacSecretPath');
    expect(sourceExport).not.toContain('R0123456789');
    expect(sourceExport).toContain(`webhookUrl: \${${SLACK_ENV}}`);
    expect(sourceExport).toContain('routingKey: ${VIGIL_CHANNEL_PAGER_ROUTINGKEY}');
    expect(sourceExport).toContain(`authorization: \${${HEADER_ENV}}`);
    expect(sourceExport).toContain('schedule: 30 2 * * *');
    expect(sourceExport).toContain('timezone: Europe/Berlin');
    expect(sourceExport).toContain('- Backend');
    expect(sourceExport).not.toMatch(/\bid:/i);
    expect(sourceExport).toContain(`participants:\n          - ${sourceEmail}`);
    expect(sourceExport).toContain('- schedule: Primary');
    expect(sourceExport).toMatch(/components:\n {6}- name: Website\n {8}showUptimeBar: true\n {8}check: homepage\n/);
  });

  it('applies the export to an empty workspace: exporting that gives the same file, and plan then finds nothing to do', async () => {
    // A status page's slug is its public address, unique across Vigil: the page moves, as when a workspace is rebuilt.
    expect((await t.request('DELETE', `/v1/status-pages/${pageId}`, { token: sourceKey })).status).toBe(204);
    const first = await run(['apply', '-f', 'source.yaml'], targetKey);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('+ create job nightly-backup');
    expect(first.stdout).toContain('+ create project "Backend"');

    const again = await run(['export'], targetKey);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(sourceExport);

    const plan = await run(['plan', '-f', 'source.yaml', '--detailed-exitcode'], targetKey);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/Plan: 0 to create, 0 to update, 0 to delete, \d+ unchanged, 0 drifted\./);
    const reapply = await run(['apply', '-f', 'source.yaml'], targetKey);
    expect(reapply.code).toBe(0);
    expect(reapply.stdout).not.toContain('Applied');

    // The secret went from the environment to the check, not through any file.
    const checks = await t.request<{ items: { config: { customHeaders: Record<string, string> } }[] }>('GET', '/v1/checks', { token: targetKey });
    expect(checks.body.items[0]?.config.customHeaders).toEqual({ authorization: SECRET });
    const channels = await t.request<{ items: { name: string; enabled: boolean; config: Record<string, string> }[] }>('GET', '/v1/alert-channels', { token: targetKey });
    expect(channels.body.items.map((c) => [c.name, c.enabled])).toEqual([
      ['Ops Slack', true],
      ['Pager', false],
    ]);
    expect(channels.body.items[0]?.config.webhookUrl).toMatch(/h77$/);
    expect(channels.body.items[1]?.config.routingKey).toMatch(/bcde$/);
  });

  it('plans changed fields of every kind as updates (exit 2 with --detailed-exitcode) and applies them', async () => {
    const edits: [string, string][] = [
      ['graceSeconds: 600', 'graceSeconds: 900'],
      ['description: APIs and workers', 'description: APIs, workers and queues'],
      ['handoffNotificationMinutes: 15', 'handoffNotificationMinutes: 30'],
      ['repeatCount: 0', 'repeatCount: 2'],
      ['suppressAlerts: true', 'suppressAlerts: false'],
      ['primaryColor: "#112233"', 'primaryColor: "#445566"'],
      ['groupName: Services', 'groupName: Platform'],
    ];
    let changed = sourceExport;
    for (const [from, to] of edits) {
      expect(changed, from).toContain(from);
      changed = changed.replace(from, to);
    }
    files.set('changed.yaml', changed);
    const plan = await run(['plan', '-f', 'changed.yaml', '--detailed-exitcode'], targetKey);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ update job nightly-backup: graceSeconds');
    expect(plan.stdout).toContain('~ update project "Backend": description');
    expect(plan.stdout).toContain('~ update on-call schedule "Primary": handoffNotificationMinutes');
    expect(plan.stdout).toContain('~ update escalation policy "Backend first": repeatCount');
    expect(plan.stdout).toContain('~ update maintenance window "Database upgrade": suppressAlerts');
    expect(plan.stdout).toContain('~ update status page acme-status: primaryColor, components');
    expect(plan.stdout).toContain('Plan: 0 to create, 6 to update');
    const apply = await run(['apply', '-f', 'changed.yaml'], targetKey);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Applied: 6 change(s).');
    const after = await run(['plan', '-f', 'changed.yaml', '--detailed-exitcode'], targetKey);
    expect(after.code, after.stdout).toBe(0);
  });

  it('reports what the file does not name as drift and leaves it; only --prune deletes it, and plan says so first', async () => {
    const projects = await t.request<{ items: { id: number; name: string }[] }>('GET', '/v1/projects', { token: targetKey });
    const projectId = projects.body.items.find((p) => p.name === 'Default')?.id;
    await created('/v1/jobs', targetKey, { name: 'Made in the UI', slug: 'made-in-ui', projectId, intervalSeconds: 120 });

    const plan = await run(['plan', '-f', 'changed.yaml', '--detailed-exitcode'], targetKey);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('! drift  job made-in-ui: in the workspace, not in the file (kept; --prune would delete it)');
    const apply = await run(['apply', '-f', 'changed.yaml'], targetKey);
    expect(apply.code).toBe(0);
    const jobs = async () => (await t.request<{ items: { slug: string }[] }>('GET', '/v1/jobs', { token: targetKey })).body.items.map((j) => j.slug);
    expect(await jobs()).toContain('made-in-ui');

    const prunePlan = await run(['plan', '-f', 'changed.yaml', '--prune', '--detailed-exitcode'], targetKey);
    expect(prunePlan.code).toBe(2);
    expect(prunePlan.stdout).toContain('- delete job made-in-ui');
    expect(await jobs()).toContain('made-in-ui');
    expect((await run(['apply', '-f', 'changed.yaml', '--prune'], targetKey)).code).toBe(0);
    expect(await jobs()).not.toContain('made-in-ui');
    expect((await run(['plan', '-f', 'changed.yaml', '--prune', '--detailed-exitcode'], targetKey)).code).toBe(0);
  });

  it('answers a bad file with the schema’s errors at their lines, and changes nothing', async () => {
    const count = async () => (await t.request<{ total: number }>('GET', '/v1/jobs', { token: targetKey })).body.total;
    const before = await count();
    files.set('bad.yaml', ['version: 1', 'jobs:', '  - name: backup', '    project: Default', '    graceSeconds: 1', '    colour: red', 'checks:', '  - name: site'].join('\n'));
    const res = await run(['apply', '-f', 'bad.yaml'], targetKey);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('bad.yaml:5:19: jobs.0.graceSeconds: must be >= 5');
    expect(res.stderr).toContain('bad.yaml:6:5: jobs.0.colour: is not a field of this item');
    expect(res.stderr).toContain('bad.yaml:8:5: checks.0: needs project');
    expect(await count()).toBe(before);
    files.set('broken.yaml', 'version: 1\njobs:\n  - name: "unterminated\n');
    const broken = await run(['plan', '-f', 'broken.yaml'], targetKey);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('broken.yaml:4:1: (yaml): Missing closing "quote');
    const unset = await run(['plan', '-f', 'source.yaml'], targetKey, { [HEADER_ENV]: undefined });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain(`refers to environment variables that are not set: ${HEADER_ENV}`);
  });

  it('creates new checks in one batch request; a check the server refuses is reported as a single create would be, and the others are made', async () => {
    const owner = await t.signup('mac-batch');
    const key = await t.apiKey(owner);
    // A job holds the slug, so the check of that slug is the server's refusal (the file itself is valid).
    await created('/v1/jobs', key, { name: 'taken', slug: 'taken', projectId: owner.projectId });
    const check = (slug: string) => [`  - slug: ${slug}`, `    name: ${slug}`, '    project: Default', '    config:', `      url: https://example.com/${slug}`];
    files.set('batch.yaml', ['version: 1', 'checks:', ...check('first'), ...check('taken'), ...check('third')].join('\n'));
    const res = await run(['apply', '-f', 'batch.yaml'], key);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('vigil apply: create check taken failed: POST /checks/batch item 1: 409: ');
    expect(res.stderr).toContain('2 change(s) were made; run plan to see what remains.');
    const slugs = (await t.request<{ items: { slug: string }[] }>('GET', '/v1/checks', { token: key })).body.items.map((c) => c.slug).sort();
    expect(slugs).toEqual(['first', 'third']);
  });

  it('serves the file’s JSON Schema without a key at the path of the export’s header', async () => {
    const res = await fetch(`${base}/schemas/vigil.schema.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(readFileSync(new URL('../http/vigil.schema.json', import.meta.url), 'utf8')));
  });
});
