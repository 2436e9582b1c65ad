import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam, type Team } from '../../test/support/identity.js';
import { alertmanagerNotification, createIntegration, intakePath, postIntake, type CreatedIntegration } from '../../test/support/integrations.js';

let t: TestContext;
let team: Team;
beforeAll(async () => {
  t = await createTestContext();
  team = await createTeam(t, 'int');
});
beforeEach(() => t.clock.advanceSeconds(61));

const list = async (token: string) => (await t.request<CreatedIntegration[]>('GET', `/integrations?workspaceId=${team.workspaceId}`, { token })).body;

describe('integration resource', () => {
  it('creates with an intake URL shown once, lists, gets, patches and deletes', async () => {
    const created = await createIntegration(t, team.admin, { workspaceId: team.workspaceId, name: 'Prod Alertmanager', projectId: team.projectId });
    expect(created).toMatchObject({
      workspaceId: team.workspaceId,
      name: 'Prod Alertmanager',
      kind: 'ALERTMANAGER',
      projectId: team.projectId,
      enabled: true,
      defaultSeverity: 'P3',
      severityMap: { critical: 'P1', warning: 'P3' },
      grouping: 'GROUP',
    });
    expect(created.intakeUrl).toBe(`${t.config.publicUrl}/api/integrations/intake/${created.secret}`);
    expect(created.secretHint).toBe(created.secret.slice(-4));
    // Only a hash is kept: the stored item does not hold the secret.
    const stored = (await t.deps.store.entities.integration.get({ integrationId: created.id }).go()).data;
    expect(JSON.stringify(stored)).not.toContain(created.secret);

    const got = await t.request('GET', `/integrations/${created.id}`, { token: team.viewer.token });
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(created.secret);
    expect((await list(team.viewer.token)).map((i) => i.id)).toContain(created.id);

    const patched = await t.request<CreatedIntegration>('PATCH', `/integrations/${created.id}`, {
      token: team.admin.token,
      body: { name: 'Renamed', projectId: null, severityMap: { page: 'P1' }, defaultSeverity: 'P2', grouping: 'ALERT' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', projectId: null, severityMap: { page: 'P1' }, defaultSeverity: 'P2', grouping: 'ALERT' });

    expect((await t.request('DELETE', `/integrations/${created.id}`, { token: team.admin.token })).status).toBe(204);
    expectError(await t.request('GET', `/integrations/${created.id}`, { token: team.admin.token }), 404);
    expectError(await postIntake(t, created, alertmanagerNotification()), 404);
  });

  it('rotates the secret: the new URL works once shown, the old one is 404', async () => {
    const created = await createIntegration(t, team.admin, { workspaceId: team.workspaceId });
    const rotated = await t.request<CreatedIntegration>('POST', `/integrations/${created.id}/rotate-secret`, { token: team.admin.token });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect(rotated.body.intakeUrl).toContain(rotated.body.secret);
    expect(rotated.body.secretHint).toBe(rotated.body.secret.slice(-4));
    expectError(await postIntake(t, created, alertmanagerNotification({ groupKey: 'rotate' })), 404);
    expect((await postIntake(t, rotated.body, alertmanagerNotification({ groupKey: 'rotate' }))).status).toBe(200);
    // The secret also works as a bearer token on the bare intake path; the old one does not.
    const bearer = (secret: string) =>
      t.request('POST', '/integrations/intake', { body: alertmanagerNotification({ groupKey: 'rotate' }), headers: { authorization: `Bearer ${secret}` } });
    expect((await bearer(rotated.body.secret)).status).toBe(200);
    expectError(await bearer(created.secret), 404);
    expectError(await t.request('POST', '/integrations/intake', { body: alertmanagerNotification() }), 404);
  });

  it('disabling answers 404 at the intake until enabled again', async () => {
    const created = await createIntegration(t, team.admin, { workspaceId: team.workspaceId });
    const patch = (enabled: boolean) => t.request('PATCH', `/integrations/${created.id}`, { token: team.admin.token, body: { enabled } });
    expect((await patch(false)).status).toBe(200);
    expectError(await postIntake(t, created, alertmanagerNotification({ groupKey: 'disabled' })), 404);
    expect((await patch(true)).status).toBe(200);
    expect((await postIntake(t, created, alertmanagerNotification({ groupKey: 'disabled' }))).status).toBe(200);
  });

  it('a wrong secret is 404 in the error shape', async () => {
    expectError(await t.request('POST', '/integrations/intake/vin_not-a-real-secret-at-all', { body: alertmanagerNotification() }), 404);
    expectError(await t.request('POST', '/integrations/intake/x', { body: alertmanagerNotification() }), 404);
  });

  it('ADMIN manages, MEMBER and VIEWER may not; foreign workspaces and projects are 404', async () => {
    const body = { workspaceId: team.workspaceId, name: 'x', kind: 'GRAFANA' };
    expectError(await t.request('POST', '/integrations', { token: team.member.token, body }), 403);
    expectError(await t.request('POST', '/integrations', { token: team.viewer.token, body }), 403);
    expectError(await t.request('POST', '/integrations', { token: team.outsider.token, body }), 404);
    expectError(await t.request('POST', '/integrations', { token: team.admin.token, body: { ...body, projectId: team.outsider.projectId } }), 404);
    const created = await createIntegration(t, team.admin, { workspaceId: team.workspaceId });
    for (const [method, path] of [
      ['GET', `/integrations/${created.id}`],
      ['PATCH', `/integrations/${created.id}`],
      ['POST', `/integrations/${created.id}/rotate-secret`],
      ['DELETE', `/integrations/${created.id}`],
    ] as const) {
      expectError(await t.request(method, path, { token: team.outsider.token, ...(method === 'PATCH' ? { body: { name: 'mine' } } : {}) }), 404);
    }
    expectError(await t.request('PATCH', `/integrations/${created.id}`, { token: team.member.token, body: { name: 'mine' } }), 403);
    expectError(await t.request('PATCH', `/integrations/${created.id}`, { token: team.admin.token, body: { projectId: team.outsider.projectId } }), 404);
    expectError(await t.request('GET', `/integrations?workspaceId=${team.workspaceId}`, { token: team.outsider.token }), 404);
  });

  it('refuses bad bodies with 400 and details, creating nothing', async () => {
    const before = (await list(team.admin.token)).length;
    const bad: unknown[] = [
      { workspaceId: team.workspaceId, name: 'x', kind: 'NAGIOS' },
      { workspaceId: team.workspaceId, name: '', kind: 'ALERTMANAGER' },
      { workspaceId: team.workspaceId, name: 'x', kind: 'ALERTMANAGER', severityMap: { critical: 'P0' } },
      { workspaceId: team.workspaceId, name: 'x', kind: 'ALERTMANAGER', grouping: 'LABEL' },
      { workspaceId: team.workspaceId, name: 'x', kind: 'ALERTMANAGER', secret: 'mine' },
    ];
    for (const body of bad) {
      const err = expectError(await t.request('POST', '/integrations', { token: team.admin.token, body }), 400) as { details?: unknown[] };
      expect(err.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect((await list(team.admin.token)).length).toBe(before);
  });

  it('the same verbs on /v1/integrations with a read_write API key; a read_only key may only read', async () => {
    const key = await t.apiKey(team.owner);
    const readOnly = await t.apiKey(team.owner, { permission: 'read_only' });
    const created = await t.request<CreatedIntegration>('POST', '/v1/integrations', { token: key, body: { name: 'From CI', kind: 'GRAFANA' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ workspaceId: team.workspaceId, kind: 'GRAFANA' });
    expect(created.body.intakeUrl).toContain(created.body.secret);
    const page = await t.request<{ items: CreatedIntegration[]; total: number }>('GET', '/v1/integrations', { token: readOnly });
    expect(page.status).toBe(200);
    expect(page.body.items.map((i) => i.id)).toContain(created.body.id);
    expect((await t.request('GET', `/v1/integrations/${created.body.id}`, { token: readOnly })).status).toBe(200);
    expectError(await t.request('POST', '/v1/integrations', { token: readOnly, body: { name: 'x', kind: 'GRAFANA' } }), 403);
    const rotated = await t.request<CreatedIntegration>('POST', `/v1/integrations/${created.body.id}/rotate-secret`, { token: key });
    expect(rotated.status).toBe(200);
    expect((await t.request('PATCH', `/v1/integrations/${created.body.id}`, { token: key, body: { enabled: false } })).status).toBe(200);
    expectError(await postIntake(t, rotated.body, alertmanagerNotification()), 404);
    // Another workspace's key sees none of it.
    const foreignKey = await t.apiKey(team.outsider);
    expectError(await t.request('GET', `/v1/integrations/${created.body.id}`, { token: foreignKey }), 404);
    expectError(await t.request('DELETE', `/v1/integrations/${created.body.id}`, { token: foreignKey }), 404);
    expectError(await t.request('POST', '/v1/integrations', { token: foreignKey, body: { workspaceId: team.workspaceId, name: 'x', kind: 'GRAFANA' } }), 404);
    expect((await t.request('DELETE', `/v1/integrations/${created.body.id}`, { token: key })).status).toBe(204);
    expect(intakePath(created.body)).toMatch(/^\/api\/integrations\/intake\/vin_/);
  });
});

afterAll(() => undefined);
