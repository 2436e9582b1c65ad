import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { ALL_TOOLS } from './catalog.js';
import { callTool, connect, ok, serveApp } from '../../test/support/mcp.js';

let t: TestContext;
let origin: string;
let close: () => Promise<void>;
let owner: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
let readOnlyKey: string;
beforeAll(async () => {
  t = await createTestContext();
  ({ origin, close } = await serveApp(t));
  owner = await t.signup('mcp-owner');
  key = await t.apiKey(owner);
  readOnlyKey = await t.apiKey(owner, { permission: 'read_only' });
});
afterAll(async () => close());

const READ = [
  'whoami',
  'workspace_overview',
  'explain_check',
  'list_checks',
  'get_check',
  'list_projects',
  'list_incidents',
  'get_incident',
  'list_deployments',
  'list_maintenance_windows',
  'list_status_pages',
  'list_announcements',
  'who_is_on_call',
];
const WRITE = [
  'create_job',
  'create_http_check',
  'pause_check',
  'resume_check',
  'declare_incident',
  'acknowledge_incident',
  'resolve_incident',
  'add_incident_note',
  'open_deployment',
  'end_deployment',
  'open_maintenance_window',
  'end_maintenance_window',
  'post_announcement',
  'update_announcement',
];

/** The hints as docs/guide/mcp.md's table states them: [destructive, idempotent]. */
const WRITE_HINTS: Record<string, [boolean, boolean]> = {
  create_job: [false, false],
  create_http_check: [false, false],
  pause_check: [true, true],
  resume_check: [false, true],
  declare_incident: [false, false],
  acknowledge_incident: [false, true],
  resolve_incident: [true, true],
  add_incident_note: [false, false],
  open_deployment: [true, false],
  end_deployment: [true, true],
  open_maintenance_window: [true, false],
  end_maintenance_window: [true, true],
  post_announcement: [false, false],
  update_announcement: [true, false],
};

const post = (path: string, token: string | undefined, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) =>
  fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

describe('tools/list', () => {
  it('gives a read_write key every tool, each with an output schema and truthful hints', async () => {
    const client = await connect(origin, key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ, ...WRITE].sort());
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
      const hints = tool.annotations;
      if (READ.includes(tool.name)) {
        expect(hints, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      } else {
        const [destructive, idempotent] = WRITE_HINTS[tool.name] ?? [];
        expect(hints, tool.name).toMatchObject({ readOnlyHint: false, destructiveHint: destructive, idempotentHint: idempotent });
      }
    }
    await client.close();
  });

  it('gives a read_only key no write tool, and refuses a call to one', async () => {
    const client = await connect(origin, readOnlyKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...READ].sort());
    const refused = await callTool(client, 'create_job', { name: 'sneaky', projectId: owner.projectId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe('This API key is read-only: create_job changes the workspace and needs a read_write key (403 FORBIDDEN)');
    const checks = await ok<{ total: number }>(client, 'list_checks');
    expect(checks.data.total).toBe(0);
    await client.close();
  });

  it('serves the same server at /mcp as at /api/mcp', async () => {
    const client = await connect(origin, key, '/mcp');
    expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
    const me = await ok<{ apiKey: { permission: string }; workspace: { id: number } }>(client, 'whoami');
    expect(me.data).toMatchObject({ apiKey: { permission: 'read_write' }, workspace: { id: owner.workspaceId } });
    expect(me.text).toContain('read_write');
    await client.close();
  });
});

