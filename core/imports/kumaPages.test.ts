import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { addMember } from '../../test/support/checks.js';
import { expectStatus } from '../../test/support/users.js';
import { importUptimeKuma } from './kuma.js';
import { kumaDatabase } from '../../test/support/kuma.js';
import type { ImportReport } from './report.js';

type Component = { id: number; name: string; groupName: string | null; position: number; checkId: number | null };
type Page = { id: number; name: string; slug: string; visibility: string; components: Component[] };

/*
 * Kuma status pages through POST /v1/import/uptime-kuma (core/imports/kumaPages.ts), from the
 * database of test/support/kuma.ts: "acme" (Website, and Router which is not imported), the
 * unpublished "acme-internal" (Jobs, APIs and an empty group), and "shared-status", whose slug
 * another workspace's page holds here first.
 */
let t: TestContext;
let key: string;
let otherKey: string;
let database: string;
let otherPageId: number;
beforeAll(async () => {
  t = await createTestContext();
  key = await t.apiKey(await t.signup('kuma-pages'));
  const other = await t.signup('kuma-pages-other');
  otherKey = await t.apiKey(other);
  otherPageId = expectStatus(await t.request<{ id: number }>('POST', '/v1/status-pages', { token: otherKey, body: { name: 'Other team', slug: 'shared-status' } }), 201).id;
  database = Buffer.from(await kumaDatabase()).toString('base64');
});

const importKuma = (query = '') => t.request<ImportReport>('POST', `/v1/import/uptime-kuma${query}`, { token: key, body: { database } });
const pagesOf = (items: ImportReport['created']) => items.filter((i) => i.kind.startsWith('status-')).map(({ kind, name }) => `${kind}:${name}`);
const pageList = async (token = key) =>
  expectStatus(await t.request<{ items: { id: number; slug: string }[]; total: number }>('GET', '/v1/status-pages?limit=100', { token }), 200);
const detail = async (slug: string) => {
  const id = (await pageList()).items.find((p) => p.slug === slug)?.id;
  return expectStatus(await t.request<Page>('GET', `/v1/status-pages/${id}`, { token: key }), 200);
};
const checkIds = async () => {
  const jobs = expectStatus(await t.request<{ items: { id: number; name: string }[] }>('GET', '/v1/jobs?limit=100', { token: key }), 200).items;
  const checks = expectStatus(await t.request<{ items: { id: number; name: string }[] }>('GET', '/v1/checks?limit=100', { token: key }), 200).items;
  return new Map([...jobs, ...checks].map((c) => [c.name, c.id]));
};

const willCreate = [
  'status-page:Acme status',
  'status-component:Acme status: Website',
  'status-page:Acme internal',
  'status-component:Acme internal: Nightly backup',
  'status-component:Acme internal: API health',
];

