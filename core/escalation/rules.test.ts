import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { createTeam, type Team as Workspace } from '../../test/support/identity.js';

type Rule = { id: number; projectId: number; alertChannelId: number; delayMinutes: number; enabled: boolean; alertChannel: Record<string, unknown> };
type Page<T> = { items: T[]; total: number; pageCount: number };

let t: TestContext;
let ws: Workspace;
let hook: { id: number; secret: string };
let mail: number;
beforeAll(async () => {
  t = await createTestContext();
  ws = await createTeam(t, 'rule');
  const created = await t.request<{ id: number; secret: string }>('POST', '/alert-channels', {
    token: ws.admin.token,
    body: { workspaceId: ws.workspaceId, name: 'Hook', type: 'WEBHOOK', config: { url: 'https://example.com/hook' } },
  });
  hook = created.body;
  mail = (
    await t.request<{ id: number }>('POST', '/alert-channels', {
      token: ws.admin.token,
      body: { workspaceId: ws.workspaceId, name: 'Mail', type: 'EMAIL', config: { email: 'ops@example.com' } },
    })
  ).body.id;
});
beforeEach(() => t.clock.advanceSeconds(61));

const create = (body: Record<string, unknown>, token = ws.admin.token) =>
  t.request<Rule>('POST', '/escalation-rules', { token, body: { projectId: ws.projectId, alertChannelId: hook.id, ...body } });