describe('credentials (before any MCP exchange)', () => {
  it('answers a missing key, a session token and a disabled key with 401 in the API error shape', async () => {
    for (const token of [undefined, owner.token]) {
      const res = await post('/api/mcp', token);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    }
    await expect(connect(origin, undefined)).rejects.toThrow(/401|Unauthorized/);
    await expect(connect(origin, owner.token, '/mcp')).rejects.toThrow(/401|Unauthorized/);

    const disabled = await t.apiKey(owner);
    const keys = await t.request<{ id: number; lastFour: string }[]>('GET', `/api-keys?workspaceId=${owner.workspaceId}`, { token: owner.token });
    const entry = keys.body.find((k) => disabled.endsWith(k.lastFour));
    expect((await t.request('PATCH', `/api-keys/${entry?.id}`, { token: owner.token, body: { enabled: false } })).status).toBe(200);
    expect((await post('/mcp', disabled)).status).toBe(401);
  });

  it('refuses ping keys as /v1 does (403)', async () => {
    const pingKey = await t.apiKey(owner, { kind: 'ping' });
    const res = await post('/api/mcp', pingKey);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
  });

  it('refuses an oversized body with 413 in the API error shape', async () => {
    // Its own connection: the server answers before reading the body and then closes the socket.
    const dispatcher = new Agent();
    const res = await undiciFetch(`${origin}/mcp`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { padding: 'x'.repeat(300 * 1024) } }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    await dispatcher.close();
  });

  it('answers GET and DELETE with 405 (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${origin}/api/mcp`, { method, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});

describe('rate limit', () => {
  it("applies the key's limit (100 per 60 s) to MCP requests: the 101st is a 429 with Retry-After", async () => {
    const limited = await t.apiKey(owner, { permission: 'read_only' });
    const first = await post('/api/mcp', limited);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('100');
    expect(first.headers.get('ratelimit-remaining')).toBe('99');
    for (let i = 2; i <= 100; i++) expect((await post('/mcp', limited)).status).toBe(200);
    const refused = await post('/api/mcp', limited);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    await expect(connect(origin, limited)).rejects.toThrow(/429|Rate limit/);
    // Another key has its own budget.
    expect((await post('/api/mcp', readOnlyKey)).status).toBe(200);
    // The window passes with the clock.
    t.clock.advanceSeconds(60);
    expect((await post('/api/mcp', limited)).status).toBe(200);
  });
});

describe('tool groups (?tools=)', () => {
  const names = async (query: string, token = key) => {
    const client = await connect(origin, token, `/api/mcp?tools=${query}`);
    const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
    await client.close();
    return listed;
  };

  it('loads only read tools, only some areas, or named tools', async () => {
    expect(await names('read')).toEqual([...READ].sort());
    expect(await names('incidents,checks')).toEqual(
      [
        'list_incidents',
        'get_incident',
        'declare_incident',
        'acknowledge_incident',
        'resolve_incident',
        'add_incident_note',
        'explain_check',
        'list_checks',
        'get_check',
        'create_job',
        'create_http_check',
        'pause_check',
        'resume_check',
      ].sort(),
    );
    expect(await names('read,incidents')).toEqual(['get_incident', 'list_incidents']);
    expect(await names('explain_check,whoami')).toEqual(['explain_check', 'whoami']);
    expect(await names('statuspages')).toEqual(['list_announcements', 'list_status_pages', 'post_announcement', 'update_announcement']);
    expect(await names('statuspages', readOnlyKey)).toEqual(['list_announcements', 'list_status_pages']);
    expect(await names('oncall')).toEqual(['who_is_on_call']);
    expect(await names('write', readOnlyKey).catch((err: Error) => err.message)).toMatch(/400|selects no tool/);
  });

  it('refuses an unknown group with 400 rather than loading nothing', async () => {
    const res = await post('/api/mcp?tools=incidnets', key);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/Unknown tool group "incidnets"/);
  });
});

describe('resources', () => {
  it('offers both OpenAPI documents for reading', async () => {
    const client = await connect(origin, readOnlyKey);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name).sort()).toEqual(['dashboard-api', 'integration-api']);
    for (const resource of resources) {
      const read = await client.readResource({ uri: resource.uri });
      const content = read.contents[0];
      const doc = JSON.parse(content && 'text' in content ? content.text : '{}') as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths).length).toBeGreaterThan(3);
      if (resource.name === 'integration-api') expect(doc.paths['/whoami']).toBeDefined();
    }
    await client.close();
  });
});
