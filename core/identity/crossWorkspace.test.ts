import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { TestUser } from '../../test/support/identity.js';
import { confirmAddress } from '../../test/support/alerting.js';

/**
 * Every identity route with an id (or a workspaceId in the query or body) that belongs to
 * another workspace answers 404, exactly like an id that does not exist, and changes nothing.
 */
let t: TestContext;
let mallory: TestUser;
let victim: TestUser;
let victimKeyId: number;
let victimChannelId: number;
let victimFriend: TestUser;

beforeAll(async () => {
  t = await createTestContext();
  mallory = await t.signup('mallory');
  victim = await t.signup('victim');
  victimFriend = await t.signup('friend');
  const add = await t.request('POST', `/workspaces/${victim.workspaceId}/members`, { token: victim.token, body: { email: victimFriend.email, role: 'MEMBER' } });
  expect(add.status).toBe(201);
  const key = await t.request<{ id: number }>('POST', '/api-keys', { token: victim.token, body: { workspaceId: victim.workspaceId, name: 'victim key' } });
  victimKeyId = key.body.id;
  const channel = await t.request<{ id: number }>('POST', '/alert-channels', {
    token: victim.token,
    body: { workspaceId: victim.workspaceId, name: 'victim channel', type: 'EMAIL', config: { email: 'v@example.com' } },
  });
  victimChannelId = channel.body.id;
  await confirmAddress(t, 'v@example.com');
});

describe('foreign ids are 404 on every identity route', () => {
  const cases: [string, string, () => string, unknown?][] = [
    ['project get', 'GET', () => `/projects/${victim.projectId}`],
    ['project patch', 'PATCH', () => `/projects/${victim.projectId}`, { name: 'pwned' }],
    ['project delete', 'DELETE', () => `/projects/${victim.projectId}`],
    ['project list', 'GET', () => `/projects?workspaceId=${victim.workspaceId}`],
    ['project create', 'POST', () => '/projects', 'victim-workspace'],
    ['api key list', 'GET', () => `/api-keys?workspaceId=${victim.workspaceId}`],
    ['api key create', 'POST', () => '/api-keys', 'victim-workspace'],
    ['api key patch', 'PATCH', () => `/api-keys/${victimKeyId}`, { enabled: false }],
    ['api key delete', 'DELETE', () => `/api-keys/${victimKeyId}`],
    ['workspace get', 'GET', () => `/workspaces/${victim.workspaceId}`],
    ['workspace patch', 'PATCH', () => `/workspaces/${victim.workspaceId}`, { name: 'pwned' }],
    ['members list', 'GET', () => `/workspaces/${victim.workspaceId}/members`],
    ['member add', 'POST', () => `/workspaces/${victim.workspaceId}/members`, 'mallory-email'],
    ['member patch', 'PATCH', () => `/workspaces/${victim.workspaceId}/members/${victimFriend.userId}`, { role: 'VIEWER' }],
    ['member delete', 'DELETE', () => `/workspaces/${victim.workspaceId}/members/${victimFriend.userId}`],
    ['alert channel list', 'GET', () => `/alert-channels?workspaceId=${victim.workspaceId}`],
    ['alert channel get', 'GET', () => `/alert-channels/${victimChannelId}`],
    ['alert channel patch', 'PATCH', () => `/alert-channels/${victimChannelId}`, { name: 'pwned' }],
    ['alert channel delete', 'DELETE', () => `/alert-channels/${victimChannelId}`],
    ['alert channel test', 'POST', () => `/alert-channels/${victimChannelId}/test`],
  ];
  for (const [name, method, path, rawBody] of cases) {
    it(name, async () => {
      let body = rawBody;
      if (rawBody === 'victim-workspace') {
        body = { workspaceId: victim.workspaceId, name: 'pwned' };
      } else if (rawBody === 'mallory-email') {
        body = { email: mallory.email, role: 'OWNER' };
      }
      expectError(await t.request(method, path(), { token: mallory.token, ...(body === undefined ? {} : { body }) }), 404);
    });
  }

  it('left everything of the victim as it was', async () => {
    const project = await t.request<{ name: string }>('GET', `/projects/${victim.projectId}`, { token: victim.token });
    expect(project.body.name).toBe('Default');
    const projects = await t.request<unknown[]>('GET', `/projects?workspaceId=${victim.workspaceId}`, { token: victim.token });
    expect(projects.body).toHaveLength(1);
    const keys = await t.request<{ id: number; enabled: boolean }[]>('GET', `/api-keys?workspaceId=${victim.workspaceId}`, { token: victim.token });
    expect(keys.body).toEqual([expect.objectContaining({ id: victimKeyId, enabled: true })]);
    const workspace = await t.request<{ name: string }>('GET', `/workspaces/${victim.workspaceId}`, { token: victim.token });
    expect(workspace.body.name).toBe("victim's workspace");
    const members = await t.request<{ userId: number; role: string }[]>('GET', `/workspaces/${victim.workspaceId}/members`, { token: victim.token });
    expect(members.body.map((m) => [m.userId, m.role])).toEqual([
      [victim.userId, 'OWNER'],
      [victimFriend.userId, 'MEMBER'],
    ]);
    const channels = await t.request<{ name: string }[]>('GET', `/alert-channels?workspaceId=${victim.workspaceId}`, { token: victim.token });
    expect(channels.body.map((c) => c.name)).toEqual(['victim channel']);
    expect(t.deps.mailer.outbox.filter((m) => m.to === 'v@example.com')).toHaveLength(0);
  });

  it('an API key of one workspace cannot reach another workspace on /v1', async () => {
    const key = await t.apiKey(mallory);
    expectError(await t.request('GET', `/v1/projects/${victim.projectId}`, { token: key }), 404);
    const list = await t.request<{ items: { workspaceId: number }[] }>('GET', '/v1/projects', { token: key });
    expect(list.body.items.every((p) => p.workspaceId === mallory.workspaceId)).toBe(true);
  });
});