describe('legacy escalation rules', () => {
  it('creates, lists ordered by delay (paginated), embeds the channel, updates and deletes', async () => {
    const later = await create({ delayMinutes: 30 });
    expect(later.status, later.text).toBe(201);
    expect(later.body).toMatchObject({
      projectId: ws.projectId,
      alertChannelId: hook.id,
      delayMinutes: 30,
      enabled: true,
      alertChannel: { id: hook.id, name: 'Hook', type: 'WEBHOOK' },
    });
    const now = await create({ delayMinutes: 0, alertChannelId: mail });
    const mid = await create({ delayMinutes: 10, enabled: false });
    const delays = [2, 1000, 100];
    for (const delayMinutes of delays) await create({ delayMinutes });

    const list = await t.request<Page<Rule>>('GET', `/escalation-rules?projectId=${ws.projectId}&limit=4`, { token: ws.viewer.token });
    expect(list.status).toBe(200);
    expect(list.body.items.map((r) => r.delayMinutes)).toEqual([0, 2, 10, 30]);
    expect(list.body).toMatchObject({ total: 6, pageCount: 2 });
    const page2 = await t.request<Page<Rule>>('GET', `/escalation-rules?projectId=${ws.projectId}&limit=4&page=2`, { token: ws.viewer.token });
    expect(page2.body.items.map((r) => r.delayMinutes)).toEqual([100, 1000]);
    expect(list.body.items[0]?.alertChannel).toEqual({ id: mail, name: 'Mail', type: 'EMAIL' });

    const detail = await t.request<Rule>('GET', `/escalation-rules/${later.body.id}`, { token: ws.viewer.token });
    // A VIEWER reads the webhook's URL masked, as a Slack URL is (it may carry a credential).
    expect(detail.body.alertChannel).toMatchObject({ id: hook.id, type: 'WEBHOOK', config: { url: 'https://example.com/…hook', secretHint: `whsec_...${hook.secret.slice(-4)}` } });
    expect(detail.text).not.toContain(hook.secret);

    const put = await t.request<Rule>('PUT', `/escalation-rules/${mid.body.id}`, { token: ws.admin.token, body: { delayMinutes: 15, enabled: true, alertChannelId: mail } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ delayMinutes: 15, enabled: true, alertChannelId: mail, alertChannel: { name: 'Mail' } });
    // The old combination is free again, the new one taken.
    expect((await create({ delayMinutes: 10 })).status).toBe(201);
    expectError(await create({ delayMinutes: 15, alertChannelId: mail }), 409);

    expect((await t.request('DELETE', `/escalation-rules/${now.body.id}`, { token: ws.admin.token })).status).toBe(204);
    expectError(await t.request('GET', `/escalation-rules/${now.body.id}`, { token: ws.admin.token }), 404);
    const after = await t.request<Page<Rule>>('GET', `/escalation-rules?projectId=${ws.projectId}&limit=100`, { token: ws.viewer.token });
    expect(after.body.items.map((r) => r.delayMinutes)).toEqual([2, 10, 15, 30, 100, 1000]);
    expect((await create({ delayMinutes: 0, alertChannelId: mail })).status).toBe(201);
  });

  it('keeps projectId + alertChannelId + delayMinutes unique (409), also on PUT and in a race', async () => {
    expect((await create({ delayMinutes: 500 })).status).toBe(201);
    expectError(await create({ delayMinutes: 500 }), 409);
    expect((await create({ delayMinutes: 500, alertChannelId: mail })).status).toBe(201);
    const other = await create({ delayMinutes: 501 });
    expectError(await t.request('PUT', `/escalation-rules/${other.body.id}`, { token: ws.admin.token, body: { delayMinutes: 500 } }), 409);
    const racing = await Promise.all([create({ delayMinutes: 600 }), create({ delayMinutes: 600 }), create({ delayMinutes: 600 })]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('refuses bad input with 400, foreign ids with 404, and non-admins with 403', async () => {
    for (const body of [
      { delayMinutes: -1 },
      { delayMinutes: 1.5 },
      { delayMinutes: 'soon' },
      { delayMinutes: 1, extra: true },
      { delayMinutes: 1, projectId: undefined },
      { delayMinutes: 1, enabled: 'yes' },
    ]) {
      expectError(await create(body), 400);
    }
    expectError(await t.request('GET', '/escalation-rules', { token: ws.admin.token }), 400);
    const { outsider } = ws;
    const theirChannel = (
      await t.request<{ id: number }>('POST', '/alert-channels', {
        token: outsider.token,
        body: { workspaceId: outsider.workspaceId, name: 'Theirs', type: 'EMAIL', config: { email: 'x@example.com' } },
      })
    ).body.id;
    const theirs = (
      await t.request<Rule>('POST', '/escalation-rules', { token: outsider.token, body: { projectId: outsider.projectId, alertChannelId: theirChannel, delayMinutes: 0 } })
    ).body;
    expectError(await create({ delayMinutes: 700, alertChannelId: theirChannel }), 404);
    expectError(await create({ delayMinutes: 700, projectId: outsider.projectId }), 404);
    expectError(await t.request('GET', `/escalation-rules/${theirs.id}`, { token: ws.admin.token }), 404);
    expectError(await t.request('PUT', `/escalation-rules/${theirs.id}`, { token: ws.admin.token, body: { enabled: false } }), 404);
    expectError(await t.request('DELETE', `/escalation-rules/${theirs.id}`, { token: ws.admin.token }), 404);
    expectError(await t.request('GET', `/escalation-rules?projectId=${outsider.projectId}`, { token: ws.admin.token }), 404);
    const ours = await create({ delayMinutes: 701 });
    expectError(await t.request('PUT', `/escalation-rules/${ours.body.id}`, { token: ws.admin.token, body: { projectId: outsider.projectId } }), 404);
    expectError(await t.request('PUT', `/escalation-rules/${ours.body.id}`, { token: ws.admin.token, body: { alertChannelId: theirChannel } }), 404);
    for (const user of [ws.member, ws.viewer]) {
      expectError(await create({ delayMinutes: 702 }, user.token), 403);
      expectError(await t.request('PUT', `/escalation-rules/${ours.body.id}`, { token: user.token, body: { enabled: false } }), 403);
      expectError(await t.request('DELETE', `/escalation-rules/${ours.body.id}`, { token: user.token }), 403);
      expect((await t.request('GET', `/escalation-rules/${ours.body.id}`, { token: user.token })).status).toBe(200);
    }
  });
});
