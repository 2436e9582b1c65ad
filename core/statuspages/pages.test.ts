import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../test/support/checks.js';
import type { StatusPage, StatusPageDetail } from './schema.js';
import { checkComponent, createPage, expectStatus, uniqueSlug, type User } from '../../test/support/statuspages.js';

let t: TestContext;
let user: User;
let other: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
  other = await t.signup('stranger');
});
beforeEach(() => freshRateWindow(t));

describe('status pages (dashboard)', () => {
  it('creates, reads, lists, updates and never returns the password', async () => {
    const page = await createPage(t, user, { visibility: 'PASSWORD_PROTECTED', password: 'open sesame 1' });
    expect(page).toMatchObject({ workspaceId: user.workspaceId, visibility: 'PASSWORD_PROTECTED', hasPassword: true, uptimeHistoryDays: 90, enabled: true });
    expect(JSON.stringify(page)).not.toContain('open sesame');
    const detail = expectStatus(await t.request<StatusPageDetail>('GET', `/status-pages/${page.id}`, { token: user.token }), 200);
    expect(detail.components).toEqual([]);
    const list = expectStatus(await t.request<StatusPage[]>('GET', `/status-pages?workspaceId=${user.workspaceId}`, { token: user.token }), 200);
    expect(list.map((p) => p.id)).toContain(page.id);
    const updated = expectStatus(await t.request<StatusPage>('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { name: 'Renamed', visibility: 'PUBLIC' } }), 200);
    expect(updated).toMatchObject({ name: 'Renamed', visibility: 'PUBLIC', hasPassword: false });
  });

  it('refuses a protected page without a password, unknown fields and bad colours (400)', async () => {
    expectError(await t.request('POST', '/status-pages', { token: user.token, body: { name: 'x', slug: uniqueSlug(), visibility: 'PASSWORD_PROTECTED' } }), 400);
    expectError(await t.request('POST', '/status-pages', { token: user.token, body: { name: 'x', slug: uniqueSlug(), primaryColor: 'red;}' } }), 400);
    expectError(await t.request('POST', '/status-pages', { token: user.token, body: { name: 'x', slug: uniqueSlug(), surprise: 1 } }), 400);
    expectError(await t.request('POST', '/status-pages', { token: user.token, body: { name: 'x', slug: 'api' } }), 400);
    const page = await createPage(t, user);
    expectError(await t.request('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { visibility: 'PASSWORD_PROTECTED' } }), 400);
  });

  it('keeps slugs unique across the install (409) and answers check-slug', async () => {
    const slug = uniqueSlug('taken');
    await createPage(t, user, { slug });
    expectError(await t.request('POST', '/status-pages', { token: other.token, body: { name: 'Copy', slug } }), 409, 'SLUG_TAKEN');
    const mine = await createPage(t, other);
    expectError(await t.request('PATCH', `/status-pages/${mine.id}`, { token: other.token, body: { slug } }), 409);
    const ask = async (s: string) =>
      expectStatus(await t.request<{ isAvailable: boolean }>('GET', `/status-pages/check-slug?slug=${encodeURIComponent(s)}`, { token: user.token }), 200).isAvailable;
    expect(await ask(slug)).toBe(false);
    expect(await ask('status')).toBe(false);
    expect(await ask('Not A Slug!')).toBe(false);
    expect(await ask(uniqueSlug('free'))).toBe(true);
  });

  it('moves a slug: the old one is free again, the new one is held', async () => {
    const page = await createPage(t, user);
    const next = uniqueSlug('moved');
    expectStatus(await t.request('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { slug: next } }), 200);
    expect((await t.request<{ isAvailable: boolean }>('GET', `/status-pages/check-slug?slug=${page.slug}`, { token: user.token })).body.isAvailable).toBe(true);
    expect((await t.request<{ isAvailable: boolean }>('GET', `/status-pages/check-slug?slug=${next}`, { token: user.token })).body.isAvailable).toBe(false);
  });

  it('answers 404 for another workspace’s page on every verb', async () => {
    const page = await createPage(t, user);
    const as = { token: other.token };
    expectError(await t.request('GET', `/status-pages/${page.id}`, as), 404);
    expectError(await t.request('PATCH', `/status-pages/${page.id}`, { ...as, body: { name: 'x' } }), 404);
    expectError(await t.request('DELETE', `/status-pages/${page.id}`, as), 404);
    expectError(await t.request('GET', `/status-pages/${page.id}/components`, as), 404);
    expectError(await t.request('POST', `/status-pages/${page.id}/verify-domain`, as), 404);
    expectError(await t.request('GET', `/status-pages/${page.id}/announcements`, as), 404);
    expectError(await t.request('GET', `/status-pages?workspaceId=${user.workspaceId}`, as), 404);
  });

  it('deletes the page with its components and announcements and frees its slug and domain', async () => {
    const domain = `${uniqueSlug('d')}.example.com`;
    const page = await createPage(t, user, { customDomain: domain });
    const { component } = await checkComponent(t, user, page.id);
    expectStatus(
      await t.request('POST', `/status-pages/${page.id}/announcements`, { token: user.token, body: { title: 'Slow', body: 'Looking', componentIds: [component.id] } }),
      201,
    );
    expectStatus(await t.request('DELETE', `/status-pages/${page.id}`, { token: user.token }), 204);
    expectError(await t.request('GET', `/status-pages/${page.id}`, { token: user.token }), 404);
    expect((await t.deps.store.entities.statusComponent.query.byPage({ statusPageId: page.id }).go()).data).toEqual([]);
    expect((await t.deps.store.entities.announcement.query.byPage({ statusPageId: page.id }).go()).data).toEqual([]);
    expect((await t.deps.store.entities.statusPageSnapshot.get({ statusPageId: page.id }).go()).data).toBeNull();
    expectStatus(await t.request('POST', '/status-pages', { token: other.token, body: { name: 'Reuse', slug: page.slug, customDomain: domain } }), 201);
  });

  it('normalises a custom domain, refuses addresses and local names, and refuses verification without one', async () => {
    // Verification, the lock, the lapse and the re-check: customDomain.test.ts.
    const domain = `${uniqueSlug('v')}.example.com`;
    const page = await createPage(t, user, { customDomain: domain.toUpperCase() + '.' });
    expect(page.customDomain).toBe(domain);
    expectError(await t.request('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { customDomain: '127.0.0.1' } }), 400);
    expectError(await t.request('PATCH', `/status-pages/${page.id}`, { token: user.token, body: { customDomain: 'localhost' } }), 400);
    expect((await t.request('GET', `http://${domain}/`, { headers: { host: domain } })).status).toBe(404);
    const bare = await createPage(t, user);
    expectError(await t.request('POST', `/status-pages/${bare.id}/verify-domain`, { token: user.token }), 400);
  });
});
