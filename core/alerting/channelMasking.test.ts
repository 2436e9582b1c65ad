import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createTeam, type Team } from '../../test/support/identity.js';

type Channel = { id: number; config: Record<string, string> };

let t: TestContext;
let team: Team;
const HOOK = 'https://hooks.slack.com/services/T0SECRET/B0SECRET/xoxoSecretPathwxyz';
beforeAll(async () => {
  t = await createTestContext();
  team = await createTeam(t, 'mask');
});
beforeEach(() => t.clock.advanceSeconds(61));

describe('Slack webhook URLs below ADMIN', () => {
  it('are masked for MEMBERs and VIEWERs, whole for ADMINs and OWNERs', async () => {
    const created = await t.request<Channel>('POST', '/alert-channels', {
      token: team.owner.token,
      body: { workspaceId: team.workspaceId, name: 'Slack', type: 'SLACK', config: { webhookUrl: HOOK } },
    });
    expect(created.status).toBe(201);
    for (const user of [team.viewer, team.member]) {
      const one = await t.request<Channel>('GET', `/alert-channels/${created.body.id}`, { token: user.token });
      expect(one.status).toBe(200);
      expect(one.text).not.toContain('SECRET');
      expect(one.body.config.webhookUrl).toBe('https://hooks.slack.com/…wxyz');
      const list = await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: user.token });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain('SECRET');
    }
    for (const user of [team.admin, team.owner]) {
      const one = await t.request<Channel>('GET', `/alert-channels/${created.body.id}`, { token: user.token });
      expect(one.body.config.webhookUrl).toBe(HOOK);
    }
  });
});

describe('Webhook channel URLs below ADMIN', () => {
  // A receiver's URL often carries its credential (a token in the path or the query), like Slack's.
  const URL_WITH_TOKEN = 'https://hooks.example.com/in/T0SECRET?key=SECRETKEYabcd';
  it('are masked for MEMBERs and VIEWERs (one channel, the list, an escalation rule embedding it), whole for ADMINs and OWNERs', async () => {
    const created = await t.request<Channel>('POST', '/alert-channels', {
      token: team.owner.token,
      body: { workspaceId: team.workspaceId, name: 'Receiver', type: 'WEBHOOK', config: { url: URL_WITH_TOKEN } },
    });
    expect(created.status).toBe(201);
    expect(created.body.config.url).toBe(URL_WITH_TOKEN);
    const rule = await t.request<{ id: number }>('POST', '/escalation-rules', {
      token: team.owner.token,
      body: { projectId: team.projectId, alertChannelId: created.body.id, delayMinutes: 5 },
    });
    expect(rule.status).toBe(201);
    for (const user of [team.viewer, team.member]) {
      const one = await t.request<Channel>('GET', `/alert-channels/${created.body.id}`, { token: user.token });
      expect(one.status).toBe(200);
      expect(one.text).not.toContain('SECRET');
      expect(one.body.config.url).toBe('https://hooks.example.com/…abcd');
      const list = await t.request<Channel[]>('GET', `/alert-channels?workspaceId=${team.workspaceId}`, { token: user.token });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain('SECRET');
      const embedded = await t.request('GET', `/escalation-rules/${rule.body.id}`, { token: user.token });
      expect(embedded.status).toBe(200);
      expect(embedded.text).not.toContain('SECRET');
    }
    for (const user of [team.admin, team.owner]) {
      const one = await t.request<Channel>('GET', `/alert-channels/${created.body.id}`, { token: user.token });
      expect(one.body.config.url).toBe(URL_WITH_TOKEN);
    }
  });
});
