import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { callTool, connect, ok, serveApp } from '../../test/support/mcp.js';
import type { DashboardCheck, JobV1 } from './schema.js';
import { LONG_SESSIONS, addMember, createCheck, expectStatus, freshRateWindow, inboundBody, type User } from '../../test/support/checks.js';

let t: TestContext;
let owner: User;
let readOnly: string;
let readWrite: string;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  owner = await t.signup('secrets-owner');
  readOnly = await t.apiKey(owner, { permission: 'read_only' });
  readWrite = await t.apiKey(owner);
});
beforeEach(() => freshRateWindow(t));

describe('ping tokens and read_only keys', () => {
  it('gives a read_only key no token and no ping URL on /v1/jobs, and a read_write key both', async () => {
    const job = expectStatus(await t.request<JobV1>('POST', '/v1/jobs', { token: readWrite, body: { name: 'nightly', projectId: owner.projectId } }), 201);
    expect(job.token).toMatch(/.+/);
    const seen = expectStatus(await t.request<JobV1>('GET', `/v1/jobs/${job.id}`, { token: readOnly }), 200);
    expect(seen.token).toBeNull();
    expect(seen.pingUrl).toBeNull();
    const list = expectStatus(await t.request<{ items: JobV1[] }>('GET', '/v1/jobs', { token: readOnly }), 200);
    expect(JSON.stringify(list)).not.toContain(job.token);
    expect(expectStatus(await t.request<JobV1>('GET', `/v1/jobs/${job.id}`, { token: readWrite }), 200).token).toBe(job.token);
  });

  it('gives a read_only key no ping URL through the assistant surface', async () => {
    const job = await createCheck(t, owner, inboundBody(owner, { name: 'mcp job' }));
    const { origin, close } = await serveApp(t);
    try {
      const client = await connect(origin, readOnly);
      const result = await ok<{ check: { pingUrl: string | null } }>(client, 'get_check', { check: String(job.id) });
      expect(result.data.check.pingUrl).toBeNull();
      expect(JSON.stringify(result)).not.toContain(job.token);
      await client.close();
      const writer = await connect(origin, readWrite);
      expect((await callTool<{ check: { pingUrl: string | null } }>(writer, 'get_check', { check: String(job.id) })).data.check.pingUrl).toContain(job.token);
      await writer.close();
    } finally {
      await close();
    }
  });
});

describe('POST /checks/:id/rotate-token', () => {
  it('gives the check a new token; the old one is 404 on ping, even after the ping path has cached it', async () => {
    const check = await createCheck(t, owner, inboundBody(owner, { name: 'leaked' }));
    expect((await t.request('GET', `/signals/ping/${check.token}`)).status).toBe(200);
    t.clock.advanceSeconds(2);
    const rotated = expectStatus(await t.request<DashboardCheck>('POST', `/checks/${check.id}/rotate-token`, { token: owner.token }), 200);
    expect(rotated.token).not.toBe(check.token);
    expect(rotated.pingUrl).toContain(rotated.token);
    expect(rotated).toMatchObject({ id: check.id, name: 'leaked', status: 'OK', projectId: owner.projectId });
    expectError(await t.request('GET', `/signals/ping/${check.token}`), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('GET', `/signals/ping/${check.token}/fail`), 404, 'CHECK_NOT_FOUND');
    t.clock.advanceSeconds(2);
    expect((await t.request('GET', `/signals/ping/${rotated.token}`)).status).toBe(200);
    const read = expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: owner.token }), 200);
    expect(read.token).toBe(rotated.token);
    const history = expectStatus(await t.request<{ total: number }>('GET', `/signals/token/${rotated.token}`, { token: owner.token }), 200);
    expect(history.total).toBe(2);
  });

  it('needs MEMBER: a VIEWER is 403, a stranger 404', async () => {
    const check = await createCheck(t, owner, inboundBody(owner, { name: 'guarded' }));
    const viewer = await t.signup('secrets-viewer');
    await addMember(t, owner, viewer, 'VIEWER');
    expectError(await t.request('POST', `/checks/${check.id}/rotate-token`, { token: viewer.token }), 403);
    const stranger = await t.signup('secrets-stranger');
    expectError(await t.request('POST', `/checks/${check.id}/rotate-token`, { token: stranger.token }), 404);
    const member = await t.signup('secrets-member');
    await addMember(t, owner, member, 'MEMBER');
    expectStatus(await t.request('POST', `/checks/${check.id}/rotate-token`, { token: member.token }), 200);
  });
});
