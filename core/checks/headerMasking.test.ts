import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createTeam, type Team } from '../../test/support/identity.js';
import { freshRateWindow } from '../../test/support/checks.js';

let t: TestContext;
let team: Team;
let readOnly: string;
let readWrite: string;
let checkId: number;
const HEADERS = { authorization: 'Bearer sk_live_SECRETVALUE', 'x-api-key': 'SECRETKEY' };
beforeAll(async () => {
  t = await createTestContext({ VIGIL_ACCESS_TOKEN_TTL_SECONDS: '86400' });
  team = await createTeam(t, 'hdr');
  readOnly = await t.apiKey(team.owner, { permission: 'read_only' });
  readWrite = await t.apiKey(team.owner);
  const created = await t.request<{ id: number }>('POST', '/checks', {
    token: team.owner.token,
    body: { name: 'api', projectId: team.projectId, checkMode: 'OUTBOUND', intervalSeconds: 60, graceSeconds: 5, url: 'https://example.com/health', customHeaders: HEADERS },
  });
  expect(created.status, created.text).toBe(201);
  checkId = created.body.id;
});
beforeEach(() => freshRateWindow(t));

const MASKED = { authorization: '********', 'x-api-key': '********' };

describe('probe customHeaders below MEMBER', () => {
  it('shows VIEWERs the header names with masked values on every read', async () => {
    for (const path of [`/checks/${checkId}`, `/checks/${checkId}/outbound`, `/checks?workspaceId=${team.workspaceId}`]) {
      const res = await t.request('GET', path, { token: team.viewer.token });
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain('SECRET');
    }
    const one = await t.request<{ outbound: { customHeaders: Record<string, string> } }>('GET', `/checks/${checkId}`, { token: team.viewer.token });
    expect(one.body.outbound.customHeaders).toEqual(MASKED);
  });

  it('masks them for a read_only key on /v1/checks, not for a read_write key or a MEMBER', async () => {
    const ro = await t.request<{ config: { customHeaders: Record<string, string> } }>('GET', `/v1/checks/${checkId}`, { token: readOnly });
    expect(ro.body.config.customHeaders).toEqual(MASKED);
    const list = await t.request('GET', '/v1/checks', { token: readOnly });
    expect(list.text).not.toContain('SECRET');
    const rw = await t.request<{ config: { customHeaders: Record<string, string> } }>('GET', `/v1/checks/${checkId}`, { token: readWrite });
    expect(rw.body.config.customHeaders).toEqual(HEADERS);
    const member = await t.request<{ outbound: { customHeaders: Record<string, string> } }>('GET', `/checks/${checkId}`, { token: team.member.token });
    expect(member.body.outbound.customHeaders).toEqual(HEADERS);
  });
});
