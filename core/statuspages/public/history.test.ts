import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { createTestContext, type TestContext } from '../../../test/harness.js';
import { LONG_SESSIONS, freshRateWindow } from '../../../test/support/checks.js';
import { metered } from '../../../test/support/meter.js';
import { checkComponent, createPage, expectStatus, type User } from '../../../test/support/statuspages.js';
import { HISTORY_SHOWN } from './view.js';
import { VIEW_CACHE_MS } from '../store/viewCache.js';

/** Public history reads are bounded and cached like the page: counted at the store. */
let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('history-owner');
});
beforeEach(() => freshRateWindow(t));

type History = { months: { month: string; announcements: unknown[]; incidents: unknown[] }[]; truncated: boolean };

/** `count` more incidents of the check, one every six hours back from now (the incidents worker's item, written directly: setup, not the path measured). */
let nextIncidentId = 1_000_000;
async function addIncidents(check: { id: number }, count: number): Promise<void> {
  const base = nextIncidentId;
  nextIncidentId += count;
  const items = Array.from({ length: count }, (_, i) => {
    const at = new Date(t.clock.now().getTime() - (count - i) * 6 * 3600_000).toISOString();
    return {
      incidentId: base + i,
      publicId: ulid(),
      workspaceId: user.workspaceId,
      projectId: user.projectId,
      checkId: check.id,
      title: 'internal title',
      state: 'RESOLVED' as const,
      reason: 'SERVICE_DOWN' as const,
      severity: 'P2' as const,
      startedAt: at,
      resolvedAt: at,
      declared: false,
      revision: 1,
      createdAt: at,
      updatedAt: at,
    };
  });
  await t.deps.store.entities.incident.put(items).go();
}

/** `count` more resolved announcements, a day apart back from now (the announcement verb's item, written directly: setup, not the path measured). */
let nextAnnouncementId = 1_000_000;
async function addAnnouncements(pageId: number, componentId: number, count: number): Promise<void> {
  const base = nextAnnouncementId;
  nextAnnouncementId += count;
  const items = Array.from({ length: count }, (_, i) => {
    const at = new Date(t.clock.now().getTime() - (count - i) * 24 * 3600_000).toISOString();
    return {
      statusPageId: pageId,
      announcementId: base + i,
      publicId: ulid(),
      workspaceId: user.workspaceId,
      title: `Note ${base + i}`,
      status: 'RESOLVED' as const,
      impact: 'MINOR' as const,
      componentIds: [componentId],
      resolvedAt: at,
      revision: 1,
      createdAt: at,
      updatedAt: at,
    };
  });
  await t.deps.store.entities.announcement.put(items).go();
}

describe('public history', () => {
  it('reads a bounded number of items per anonymous request, whatever the history’s length, and caches the answer', async () => {
    const page = await createPage(t, user);
    const { check, component } = await checkComponent(t, user, page.id);
    await addAnnouncements(page.id, component.id, 60);
    await addIncidents(check, 250);
    const url = `/public/status/${page.slug}/history?months=12`;

    const first = await metered(t.deps.store, () => t.request<History>('GET', url));
    const body = expectStatus(first.result, 200);
    expect(first.result.headers.get('cache-control')).toBe('public, max-age=30');
    const shown = body.months.flatMap((m) => m.announcements);
    expect(shown).toHaveLength(HISTORY_SHOWN);
    expect(body.truncated).toBe(true);
    expect(body.months.flatMap((m) => m.incidents).length).toBeGreaterThan(50);
    expect(JSON.stringify(body)).not.toContain('internal title');

    // Twice the history: the same number of store requests.
    await addAnnouncements(page.id, component.id, 60);
    await addIncidents(check, 250);
    t.clock.advance(VIEW_CACHE_MS + 1);
    const second = await metered(t.deps.store, () => t.request<History>('GET', url));
    expectStatus(second.result, 200);
    expect(second.requests.length).toBeLessThanOrEqual(HISTORY_SHOWN + 8);
    expect(second.requests.length).toBe(first.requests.length);

    // Within the cache's few seconds, another visitor's read costs the history nothing at the store.
    const again = await metered(t.deps.store, () => t.request<History>('GET', url, { headers: { 'x-test-ip': '203.0.113.9' } }));
    expect(expectStatus(again.result, 200)).toEqual(expectStatus(second.result, 200));
    expect(again.requests.filter((r) => r.command === 'Query')).toEqual([]);
  });

  it('caches the uptime read too, and says so to shared caches for a public page', async () => {
    const page = await createPage(t, user);
    const { component } = await checkComponent(t, user, page.id);
    const url = `/public/status/${page.slug}/components/${component.id}/uptime?days=365`;
    const first = await t.request('GET', url);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=30');
    const again = await metered(t.deps.store, () => t.request('GET', url));
    expect(again.result.body).toEqual(first.body);
    expect(again.requests.filter((r) => r.command === 'Query')).toEqual([]);
  });
});
