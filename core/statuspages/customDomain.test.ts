import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../test/support/checks.js';
import { createPage, expectStatus, fakeDns, uniqueSlug, type User } from '../../test/support/statuspages.js';
import { runSweep } from '../sweep/index.js';
import type { StatusPage } from './schema.js';

/** Custom domains are owned before they are claimed (docs/guide/status-pages.md "Custom domain"): all over HTTP, DNS faked, the clock moved by hand. */
let t: TestContext;
let user: User;
let other: User;
let dns: ReturnType<typeof fakeDns>;
const DAY = 24 * 3600_000;

beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('domain-owner');
  other = await t.signup('domain-squatter');
});
beforeEach(() => {
  freshRateWindow(t);
  dns = fakeDns();
  t.deps.domainResolver = dns.resolver;
});

/** Moves the clock, then renews both sessions (access tokens live a day at most). */
async function later(ms: number): Promise<void> {
  t.clock.advance(ms);
  for (const who of [user, other]) {
    const res = await t.request<{ access_token: string; refresh_token: string }>('POST', '/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: who.refreshToken },
    });
    const renewed = expectStatus(res, 200);
    who.token = renewed.access_token;
    who.refreshToken = renewed.refresh_token;
  }
}

const newDomain = () => `${uniqueSlug('d')}.example.com`;
const served = async (domain: string) => (await t.request('GET', `http://${domain}/`, { headers: { host: domain } })).status;
const lockOf = async (domain: string) => (await t.deps.store.entities.lock.get({ scope: 'status-page-domain', value: domain }).go({ consistent: true })).data?.ownerId;
const pageOf = async (who: User, id: number) => expectStatus(await t.request<StatusPage>('GET', `/status-pages/${id}`, { token: who.token }), 200);
const verify = (who: User, id: number) =>
  t.request<{ verified: boolean; customDomainVerification: { status: string } }>('POST', `/status-pages/${id}/verify-domain`, { token: who.token });
/** Publishes what the page's response says to publish: its TXT token and the CNAME. */
function publish(page: StatusPage, what: { txt?: boolean; cname?: boolean } = { txt: true, cname: true }) {
  const v = page.customDomainVerification;
  if (!v || !page.customDomain || !v.txtValue) throw new Error('page has no domain to publish');
  if (what.txt) dns.txt.set(v.txtName, [...(dns.txt.get(v.txtName) ?? []), [v.txtValue]]);
  if (what.cname) dns.cname.set(page.customDomain, [`${v.cnameTarget.toUpperCase()}.`]);
}