describe('Uptime Kuma status pages', () => {
  it('dry run: lists the pages and components it would create and what it skips, and creates nothing', async () => {
    const dry = expectStatus(await importKuma('?dryRun=true'), 200);
    expect(pagesOf(dry.created)).toEqual(willCreate);
    const reasons = new Map(dry.skipped.map((s) => [`${s.kind}:${s.name}`, s.reason]));
    expect(reasons.get('status-component:Acme status: Router')).toContain('not imported');
    expect(reasons.get('status-group:Acme internal: Empty')).toContain('no monitors');
    expect(dry.skipped.filter((s) => s.name === 'Acme internal').map((s) => s.reason)).toEqual([expect.stringContaining('description'), expect.stringContaining('footer')]);
    expect(reasons.get('status-page:Shared status')).toBe('its slug "shared-status" is taken by another status page');
    expect((await pageList()).total).toBe(0);
  });

  it('real run: the pages exist at their public paths, their components following the imported checks in Kuma’s groups and order', async () => {
    const real = expectStatus(await importKuma(), 200);
    expect(pagesOf(real.created)).toEqual(willCreate);
    expect(real.created.filter((i) => i.kind.startsWith('status-')).every((i) => typeof i.id === 'number')).toBe(true);
    const ids = await checkIds();

    // The public view names no internal ids: the component shows there, the dashboard's detail says what it follows.
    const acme = expectStatus(await t.request<{ components: Component[] }>('GET', '/public/status/acme'), 200);
    expect(acme.components.map(({ name, groupName }) => ({ name, groupName }))).toEqual([{ name: 'Website', groupName: 'Services' }]);
    expect((await detail('acme')).components.map(({ name, checkId }) => ({ name, checkId }))).toEqual([{ name: 'Website', checkId: ids.get('Website') }]);

    // Unpublished in Kuma: PRIVATE here, 404 to the public, there for the workspace.
    expect((await t.request('GET', '/public/status/acme-internal')).status).toBe(404);
    const internal = await detail('acme-internal');
    expect(internal).toMatchObject({ name: 'Acme internal', visibility: 'PRIVATE' });
    expect(internal.components.map(({ name, groupName, position, checkId }) => ({ name, groupName, position, checkId }))).toEqual([
      { name: 'Nightly backup', groupName: 'Jobs', position: 0, checkId: ids.get('Nightly backup') },
      { name: 'API health', groupName: 'APIs', position: 1, checkId: ids.get('API health') },
    ]);
    expect((await detail('acme')).visibility).toBe('PUBLIC');
  });

  it('a second import of the same file changes nothing: the pages and components are found by slug and check', async () => {
    const first = await Promise.all(['acme', 'acme-internal'].map(detail));
    const again = expectStatus(await importKuma(), 200);
    expect(pagesOf(again.created)).toEqual([]);
    expect(pagesOf(again.unchanged)).toEqual(willCreate);
    expect(again.unchanged.find((i) => i.name === 'Acme status')?.id).toBe(first[0]?.id);
    expect((await pageList()).total).toBe(2);
    expect(await Promise.all(['acme', 'acme-internal'].map(detail))).toEqual(first);
  });

  it('a slug another workspace holds is skipped without saying whose, and that page is left as it was', async () => {
    const run = expectStatus(await importKuma(), 200);
    const reason = run.skipped.find((s) => s.kind === 'status-page' && s.name === 'Shared status')?.reason ?? '';
    expect(reason).toBe('its slug "shared-status" is taken by another status page');
    expect(reason).not.toContain('Other team');
    const theirs = expectStatus(await t.request<Page>('GET', `/v1/status-pages/${otherPageId}`, { token: otherKey }), 200);
    expect(theirs).toMatchObject({ name: 'Other team', slug: 'shared-status', components: [] });
    expect((await pageList()).items.map((p) => p.slug).sort()).toEqual(['acme', 'acme-internal']);
  });

  it('a person gets a page only as the status page routes would make it: a workspace MEMBER gets none (verb level: the import route takes API keys only)', async () => {
    const owner = await t.signup('kuma-pages-owner');
    const member = await t.signup('kuma-pages-member');
    await addMember(t, owner, member, 'MEMBER');
    expect((await t.request('POST', '/status-pages', { token: member.token, body: { workspaceId: owner.workspaceId, name: 'Mine', slug: 'kuma-member-page' } })).status).toBe(403);
    const ctx = { deps: t.deps, actor: { kind: 'user' as const, userId: member.userId, email: member.email } };
    const report = await importUptimeKuma(ctx, { workspaceId: owner.workspaceId, projectId: owner.projectId }, { database }, true);
    expect(pagesOf(report.created)).toEqual([]);
    expect(report.skipped.filter((s) => s.kind === 'status-page').map((s) => s.reason)).toEqual([
      expect.stringMatching(/^not created: the status page routes refuse this caller/),
      expect.stringMatching(/^not created: the status page routes refuse this caller/),
      expect.stringMatching(/^not created: the status page routes refuse this caller/),
    ]);
  });
});
