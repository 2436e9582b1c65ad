import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { DashboardCheck } from './schema.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, inboundBody, outboundBody, type User } from '../../test/support/checks.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('checks');
});
beforeEach(() => freshRateWindow(t));

const post = (body: unknown) => t.request<DashboardCheck>('POST', '/checks', { token: user.token, body });

describe('POST /checks', () => {
  it('creates an inbound heartbeat check with defaults and a ping token', async () => {
    const check = expectStatus(await post(inboundBody(user)), 201);
    expect(check).toMatchObject({
      name: 'nightly backup',
      projectId: user.projectId,
      dependencyId: null,
      checkMode: 'INBOUND',
      checkType: 'HEARTBEAT',
      intervalSeconds: 300,
      graceSeconds: 30,
      muteNotifications: false,
      downSeverity: 'P1',
      lateSeverity: 'P3',
      status: 'NEW',
      paused: false,
      deploymentPaused: false,
      lastPingAt: null,
      nextDueAt: null,
      outbound: null,
      createdAt: t.clock.now().toISOString(),
    });
    expect(check.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(check.pingUrl).toBe(`${t.config.publicUrl}/api/signals/ping/${check.token}`);
    expect(Number.isInteger(check.id)).toBe(true);
  });

  it('creates an outbound HTTP check with the outbound defaults', async () => {
    const check = expectStatus(await post(outboundBody(user)), 201);
    expect(check.checkType).toBe('HTTP');
    expect(check.outbound).toEqual({
      url: 'https://example.com/health',
      method: 'GET',
      customHeaders: {},
      timeoutMs: 8000,
      expectedStatusMin: 200,
      expectedStatusMax: 399,
      followRedirects: true,
      maxRedirects: 3,
      blockHttpDowngrade: true,
      failAfterConsecutive: 3,
      resolveAfterConsecutiveSuccess: 2,
      latencyWarnMs: null,
      sslExpiryWarnDays: 14,
      regions: [t.config.homeRegion],
    });
  });

  it('keeps every outbound field given', async () => {
    const fields = {
      method: 'POST',
      customHeaders: { 'X-Probe': 'vigil' },
      timeoutMs: 1000,
      expectedStatusMin: 100,
      expectedStatusMax: 599,
      followRedirects: false,
      maxRedirects: 0,
      blockHttpDowngrade: false,
      failAfterConsecutive: 10,
      resolveAfterConsecutiveSuccess: 1,
      latencyWarnMs: 750,
      sslExpiryWarnDays: 365,
      regions: ['eu-west-1', 'ap-southeast-1'],
    };
    const check = expectStatus(await post(outboundBody(user, fields)), 201);
    expect(check.outbound).toEqual({ url: 'https://example.com/health', ...fields });
  });

  it('bounds intervalSeconds (60-3600, inbound at least 300) and graceSeconds (5-60)', async () => {
    expectStatus(await post(outboundBody(user, { intervalSeconds: 60, graceSeconds: 60 })), 201);
    expectStatus(await post(outboundBody(user, { intervalSeconds: 3600, graceSeconds: 5 })), 201);
    expectStatus(await post(inboundBody(user, { intervalSeconds: 300 })), 201);
    expectError(await post(outboundBody(user, { intervalSeconds: 59 })), 400, 'VALIDATION_ERROR');
    expectError(await post(outboundBody(user, { intervalSeconds: 3601 })), 400);
    expectError(await post(inboundBody(user, { intervalSeconds: 299 })), 400);
    expectError(await post(inboundBody(user, { graceSeconds: 4 })), 400);
    expectError(await post(inboundBody(user, { graceSeconds: 61 })), 400);
    expectError(await post(inboundBody(user, { intervalSeconds: 300.5 })), 400);
  });

  it('spot-checks outbound bounds through HTTP with field details', async () => {
    for (const [field, value] of [
      ['timeoutMs', 999],
      ['timeoutMs', 15001],
      ['expectedStatusMin', 99],
      ['expectedStatusMax', 600],
      ['maxRedirects', 4],
      ['failAfterConsecutive', 0],
      ['resolveAfterConsecutiveSuccess', 11],
      ['sslExpiryWarnDays', 366],
      ['method', 'DELETE'],
      ['regions', ['mars-1']],
    ] as const) {
      const err = expectError(await post(outboundBody(user, { [field]: value })), 400) as { details?: { path: string }[] };
      expect(err.details?.[0]?.path.startsWith(field), field).toBe(true);
    }
    expectError(await post(outboundBody(user, { expectedStatusMin: 400, expectedStatusMax: 300 })), 400);
    expectError(await post(outboundBody(user, { url: 'ftp://example.com' })), 400);
    expectError(await post(outboundBody(user, { url: `https://e.com/${'a'.repeat(2040)}` })), 400);
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-${i}`, 'v']));
    expectError(await post(outboundBody(user, { customHeaders: many })), 400);
    expectError(await post(outboundBody(user, { customHeaders: { 'X-A': 'a\r\nb' } })), 400);
    expectError(await post(outboundBody(user, { url: undefined })), 400);
  });

  it('refuses wrong checkType pairings with 400 CHECK_TYPE_MISMATCH and derives an omitted one', async () => {
    expectError(await post(outboundBody(user, { checkType: 'HEARTBEAT' })), 400, 'CHECK_TYPE_MISMATCH');
    expectError(await post(inboundBody(user, { checkType: 'HTTP' })), 400, 'CHECK_TYPE_MISMATCH');
    for (const checkType of ['DNS', 'TCP', 'SSL']) {
      expectError(await post(outboundBody(user, { checkType })), 400, 'CHECK_TYPE_MISMATCH');
      expectError(await post(inboundBody(user, { checkType })), 400, 'CHECK_TYPE_MISMATCH');
    }
    expectError(await post(inboundBody(user, { checkType: 'PING' })), 400, 'VALIDATION_ERROR');
    expect(expectStatus(await post(outboundBody(user, { checkType: 'HTTP' })), 201).checkType).toBe('HTTP');
    expect(expectStatus(await post(inboundBody(user, { checkType: 'HEARTBEAT' })), 201).checkType).toBe('HEARTBEAT');
  });

  it('refuses outbound fields on inbound checks, unknown fields and bad association', async () => {
    expectError(await post(inboundBody(user, { url: 'https://example.com' })), 400);
    expectError(await post(inboundBody(user, { timeoutMs: 2000 })), 400);
    expectError(await post(inboundBody(user, { token: 'mine' })), 400);
    expectError(await post(inboundBody(user, { status: 'OK' })), 400);
    expectError(await post(inboundBody(user, { checkMode: 'SIDEWAYS' })), 400);
    expectError(await post({ ...inboundBody(user), projectId: undefined }), 400);
    expectError(await post(inboundBody(user, { dependencyId: 1 })), 400);
    expectError(await post(outboundBody(user, { projectId: undefined, dependencyId: 1 })), 400);
    expectError(await post(inboundBody(user, { name: '' })), 400);
    expectError(await post(inboundBody(user, { name: 'x'.repeat(256) })), 400);
    expectStatus(await post(inboundBody(user, { name: 'x'.repeat(255) })), 201);
  });

  it('404s for a project, dependency or dependencyIds outside the workspace', async () => {
    const other = await t.signup('other');
    expectError(await post(inboundBody(user, { projectId: other.projectId })), 404);
    expectError(await post(inboundBody(user, { projectId: 99_999 })), 404);
    expectError(await post({ ...inboundBody(user), projectId: undefined, dependencyId: 99_999 }), 404);
    expectError(await post(inboundBody(user, { dependencyIds: [99_999] })), 404);
  });

  it('keeps severities and muteNotifications', async () => {
    const check = expectStatus(await post(inboundBody(user, { downSeverity: 'P2', lateSeverity: 'P4', muteNotifications: true })), 201);
    expect(check).toMatchObject({ downSeverity: 'P2', lateSeverity: 'P4', muteNotifications: true });
    expectError(await post(inboundBody(user, { downSeverity: 'P5' })), 400);
  });
});

describe('GET /checks and /checks/:id', () => {
  it('lists with the paginated envelope, default limit 10, filtered by project and mode', async () => {
    const owner = await t.signup('lister');
    const project = expectStatus(await t.request<{ id: number }>('POST', '/projects', { token: owner.token, body: { name: 'second', workspaceId: owner.workspaceId } }), 201);
    for (let i = 0; i < 11; i++) await createCheck(t, owner, inboundBody(owner, { name: `in ${i}` }));
    const out = await createCheck(t, owner, outboundBody(owner, { projectId: project.id }));

    const page1 = expectStatus(
      await t.request<{ items: DashboardCheck[]; total: number; page: number; itemCount: number; pageCount: number; limit: number }>('GET', '/checks', { token: owner.token }),
      200,
    );
    expect(page1).toMatchObject({ total: 12, page: 1, itemCount: 10, pageCount: 2, limit: 10 });
    const page2 = expectStatus(await t.request<{ items: DashboardCheck[] }>('GET', `/checks?workspaceId=${owner.workspaceId}&page=2`, { token: owner.token }), 200);
    expect(page2.items).toHaveLength(2);
    const outbound = expectStatus(await t.request<{ items: DashboardCheck[]; total: number }>('GET', '/checks?checkMode=OUTBOUND', { token: owner.token }), 200);
    expect(outbound.items.map((c) => c.id)).toEqual([out.id]);
    const byProject = expectStatus(await t.request<{ total: number }>('GET', `/checks?projectId=${project.id}`, { token: owner.token }), 200);
    expect(byProject.total).toBe(1);
    const inbound = expectStatus(await t.request<{ total: number }>('GET', `/checks?projectId=${owner.projectId}&checkMode=INBOUND&limit=100`, { token: owner.token }), 200);
    expect(inbound.total).toBe(11);
    expectError(await t.request('GET', '/checks?limit=101', { token: owner.token }), 400);
    expectError(await t.request('GET', '/checks?checkMode=BOTH', { token: owner.token }), 400);
    expectError(await t.request('GET', `/checks?projectId=${user.projectId}`, { token: owner.token }), 404);
    expectError(await t.request('GET', `/checks?workspaceId=${user.workspaceId}`, { token: owner.token }), 404);
  });

  it('gets one check with its outbound config', async () => {
    const created = await createCheck(t, user, outboundBody(user, { regions: ['eu-west-1'] }));
    const got = expectStatus(await t.request<DashboardCheck & { probe: unknown }>('GET', `/checks/${created.id}`, { token: user.token }), 200);
    const { probe, ...check } = got;
    expect(check).toEqual(created);
    expect(probe).toMatchObject({ status: 'NEW', regions: [{ region: 'eu-west-1', lastRun: null }] });
    expectError(await t.request('GET', '/checks/999999', { token: user.token }), 404);
    expectError(await t.request('GET', '/checks/abc', { token: user.token }), 400);
    expectError(await t.request('GET', `/checks/${created.id}`), 401);
    const key = await t.apiKey(user);
    expectError(await t.request('GET', `/checks/${created.id}`, { token: key }), 401);
  });

  it('gets a check by token with its 20 newest signals', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    const expiresAt = Math.floor(t.clock.now().getTime() / 1000) + 86_400;
    for (let i = 0; i < 25; i++) {
      await t.deps.store.entities.signal
        .create({
          checkId: check.id,
          workspaceId: user.workspaceId,
          signalId: `s${String(i).padStart(2, '0')}`,
          receivedAt: new Date(t.clock.now().getTime() + i * 1000).toISOString(),
          type: 'SUCCESS',
          source: 'PING',
          expiresAt,
        })
        .go();
    }
    const res = expectStatus(await t.request<DashboardCheck & { signals: { id: string }[] }>('GET', `/checks/token/${check.token}`, { token: user.token }), 200);
    expect(res.id).toBe(check.id);
    expect(res.dependencyIds).toEqual([]);
    expect(res.signals.map((s) => s.id)).toEqual(Array.from({ length: 20 }, (_, i) => `s${String(24 - i).padStart(2, '0')}`));
    expectError(await t.request('GET', '/checks/token/not-a-token', { token: user.token }), 404);
  });

  it('lists the dependencies a check is linked to and those its pings reported', async () => {
    const linked = expectStatus(
      await t.request<{ id: number }>('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name: `db-${Date.now()}` } }),
      201,
    );
    const check = await createCheck(t, user, inboundBody(user, { dependencyIds: [linked.id] }));
    t.clock.advanceSeconds(2);
    const ping = await t.request('POST', `/signals/ping/${check.token}`, {
      rawBody: JSON.stringify({ dependencies: [{ name: 'stripe', status: 'ok' }] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(ping.status).toBe(200);
    await t.deps.queue.drain();
    const res = expectStatus(await t.request<{ dependencies: { id: number; name: string }[] }>('GET', `/checks/token/${check.token}`, { token: user.token }), 200);
    expect(res.dependencies.map((d) => d.id)).toContain(linked.id);
    expect(res.dependencies.map((d) => d.name)).toContain('stripe');
  });

  it('includes the latest probe state for outbound checks, null for inbound ones', async () => {
    const outbound = await createCheck(t, user, outboundBody(user));
    const detail = expectStatus(
      await t.request<{ probe: { status: string; consecutiveFailures: number; regions: unknown[] } | null }>('GET', `/checks/${outbound.id}`, { token: user.token }),
      200,
    );
    expect(detail.probe).toMatchObject({ status: 'NEW', consecutiveFailures: 0 });
    expect(Array.isArray(detail.probe?.regions)).toBe(true);
    const inbound = await createCheck(t, user, inboundBody(user));
    expect(expectStatus(await t.request<{ probe: unknown }>('GET', `/checks/${inbound.id}`, { token: user.token }), 200).probe).toBeNull();
  });
});

describe('PATCH /checks/:id', () => {
  it('changes any creation field and validates the merged check', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    const patched = expectStatus(
      await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { name: 'renamed', graceSeconds: 60, lateSeverity: 'P2' } }),
      200,
    );
    expect(patched).toMatchObject({ name: 'renamed', graceSeconds: 60, lateSeverity: 'P2', intervalSeconds: 300, token: check.token });
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { intervalSeconds: 120 } }), 400);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { checkType: 'HTTP' } }), 400, 'CHECK_TYPE_MISMATCH');
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { url: 'https://example.com' } }), 400);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { workspaceId: 2 } }), 400);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { projectId: user.projectId, dependencyId: 1 } }), 400);
    // Nothing of the refused patches was written.
    const after = expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: user.token }), 200);
    expect(after).toMatchObject({ name: 'renamed', intervalSeconds: 300, checkMode: 'INBOUND' });
  });

  it('switches an inbound check to outbound (url required) and back', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { checkMode: 'OUTBOUND' } }), 400);
    const outbound = expectStatus(
      await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { checkMode: 'OUTBOUND', url: 'https://example.com', intervalSeconds: 60 } }),
      200,
    );
    expect(outbound).toMatchObject({ checkMode: 'OUTBOUND', checkType: 'HTTP', intervalSeconds: 60 });
    expect(t.deps.scheduler.schedules.get(`probe-${check.id}-${t.config.homeRegion}`)?.everySeconds).toBe(60);
    const merged = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { timeoutMs: 3000 } }), 200);
    expect(merged.outbound).toMatchObject({ url: 'https://example.com', timeoutMs: 3000 });
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { checkMode: 'INBOUND' } }), 400);
    const inbound = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: user.token, body: { checkMode: 'INBOUND', intervalSeconds: 600 } }), 200);
    expect(inbound).toMatchObject({ checkMode: 'INBOUND', checkType: 'HEARTBEAT', outbound: null });
    expect(t.deps.scheduler.schedules.has(`probe-${check.id}-${t.config.homeRegion}`)).toBe(false);
  });

  it('keeps probe schedules in step with regions and interval', async () => {
    const check = await createCheck(t, user, outboundBody(user, { regions: ['us-east-1', 'eu-west-1'] }));
    const names = () => [...t.deps.scheduler.schedules.keys()].filter((n) => n.startsWith(`probe-${check.id}-`)).sort();
    expect(names()).toEqual([`probe-${check.id}-eu-west-1`, `probe-${check.id}-us-east-1`]);
    expect(t.deps.scheduler.schedules.get(`probe-${check.id}-eu-west-1`)).toEqual({
      name: `probe-${check.id}-eu-west-1`,
      everySeconds: 60,
      payload: { checkId: check.id, region: 'eu-west-1' },
      target: 'probe',
      region: 'eu-west-1',
      enabled: true,
    });
    expectStatus(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { regions: ['ap-southeast-1'], intervalSeconds: 120 } }), 200);
    expect(names()).toEqual([`probe-${check.id}-ap-southeast-1`]);
    expect(t.deps.scheduler.schedules.get(`probe-${check.id}-ap-southeast-1`)?.everySeconds).toBe(120);
    expectStatus(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { regions: null } }), 200);
    expect(names()).toEqual([`probe-${check.id}-${t.config.homeRegion}`]);
    expectStatus(await t.request('DELETE', `/checks/${check.id}`, { token: user.token }), 204);
    expect(names()).toEqual([]);
  });
});