describe('custom domains: verified before they are held', () => {
  it('saving a domain locks nothing and serves nothing; the response says which records verify it', async () => {
    const domain = newDomain();
    const page = await createPage(t, user, { customDomain: domain });
    expect(page.customDomainVerification).toMatchObject({ txtName: `_vigil-challenge.${domain}`, cnameTarget: 'localhost', status: 'PENDING', checkedAt: null });
    expect(page.customDomainVerification?.txtValue).toMatch(/^vigil-verify=[A-Za-z0-9_-]{32}$/);
    expect(page.customDomainVerification?.expiresAt).toBe(new Date(t.clock.now().getTime() + 7 * DAY).toISOString());
    expect(await lockOf(domain)).toBeUndefined();
    expect(await served(domain)).toBe(404);
    // Another tenant may claim the same unverified name: nothing is taken by saving.
    const rival = await createPage(t, other, { customDomain: domain });
    expect(rival.customDomainVerification?.txtValue).not.toBe(page.customDomainVerification?.txtValue);
    // Removing the domain takes the claim and its due entry with it.
    const cleared = expectStatus(await t.request<StatusPage>('PATCH', `/status-pages/${rival.id}`, { token: other.token, body: { customDomain: null } }), 200);
    expect(cleared.customDomainVerification).toBeNull();
    const stored = (await t.deps.store.entities.statusPage.get({ statusPageId: rival.id }).go({ consistent: true })).data;
    expect([stored?.customDomainToken, stored?.domainDueAt]).toEqual([undefined, undefined]);
  });

  it('refuses verification with a clear 422 while the TXT or the CNAME is missing', async () => {
    const domain = newDomain();
    const page = await createPage(t, user, { customDomain: domain });
    publish(page, { cname: true });
    const noTxt = expectError(await verify(user, page.id), 422, 'DOMAIN_NOT_VERIFIED');
    expect(noTxt.message).toContain(domain);
    expect(JSON.stringify(noTxt)).toContain(`_vigil-challenge.${domain}`);
    dns.cname.delete(domain);
    publish(page, { txt: true });
    const noCname = expectError(await verify(user, page.id), 422, 'DOMAIN_NOT_VERIFIED');
    expect(JSON.stringify(noCname)).toContain('pointing at localhost');
    expect(await lockOf(domain)).toBeUndefined();
    expect(await served(domain)).toBe(404);
    expect((await pageOf(user, page.id)).customDomainVerification?.status).toBe('PENDING');
  });

  it('gives a domain saved before TXT tokens existed its token at the first verification, and no lock', async () => {
    const domain = newDomain();
    const page = await createPage(t, user, { customDomain: domain });
    await t.deps.store.entities.statusPage.patch({ statusPageId: page.id }).remove(['customDomainToken', 'customDomainClaimedAt', 'domainDueShard', 'domainDueAt']).go();
    expect((await pageOf(user, page.id)).customDomainVerification?.txtValue).toBeNull();
    dns.cname.set(domain, ['localhost']);
    expectError(await verify(user, page.id), 422, 'DOMAIN_NOT_VERIFIED');
    const now = await pageOf(user, page.id);
    expect(now.customDomainVerification?.txtValue).toMatch(/^vigil-verify=/);
    expect(await lockOf(domain)).toBeUndefined();
    publish(now);
    expectStatus(await verify(user, page.id), 200);
  });

  it('verifies with both records: locked to the page, served on the domain; a second page cannot verify it', async () => {
    const domain = newDomain();
    const page = await createPage(t, user, { customDomain: domain });
    const rival = await createPage(t, other, { customDomain: domain });
    publish(page);
    // The rival's token is not in the domain's DNS: it cannot verify, even with the CNAME in place.
    expectError(await verify(other, rival.id), 422, 'DOMAIN_NOT_VERIFIED');
    const ok = expectStatus(await verify(user, page.id), 200);
    expect(ok).toMatchObject({ verified: true, customDomainVerification: { status: 'VERIFIED', checkedAt: t.clock.now().toISOString(), expiresAt: null } });
    expect(await lockOf(domain)).toBe(String(page.id));
    expect(await served(domain)).toBe(200);
    expect((await t.request('GET', `http://${domain}/`, { headers: { host: domain } })).text).toContain('Acme status');
    // Even with its own TXT published too, the rival meets a verified owner.
    publish(rival, { txt: true });
    expectError(await verify(other, rival.id), 409, 'DOMAIN_TAKEN');
    expect(await lockOf(domain)).toBe(String(page.id));
    expect((await pageOf(other, rival.id)).customDomainVerification?.status).toBe('PENDING');
    // Moving to another name releases the lock and stops serving the old one.
    const moved = expectStatus(await t.request<StatusPage>('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { customDomain: `x.${domain}` } }), 200);
    expect(moved.customDomainVerifiedAt).toBeNull();
    expect(moved.customDomainVerification?.status).toBe('PENDING');
    expect(await lockOf(domain)).toBeUndefined();
    expect(await served(domain)).toBe(404);
    // Now the rival, whose TXT is there, can have it.
    expectStatus(await verify(other, rival.id), 200);
    expect(await lockOf(domain)).toBe(String(rival.id));
  });

  it('an unverified claim lapses after 7 days (the sweep clears it)', async () => {
    const domain = newDomain();
    const page = await createPage(t, user, { customDomain: domain });
    await later(7 * DAY - 60_000);
    await runSweep(t.deps);
    expect((await pageOf(user, page.id)).customDomain).toBe(domain);
    await later(120_000);
    const report = await runSweep(t.deps);
    // Other tests' pages share the file's store and clock: count this one among those lapsed.
    expect((report.steps.find((s) => s.name === 'status-page-domains')?.result as { lapsed: number }).lapsed).toBeGreaterThanOrEqual(1);
    const after = await pageOf(user, page.id);
    expect(after.customDomain).toBeNull();
    expect(after.customDomainVerification).toBeNull();
    // Nothing is due any more: the page left the due index.
    const stored = (await t.deps.store.entities.statusPage.get({ statusPageId: page.id }).go({ consistent: true })).data;
    expect(stored?.domainDueAt).toBeUndefined();
  });

  it('re-checks a verified domain daily and detaches it once its records are gone', async () => {
    const domain = newDomain();
    const page = await createPage(t, user, { customDomain: domain });
    publish(page);
    expectStatus(await verify(user, page.id), 200);
    await later(DAY + 1000);
    dns.lookups.length = 0;
    await runSweep(t.deps);
    expect(dns.lookups).toEqual([`TXT _vigil-challenge.${domain}`, `CNAME ${domain}`]);
    expect((await pageOf(user, page.id)).customDomainVerification).toMatchObject({ status: 'VERIFIED', checkedAt: t.clock.now().toISOString() });
    expect(await served(domain)).toBe(200);
    // A failed lookup (SERVFAIL, timeout) proves nothing: still served, looked at again within the hour.
    t.deps.domainResolver = {
      resolveTxt: async () => Promise.reject(Object.assign(new Error('queryTxt ESERVFAIL'), { code: 'ESERVFAIL' })),
      resolveCname: dns.resolver.resolveCname,
    };
    await later(DAY + 1000);
    await runSweep(t.deps);
    expect(await served(domain)).toBe(200);
    t.deps.domainResolver = dns.resolver;
    // The owner left and removed the records: the next re-check (an hour later) detaches the domain.
    dns.txt.clear();
    dns.cname.clear();
    await later(3600_000 + 1000);
    const report = await runSweep(t.deps);
    expect((report.steps.find((s) => s.name === 'status-page-domains')?.result as { detached: number }).detached).toBeGreaterThanOrEqual(1);
    expect(await served(domain)).toBe(404);
    expect(await lockOf(domain)).toBeUndefined();
    const after = await pageOf(user, page.id);
    expect(after.customDomainVerifiedAt).toBeNull();
    expect(after.customDomainVerification).toMatchObject({ status: 'PENDING', expiresAt: new Date(t.clock.now().getTime() + 7 * DAY).toISOString() });
    // Whoever points the dangling name elsewhere next must prove it with their own TXT.
    const next = await createPage(t, other, { customDomain: domain });
    publish(next);
    expectStatus(await verify(other, next.id), 200);
    expect(await served(domain)).toBe(200);
    expect(await lockOf(domain)).toBe(String(next.id));
  });
});
