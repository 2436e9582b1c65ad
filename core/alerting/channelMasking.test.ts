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
