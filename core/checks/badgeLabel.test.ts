import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import type { DashboardCheck } from './schema.js';
import { LONG_SESSIONS, createCheck, expectStatus, freshRateWindow, inboundBody, type User } from '../../test/support/checks.js';

let t: TestContext;
let owner: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  owner = await t.signup('badge-owner');
});
beforeEach(() => freshRateWindow(t));

/** The public badge, fetched as an anonymous reader following the redirect. */
async function badgeOf(check: { badgeUrl: string }): Promise<string> {
  const redirect = await t.request('GET', check.badgeUrl);
  expect(redirect.status).toBe(302);
  const location = redirect.headers.get('location') ?? '';
  const svg = await t.request('GET', `/api${location.slice(location.indexOf('/badges/'))}`);
  expect(svg.status).toBe(200);
  return svg.text;
}

describe('public badge label', () => {
  it('never shows the check name: "status" unless the owner sets a label', async () => {
    const check = await createCheck(t, owner, inboundBody(owner, { name: 'payroll-export secret-customer' }));
    expect(check.badgeLabel).toBe('status');
    const svg = await badgeOf(check);
    expect(svg).not.toContain('payroll');
    expect(svg).toContain('>status<');
  });

  it('shows the label the owner chose, on create and on update', async () => {
    const check = await createCheck(t, owner, inboundBody(owner, { name: 'internal name', badgeLabel: 'backups' }));
    expect(await badgeOf(check)).toContain('>backups<');
    const updated = expectStatus(await t.request<DashboardCheck>('PATCH', `/checks/${check.id}`, { token: owner.token, body: { badgeLabel: 'nightly' } }), 200);
    expect(updated.badgeLabel).toBe('nightly');
    const svg = await badgeOf(check);
    expect(svg).toContain('>nightly<');
    expect(svg).not.toContain('internal name');
  });

  it('refuses an over-long or empty label', async () => {
    expect((await t.request('POST', '/checks', { token: owner.token, body: inboundBody(owner, { badgeLabel: 'x'.repeat(41) }) })).status).toBe(400);
    expect((await t.request('POST', '/checks', { token: owner.token, body: inboundBody(owner, { badgeLabel: '  ' }) })).status).toBe(400);
  });
});
