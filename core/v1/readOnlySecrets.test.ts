import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createCheck, expectStatus, inboundBody, outboundBody, type User } from '../../test/support/checks.js';
import { schedule, team } from '../../test/support/escalation.js';
import { callTool, connect, serveApp } from '../../test/support/mcp.js';
import { createPage, createComponent } from '../../test/support/statuspages.js';

/**
 * A read_only key never learns a ping token (docs/guide/access.md "Secrets and who sees them"). The walk takes
 * its routes from the served `/v1/openapi.json` and its tools from tools/list, so a route or tool
 * added later is walked too, and one whose ids the seed cannot fill fails here until it can.
 */

type Document = { paths: Record<string, Record<string, unknown>> };

let t: TestContext;
let owner: User;
let readOnly: string;
let readWrite: string;
let secrets: string[];
let ids: Record<string, number>;

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.signup('ro-walk');
  readOnly = await t.apiKey(owner, { permission: 'read_only' });
  readWrite = await t.apiKey(owner);
  const rw = async (method: string, path: string, body: unknown, status = 201) =>
    expectStatus(await t.request<{ id: number; token?: string }>(method, `/v1${path}`, { token: readWrite, body }), status);

  const job = await rw('POST', '/jobs', { name: 'nightly export', projectId: owner.projectId, intervalSeconds: 60, graceSeconds: 5 });
  const inbound = await createCheck(t, owner, inboundBody(owner, { name: 'dashboard-made job' }));
  const http = await createCheck(t, owner, outboundBody(owner));
  expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
  const incident = await rw('POST', '/incidents', { title: 'export stuck', jobId: job.id });
  await rw('POST', '/incidents', { title: 'dashboard job stuck', checkId: inbound.id });
  const deployment = await rw('POST', '/deployments', { projectId: owner.projectId });
  const window = await rw('POST', '/maintenance-windows', { name: 'db upgrade', endAt: new Date(t.clock.now().getTime() + 3_600_000).toISOString() });
  const page = await createPage(t, owner);
  const component = await createComponent(t, owner, page.id, { checkId: job.id });
  const announcement = await rw('POST', `/status-pages/${page.id}/announcements`, { title: 'Exports delayed', message: 'Looking into it' });
  const scheduleId = await schedule(t, owner, [owner.userId]);
  const integration = await rw('POST', '/integrations', { name: 'prometheus', kind: 'ALERTMANAGER' });
  const channel = await rw('POST', '/alert-channels', { name: 'ops', type: 'WEBHOOK', config: { url: 'https://example.com/hook' } });
  const steps = [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: channel.id }] }];
  const policy = await rw('POST', '/escalation-policies', { name: 'default', priority: 0, steps });
  const teamId = await team(t, owner, [owner.userId]);

  secrets = [job.token ?? '', inbound.token];
  expect(secrets.every((s) => s.length >= 16)).toBe(true);
  ids = {
    projects: owner.projectId,
    checks: http.id,
    jobs: job.id,
    incidents: incident.id,
    deployments: deployment.id,
    'maintenance-windows': window.id,
    'status-pages': page.id,
    announcementId: announcement.id,
    scheduleId,
    integrations: integration.id,
    'alert-channels': channel.id,
    'escalation-policies': policy.id,
    'on-call-schedules': scheduleId,
    teams: teamId,
    componentId: component.id,
  };
  // The seed is worth walking: a read_write key does see the token inside an incident.
  const seen = expectStatus(await t.request<{ check: { token: string | null } }>('GET', `/v1/incidents/${incident.id}`, { token: readWrite }), 200);
  expect(seen.check.token).toBe(job.token);
});

/** Fails with the reason if the text carries a ping token or a ping URL. */
function expectNoSecret(where: string, text: string): void {
  for (const secret of secrets) expect(text.includes(secret), `${where} shows a ping token`).toBe(false);
  expect(text.includes('/signals/ping/'), `${where} shows a ping URL`).toBe(false);
}

/** The path with each parameter replaced by a seeded id: `{id}` is the id of the segment before it. */
function filled(path: string): string {
  const segments = path.split('/');
  return segments
    .map((segment, i) => {
      const param = /^\{(.+)\}$/.exec(segment)?.[1];
      if (!param) return segment;
      const id = param === 'id' ? ids[segments[i - 1] ?? ''] : ids[param];
      if (id === undefined) throw new Error(`no seeded id for ${param} in ${path}: seed one in this test`);
      return String(id);
    })
    .join('/');
}

describe('a read_only key and ping tokens', () => {
  it('sees no ping token or ping URL on any /v1 route of the served OpenAPI document', async () => {
    const doc = expectStatus(await t.request<Document>('GET', '/v1/openapi.json'), 200);
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })));
    expect(operations.length).toBeGreaterThan(30);
    // Reads first, so each sees the seed before a refused write could have touched it.
    operations.sort((a, b) => Number(a.method !== 'GET') - Number(b.method !== 'GET'));
    for (const { method, path } of operations) {
      const where = `${method} /v1${path}`;
      const res = await t.request(method, `/v1${filled(path)}`, { token: readOnly, ...(method === 'GET' ? {} : { body: {} }) });
      if (method === 'GET') expect(res.status, `${where}: ${res.text}`).toBe(200);
      else expect(res.status, `${where}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${where}: ${res.text}`).toBeLessThan(500);
      expectNoSecret(where, res.text);
    }
    // The lists that embed checks carry them, with the secret withheld rather than the check.
    const incidents = expectStatus(await t.request<{ items: { check: { id: number; token: string | null } | null }[] }>('GET', '/v1/incidents', { token: readOnly }), 200);
    expect(incidents.items.map((i) => i.check?.token)).toEqual([null, null]);
  });

  it('sees none through any MCP tool it is offered', async () => {
    const { origin, close } = await serveApp(t);
    const client = await connect(origin, readOnly);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(5);
      const argumentFor: Record<string, unknown> = {
        check: String(ids.jobs),
        incidentId: ids.incidents,
        statusPageId: ids['status-pages'],
        announcementId: ids.announcementId,
        scheduleId: ids.scheduleId,
        projectId: ids.projects,
      };
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
        const required = tool.inputSchema.required ?? [];
        const args: Record<string, unknown> = {};
        for (const name of required) {
          if (!(name in argumentFor)) throw new Error(`no seeded argument for ${tool.name}.${name}: seed one in this test`);
          args[name] = argumentFor[name];
        }
        const result = await callTool(client, tool.name, args);
        expect(result.isError, `${tool.name}: ${result.text}`).toBe(false);
        expectNoSecret(`tool ${tool.name}`, JSON.stringify(result));
      }
      for (const name of ['get_check', 'explain_check']) {
        for (const check of [ids.jobs, ids.checks]) expectNoSecret(`tool ${name}`, JSON.stringify(await callTool(client, name, { check: String(check) })));
      }
    } finally {
      await client.close();
      await close();
    }
  });
});
