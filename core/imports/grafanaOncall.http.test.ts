import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { oncallExport } from '../../test/support/grafanaOncall.js';
import { createTeam, type Team } from '../../test/support/identity.js';
import type { ImportReport } from './report.js';

/** `POST /v1/import/grafana-oncall` over HTTP into the embedded store (fixture: OnCall's API reference, see test/support/grafanaOncall.ts). */

type Schedule = { id: number; name: string; rotations: { name: string }[]; overrides: unknown[] };

let t: TestContext;
let ws: Team;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createTeam(t, 'oncall-http');
  key = await t.apiKey(ws.owner);
});

const fixture = (team: Team) => oncallExport({ alex: team.admin.email, bob: team.member.email, carol: team.viewer.email, stranger: team.outsider.email });
const importOncall = (body: unknown, query = '', token = key) => t.request<ImportReport>('POST', `/v1/import/grafana-oncall${query}`, { token, body });
const schedulesOf = async (team: Team) =>
  (await t.request<{ items: Schedule[] }>('GET', `/on-call-schedules?workspaceId=${team.workspaceId}`, { token: team.admin.token })).body.items;
const policiesOf = async (team: Team) =>
  (await t.request<{ items: { id: number; name: string }[] }>('GET', `/escalation-policies?workspaceId=${team.workspaceId}`, { token: team.admin.token })).body.items;

describe('POST /v1/import/grafana-oncall', () => {
  it('dry run, real run, second run: the dry run writes nothing, the second run changes nothing', async () => {
    const dry = await importOncall(fixture(ws), '?dryRun=true');
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body).toMatchObject({ source: 'grafana-oncall', dryRun: true });
    expect(dry.body.created.map((e) => `${e.kind}: ${e.name}`)).toEqual([
      'schedule: Demo schedule Calendar',
      'rotation: Demo schedule Calendar / Primary',
      'rotation: Demo schedule Calendar / Backup',
      'schedule: Platform',
      'rotation: Platform / Follow the sun',
      'override: Platform / Bob covers the evening',
      'escalation policy: default',
    ]);
    expect(await schedulesOf(ws)).toEqual([]);
    expect(await policiesOf(ws)).toEqual([]);

    const real = await importOncall(fixture(ws));
    expect(real.status, real.text).toBe(200);
    expect(real.body.created.map(({ kind, name }) => ({ kind, name }))).toEqual(dry.body.created);
    expect(real.body.skipped).toEqual(dry.body.skipped);
    const schedules = await schedulesOf(ws);
    expect(schedules.map((s) => [s.name, s.rotations.map((r) => r.name), s.overrides.length])).toEqual([
      ['Demo schedule Calendar', ['Primary', 'Backup'], 0],
      ['Platform', ['Follow the sun'], 1],
    ]);
    expect((await policiesOf(ws)).map((p) => p.name)).toEqual(['default']);

    const again = await importOncall(fixture(ws));
    expect(again.status, again.text).toBe(200);
    expect(again.body.created).toEqual([]);
    expect(again.body.unchanged).toEqual(expect.arrayContaining(real.body.created));
    expect(again.body.skipped).toEqual(real.body.skipped);
    expect(await schedulesOf(ws)).toEqual(schedules);
    expect((await policiesOf(ws)).map((p) => p.name)).toEqual(['default']);
  });

  it('refuses a malformed file with 400 in the error shape, naming the field, and writes nothing', async () => {
    const team = await createTeam(t, 'oncall-http-bad');
    const teamKey = await t.apiKey(team.owner);
    const bad = fixture(team);
    bad.schedules[1] = { ...bad.schedules[1], shifts: 'OPRIMARYWEEK1' } as unknown as (typeof bad.schedules)[number];
    const res = await importOncall(bad, '', teamKey);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect((res.body as unknown as { details: unknown[] }).details).toEqual([{ path: 'schedules.1.shifts', message: expect.any(String) }]);
    expectError(await t.request('POST', '/v1/import/grafana-oncall', { token: teamKey, rawBody: '{"users": [', headers: { 'content-type': 'application/json' } }), 400);
    expectError(await importOncall([{ id: 'U1' }], '', teamKey), 400);
    expectError(await importOncall({ on_call_shifts: [{ id: 'O1', name: 'x', type: 'rolling_users', start: '2026-03-02T09:00:00', duration: -1 }] }, '', teamKey), 400);
    expect(await schedulesOf(team)).toEqual([]);
  });

  it('imports into the key’s own workspace only: members of other workspaces are not matched, read-only keys and sessions are refused', async () => {
    const other = await createTeam(t, 'oncall-http-other');
    const otherKey = await t.apiKey(other.owner);
    // The file names ws's people; other's key imports into other's workspace, where none of them is a member.
    const foreign = await importOncall(fixture(ws), '', otherKey);
    expect(foreign.status, foreign.text).toBe(200);
    expect(foreign.body.unchanged).toEqual([]);
    expect(foreign.body.skipped.filter((s) => s.kind === 'user')).toHaveLength(4);
    expect(foreign.body.created.map((e) => e.kind)).not.toContain('rotation');
    const created = await schedulesOf(other);
    expect(created.map((s) => [s.name, s.rotations.length, s.overrides.length])).toEqual([
      ['Demo schedule Calendar', 0, 0],
      ['Platform', 0, 0],
    ]);
    // Nothing of it reaches ws, whose own import (first test or not) is untouched by it.
    expect((await schedulesOf(ws)).map((s) => s.id)).not.toEqual(expect.arrayContaining(created.map((s) => s.id)));
    expectError(await t.request('GET', `/on-call-schedules/${created[0]?.id}`, { token: ws.admin.token }), 404);

    const readOnly = await t.apiKey(other.owner, { permission: 'read_only' });
    expectError(await importOncall(fixture(other), '?dryRun=true', readOnly), 403);
    expectError(await importOncall(fixture(other), '?dryRun=true', other.owner.token), 401);
    expectError(await importOncall(fixture(other), '?dryRun=true', 'vigil_not-a-key'), 401);
    expectError(await t.request('POST', '/v1/import/grafana-oncall', { body: fixture(other) }), 401);
  });

  it('is documented in the Integration API document', async () => {
    const doc = await t.request<{ paths: Record<string, { post?: { requestBody?: unknown; responses?: Record<string, unknown> } }> }>('GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    const route = doc.body.paths['/import/grafana-oncall']?.post;
    expect(route?.requestBody).toBeDefined();
    expect(Object.keys(route?.responses ?? {})).toContain('200');
  });
});
