import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../auth/plans.js';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { DashboardCheck } from './schema.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, inboundBody, outboundBody } from '../../test/support/checks.js';

const FREE = PLAN_LIMITS.FREE;
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_DEFAULT_PLAN: 'FREE' });
});
beforeEach(() => freshRateWindow(t));

describe('plan limits (FREE workspace)', () => {
  it('enforces the interval floor on every surface', async () => {
    const user = await t.signup('floor');
    const key = await t.apiKey(user);
    expectError(
      await t.request('POST', '/checks', { token: user.token, body: outboundBody(user, { intervalSeconds: FREE.outboundIntervalFloorSeconds - 1 }) }),
      403,
      'PLAN_LIMIT_EXCEEDED',
    );
    expectStatus(await t.request('POST', '/checks', { token: user.token, body: outboundBody(user, { intervalSeconds: FREE.outboundIntervalFloorSeconds }) }), 201);
    const v1 = { name: 'api', projectId: user.projectId, config: { url: 'https://example.com' } };
    expectError(await t.request('POST', '/v1/checks', { token: key, body: { ...v1, intervalSeconds: 10 } }), 403, 'PLAN_LIMIT_EXCEEDED');
    expectStatus(await t.request('POST', '/v1/checks', { token: key, body: v1 }), 201);
    expectError(await t.request('POST', '/v1/jobs', { token: key, body: { name: 'cron', projectId: user.projectId, intervalSeconds: 10 } }), 403, 'PLAN_LIMIT_EXCEEDED');
    const job = expectStatus(await t.request<{ id: number }>('POST', '/v1/jobs', { token: key, body: { name: 'cron', projectId: user.projectId } }), 201);
    expectError(await t.request('PATCH', `/v1/jobs/${job.id}`, { token: key, body: { intervalSeconds: 60 } }), 403, 'PLAN_LIMIT_EXCEEDED');
    // Untouched intervals are not judged again: a rename passes.
    expectStatus(await t.request('PATCH', `/v1/jobs/${job.id}`, { token: key, body: { name: 'renamed' } }), 200);
  });

  it('gates muteNotifications', async () => {
    const user = await t.signup('mute');
    expectError(await t.request('POST', '/checks', { token: user.token, body: inboundBody(user, { muteNotifications: true }) }), 403, 'PLAN_LIMIT_EXCEEDED');
    const check = await createCheck(t, user, inboundBody(user, { muteNotifications: false }));
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { muteNotifications: true } }), 403, 'PLAN_LIMIT_EXCEEDED');
    const key = await t.apiKey(user);
    expectError(await t.request('POST', '/v1/jobs', { token: key, body: { name: 'j', projectId: user.projectId, muteNotifications: true } }), 403, 'PLAN_LIMIT_EXCEEDED');
    expect(expectStatus(await t.request<DashboardCheck>('GET', `/checks/${check.id}`, { token: user.token }), 200).muteNotifications).toBe(false);
  });

  it('limits outbound checks and all checks separately; a delete frees room', async () => {
    const user = await t.signup('counts');
    const outbound: DashboardCheck[] = [];
    for (let i = 0; i < FREE.outboundChecks; i++) outbound.push(await createCheck(t, user, outboundBody(user, { intervalSeconds: 300 })));
    expectError(await t.request('POST', '/checks', { token: user.token, body: outboundBody(user, { intervalSeconds: 300 }) }), 403, 'PLAN_LIMIT_EXCEEDED');

    const inbound = await createCheck(t, user, inboundBody(user));
    expectError(await t.request('PATCH', `/checks/${inbound.id}`, { token: user.token, body: { checkMode: 'OUTBOUND', url: 'https://example.com' } }), 403, 'PLAN_LIMIT_EXCEEDED');
    for (let i = FREE.outboundChecks + 1; i < FREE.checks; i++) await createCheck(t, user, inboundBody(user));
    expectError(await t.request('POST', '/checks', { token: user.token, body: inboundBody(user) }), 403, 'PLAN_LIMIT_EXCEEDED');
    const list = expectStatus(await t.request<{ total: number }>('GET', '/checks', { token: user.token }), 200);
    expect(list.total).toBe(FREE.checks);

    const first = outbound[0];
    if (!first) throw new Error('no outbound check');
    expectStatus(await t.request('DELETE', `/checks/${first.id}`, { token: user.token }), 204);
    expectStatus(await t.request('POST', '/checks', { token: user.token, body: outboundBody(user, { intervalSeconds: 300 }) }), 201);
  });
});
