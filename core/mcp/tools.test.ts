import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countBulkRefs } from '../store/checkLists.js';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { callTool, connect, ok, serveApp } from '../../test/support/mcp.js';
import type { User } from '../../test/support/users.js';

type Check = { id: number; status: string; checkType: string; name: string };
type Incident = { id: number; state: string; acknowledgedAt: string | null; checkId: number | null };
type Page<T> = { items: T[]; total: number; remaining: number; nextPage: number | null; page: number; limit: number };

let t: TestContext;
let origin: string;
let close: () => Promise<void>;
let owner: User;
let stranger: User;
let a: Client;
let b: Client;
beforeAll(async () => {
  t = await createTestContext();
  ({ origin, close } = await serveApp(t));
  owner = await t.signup('tools-owner');
  stranger = await t.signup('tools-stranger');
  a = await connect(origin, await t.apiKey(owner));
  b = await connect(origin, await t.apiKey(stranger));
});
afterAll(async () => {
  await a.close();
  await b.close();
  await close();
});

const inOneHour = () => new Date(t.clock.now().getTime() + 3_600_000).toISOString();

describe('every tool, called by a read_write key', () => {
  it('creates, lists, reads, pauses and resumes checks', async () => {
    const projects = await ok<Page<{ id: number }>>(a, 'list_projects');
    expect(projects.data.items.map((p) => p.id)).toEqual([owner.projectId]);

    const job = await ok<{ check: Check; pingUrl: string }>(a, 'create_job', { name: 'nightly backup', projectId: owner.projectId, slug: 'nightly', intervalSeconds: 600 });
    expect(job.data.check).toMatchObject({ name: 'nightly backup', checkType: 'HEARTBEAT', status: 'NEW' });
    expect(job.data.pingUrl).toMatch(/\/api\/signals\/ping\/[0-9a-f-]{36}$/);
    const http = await ok<{ check: Check & { url: string } }>(a, 'create_http_check', { name: 'homepage', projectId: owner.projectId, config: { url: 'https://example.com/' } });
    expect(http.data.check).toMatchObject({ checkType: 'HTTP', url: 'https://example.com/' });

    const all = await ok<Page<Check>>(a, 'list_checks');
    expect(all.data).toMatchObject({ total: 2, remaining: 0, nextPage: null });
    expect(all.text).toMatch(/^checks 1-2 of 2\./);
    expect((await ok<Page<Check>>(a, 'list_checks', { type: 'HEARTBEAT' })).data.items.map((c) => c.id)).toEqual([job.data.check.id]);
    expect((await ok<Page<Check>>(a, 'list_checks', { status: 'DOWN' })).data.total).toBe(0);
    // A part of the name, any case, alone or with the other filters.
    expect((await ok<Page<Check>>(a, 'list_checks', { q: 'NIGHT' })).data.items.map((c) => c.id)).toEqual([job.data.check.id]);
    expect((await ok<Page<Check>>(a, 'list_checks', { q: 'home', type: 'HTTP' })).data.items.map((c) => c.id)).toEqual([http.data.check.id]);
    expect((await ok<Page<Check>>(a, 'list_checks', { q: 'home', type: 'HEARTBEAT' })).data.total).toBe(0);
    expect((await ok<Page<Check>>(a, 'list_checks', { q: 'nightly', status: 'DOWN' })).data.total).toBe(0);
    expect((await callTool(a, 'list_checks', { q: '' })).isError).toBe(true);

    const bySlug = await ok<{ check: { id: number; pingUrl: string; intervalSeconds: number } }>(a, 'get_check', { check: 'slug:nightly' });
    expect(bySlug.data.check).toMatchObject({ id: job.data.check.id, intervalSeconds: 600, pingUrl: job.data.pingUrl });
    const byId = await ok<{ probe: { regions: unknown[] } | null }>(a, 'get_check', { check: http.data.check.id });
    expect(byId.data.probe?.regions).toEqual([expect.objectContaining({ region: 'us-east-1', lastRunAt: null })]);

    expect((await ok<{ check: Check }>(a, 'pause_check', { check: job.data.check.id })).data.check.status).toBe('PAUSED');
    expect((await ok<{ check: Check }>(a, 'pause_check', { check: job.data.check.id })).data.check.status).toBe('PAUSED');
    expect((await ok<{ check: Check }>(a, 'resume_check', { check: String(job.data.check.id) })).data.check.status).toBe('RESUMED');
  });

  it('declares, lists, reads, acknowledges and resolves incidents', async () => {
    const [check] = (await ok<Page<Check>>(a, 'list_checks', { type: 'HEARTBEAT' })).data.items;
    const declared = await ok<{ incident: Incident }>(a, 'declare_incident', { title: 'Backups failing', checkId: check?.id, severity: 'P2' });
    expect(declared.data.incident).toMatchObject({ state: 'ACTIVE', checkId: check?.id });
    const id = declared.data.incident.id;

    expect((await ok<Page<Incident>>(a, 'list_incidents', { state: 'ACTIVE' })).data.items.map((i) => i.id)).toEqual([id]);
    expect((await ok<Page<Incident>>(a, 'list_incidents', { state: 'RESOLVED' })).data.total).toBe(0);

    const acknowledged = await ok<{ incident: Incident }>(a, 'acknowledge_incident', { incidentId: id });
    expect(acknowledged.data.incident.acknowledgedAt).toBe(t.clock.now().toISOString());
    expect((await ok<{ incident: Incident }>(a, 'resolve_incident', { incidentId: id })).data.incident.state).toBe('RESOLVED');

    const detail = await ok<{ incident: Incident; timeline: { type: string }[]; earlierEvents: number; notes: unknown[] }>(a, 'get_incident', { incidentId: id });
    expect(detail.data.timeline.map((e) => e.type)).toEqual(['OPENED', 'ACKNOWLEDGED', 'RESOLVED']);
    expect(detail.data).toMatchObject({ earlierEvents: 0, notes: [] });
    expect(detail.text).toContain('Backups failing');

    // A note written through MCP is the key's, and get_incident names it so.
    const note = await ok<{ note: { id: number; body: string } }>(a, 'add_incident_note', { incidentId: id, body: 'Restarted the backup host' });
    expect(note.data.note.body).toBe('Restarted the backup host');
    const withNote = await ok<{ notes: { id: number; author: string | null; body: string }[] }>(a, 'get_incident', { incidentId: id });
    expect(withNote.data.notes).toEqual([expect.objectContaining({ id: note.data.note.id, body: 'Restarted the backup host', author: expect.stringMatching(/^API key "/) })]);
  });

  it('opens, lists and ends deployments and maintenance windows, and sums the workspace up', async () => {
    const opened = await ok<{ deployment: { id: number; status: string } }>(a, 'open_deployment', { projectId: owner.projectId, version: 'v1.2.3', ttlMinutes: 30 });
    expect(opened.data.deployment.status).toBe('ACTIVE');
    const [job] = (await ok<Page<Check>>(a, 'list_checks', { type: 'HEARTBEAT' })).data.items;
    const held = await ok<{ holds: { kind: string; id: number }[] }>(a, 'get_check', { check: job?.id });
    expect(held.data.holds).toEqual([expect.objectContaining({ kind: 'DEPLOYMENT', id: opened.data.deployment.id })]);

    const overview = await ok<{ checks: { total: number; byStatus: Record<string, number> }; activeDeployments: { id: number }[] }>(a, 'workspace_overview');
    expect(overview.data.checks.total).toBe(2);
    expect(overview.data.activeDeployments.map((d) => d.id)).toEqual([opened.data.deployment.id]);

    expect((await ok<Page<unknown>>(a, 'list_deployments', { status: 'ACTIVE' })).data.total).toBe(1);
    expect((await ok<{ deployment: { status: string } }>(a, 'end_deployment', { deploymentId: opened.data.deployment.id })).data.deployment.status).toBe('ENDED');
    expect((await ok<{ deployment: { status: string } }>(a, 'end_deployment', { deploymentId: opened.data.deployment.id })).data.deployment.status).toBe('ENDED');

    const window = await ok<{ window: { id: number; state: string; projectIds: number[] } }>(a, 'open_maintenance_window', { name: 'db upgrade', endAt: inOneHour() });
    expect(window.data.window).toMatchObject({ state: 'ACTIVE', projectIds: [owner.projectId] });
    expect((await ok<Page<unknown>>(a, 'list_maintenance_windows', { state: 'ACTIVE' })).data.total).toBe(1);
    const ended = await ok<{ window: { state: string } }>(a, 'end_maintenance_window', { windowId: window.data.window.id });
    expect(ended.data.window.state).toBe('COMPLETED');
  });

  it("returns the API's errors as tool results: validation, conflicts, and the SDK's own input checks", async () => {
    const both = await callTool(a, 'declare_incident', { title: 'x', checkId: 1, jobId: 2 });
    expect(both).toMatchObject({ isError: true, data: undefined });
    expect(both.text).toMatch(/at most one of checkId, jobId and dependencyId \(400 MULTIPLE_INCIDENT_TARGETS\)/);
    const [resolved] = (await ok<Page<Incident>>(a, 'list_incidents', { state: 'RESOLVED' })).data.items;
    const late = await callTool(a, 'acknowledge_incident', { incidentId: resolved?.id });
    expect(late.text).toMatch(/409 INCIDENT_RESOLVED/);
    const tooMany = await callTool(a, 'list_checks', { limit: 1000 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toMatch(/limit/);
    const unknownField = await callTool(a, 'create_job', { name: 'x', projectId: owner.projectId, colour: 'red' });
    expect(unknownField.isError).toBe(true);
  });
});

describe('workspace scoping', () => {
  it("never shows a key of workspace B anything of A's: every id is an error result, not data", async () => {
    const job = (await ok<{ check: Check }>(a, 'create_job', { name: 'private job', projectId: owner.projectId, slug: 'private' })).data.check;
    const incident = (await ok<{ incident: Incident }>(a, 'declare_incident', { title: 'private incident', checkId: job.id })).data.incident;
    const deployment = (await ok<{ deployment: { id: number } }>(a, 'open_deployment', { projectId: owner.projectId, autoPause: false })).data.deployment;
    const window = (await ok<{ window: { id: number } }>(a, 'open_maintenance_window', { name: 'private window', endAt: inOneHour(), suppressAlerts: false })).data.window;

    const attempts: [string, Record<string, unknown>][] = [
      ['get_check', { check: job.id }],
      ['get_check', { check: 'slug:private' }],
      ['explain_check', { check: job.id }],
      ['pause_check', { check: job.id }],
      ['resume_check', { check: job.id }],
      ['get_incident', { incidentId: incident.id }],
      ['acknowledge_incident', { incidentId: incident.id }],
      ['resolve_incident', { incidentId: incident.id }],
      ['add_incident_note', { incidentId: incident.id, body: 'not yours' }],
      ['list_incidents', { checkId: job.id }],
      ['list_incidents', { projectId: owner.projectId }],
      ['list_checks', { projectId: owner.projectId }],
      ['list_deployments', { projectId: owner.projectId }],
      ['list_maintenance_windows', { projectId: owner.projectId }],
      ['declare_incident', { title: 'x', checkId: job.id }],
      ['create_job', { name: 'x', projectId: owner.projectId }],
      ['open_deployment', { projectId: owner.projectId }],
      ['open_maintenance_window', { name: 'x', endAt: inOneHour(), projectIds: [owner.projectId] }],
      ['end_deployment', { deploymentId: deployment.id }],
      ['end_maintenance_window', { windowId: window.id }],
    ];
    for (const [name, args] of attempts) {
      const result = await callTool(b, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(result.text, name).toMatch(/not found \(404/);
      expect(result.data, name).toBeUndefined();
    }
    // B's own lists hold nothing of A's, and A's things are as they were.
    expect((await ok<Page<unknown>>(b, 'list_checks')).data.total).toBe(0);
    expect((await ok<Page<unknown>>(b, 'list_incidents')).data.total).toBe(0);
    expect((await ok<{ check: Check }>(a, 'get_check', { check: job.id })).data.check.status).toBe('NEW');
    expect((await ok<{ incident: Incident }>(a, 'get_incident', { incidentId: incident.id })).data.incident.state).toBe('ACTIVE');
  });
});

describe('output size', () => {
  it('answers a workspace of 1,000 checks with a page that says how many remain', async () => {
    const big = await t.signup('tools-big');
    const { store } = t.deps;
    const iso = t.clock.now().toISOString();
    // Seeded through the store in batches (ids reserved from the check counter in one step): 1,000
    // creates over HTTP would be most of this test's time.
    const reserved = await store.client.send(
      new UpdateCommand({
        TableName: store.table,
        Key: { pk: 'counter#check', sk: 'counter' },
        UpdateExpression: 'ADD #value :n',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':n': 1000 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const lastId = Number(reserved.Attributes?.value);
    const seeds = Array.from({ length: 1000 }, (_, i) => ({ checkId: lastId - 999 + i, token: randomUUID(), workspaceId: big.workspaceId, projectId: big.projectId }));
    const common = {
      checkMode: 'INBOUND',
      checkType: 'HEARTBEAT',
      intervalSeconds: 300,
      graceSeconds: 60,
      muteNotifications: false,
      downSeverity: 'P1',
      lateSeverity: 'P3',
      status: 'NEW',
      createdAt: iso,
      updatedAt: iso,
    } as const;
    await store.entities.check.put(seeds.map((seed) => ({ ...seed, ...common, name: `job ${seed.checkId}` }))).go();
    await store.entities.checkRef.put(seeds.map((seed) => ({ ...seed, checkMode: 'INBOUND' as const }))).go();
    await countBulkRefs(
      store,
      seeds.map((seed) => ({ ...seed, checkMode: 'INBOUND' as const })),
    );
    const client = await connect(origin, await t.apiKey(big, { permission: 'read_only' }));
    const first = await ok<Page<Check>>(client, 'list_checks');
    expect(first.data).toMatchObject({ total: 1000, page: 1, limit: 20, remaining: 980, nextPage: 2 });
    expect(first.data.items).toHaveLength(20);
    expect(first.text.split('\n')[0]).toBe('checks 1-20 of 1000; 980 more (page=2).');

    const widest = await client.callTool({ name: 'list_checks', arguments: { limit: 100, page: 10 } });
    expect(widest.structuredContent as Page<Check>).toMatchObject({ remaining: 0, nextPage: null });
    // 100 summaries and their text: well inside what an assistant's context can take.
    expect(JSON.stringify(widest).length).toBeLessThan(60_000);

    const overview = await ok<{ checks: { total: number; byStatus: { NEW: number } } }>(client, 'workspace_overview');
    expect(overview.data.checks).toMatchObject({ total: 1000, byStatus: { NEW: 1000 } });
    await client.close();
  }, 120_000);
});

describe('how a check is timed', () => {
  it('a cron job reads as its schedule and time zone, not as the shortest gap of its schedule; an interval job as its interval', async () => {
    const user = await t.signup('tools-timing');
    const client = await connect(origin, await t.apiKey(user));
    type Timed = { check: { intervalSeconds: number | null; schedule: string | null; timezone: string | null; graceSeconds: number } };
    const nightly = await ok<{ check: Check }>(client, 'create_job', {
      name: 'nightly export',
      projectId: user.projectId,
      schedule: '30 2 * * *',
      timezone: 'Europe/Berlin',
      graceSeconds: 600,
    });
    const got = await ok<Timed>(client, 'get_check', { check: nightly.data.check.id });
    expect(got.data.check).toMatchObject({ intervalSeconds: null, schedule: '30 2 * * *', timezone: 'Europe/Berlin', graceSeconds: 600 });
    expect(got.text.split('\n')[1]).toBe('on the schedule "30 2 * * *" (Europe/Berlin), grace 600s');
    const explained = await ok<Timed>(client, 'explain_check', { check: nightly.data.check.id });
    expect(explained.data.check).toMatchObject({ intervalSeconds: null, schedule: '30 2 * * *', timezone: 'Europe/Berlin' });

    const hourly = await ok<{ check: Check }>(client, 'create_job', { name: 'queue drain', projectId: user.projectId, intervalSeconds: 900 });
    const plain = await ok<Timed>(client, 'get_check', { check: hourly.data.check.id });
    expect(plain.data.check).toMatchObject({ intervalSeconds: 900, schedule: null, timezone: null });
    expect(plain.text.split('\n')[1]).toBe('every 900s, grace 300s');
    await client.close();
  });
});
