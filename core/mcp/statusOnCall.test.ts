import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { schedule } from '../../test/support/escalation.js';
import { createPage } from '../../test/support/statuspages.js';
import { callTool, connect, ok, serveApp } from '../../test/support/mcp.js';
import type { User } from '../../test/support/users.js';

type Page<T> = { items: T[]; total: number; remaining: number; nextPage: number | null };
type Announcement = {
  id: number;
  statusPageId: number;
  title: string;
  status: string;
  impact: string | null;
  resolvedAt: string | null;
  lastUpdate: string | null;
  updateCount: number;
};
type OnCall = { scheduleId: number; scheduleName: string; at: string; user: { id: number; email: string } | null; shiftEnd: string | null };
type CheckOnCall = { policy: { id: number; name: string } | null; onCall: OnCall[]; note: string };

let t: TestContext;
let origin: string;
let close: () => Promise<void>;
let owner: User;
let stranger: User;
let a: Client;
let readOnly: Client;
let b: Client;
beforeAll(async () => {
  t = await createTestContext();
  ({ origin, close } = await serveApp(t));
  owner = await t.signup('sp-owner');
  stranger = await t.signup('sp-stranger');
  a = await connect(origin, await t.apiKey(owner));
  readOnly = await connect(origin, await t.apiKey(owner, { permission: 'read_only' }));
  b = await connect(origin, await t.apiKey(stranger));
});
afterAll(async () => {
  await Promise.all([a.close(), readOnly.close(), b.close()]);
  await close();
});

describe('status pages and announcements', () => {
  it('lists pages, posts and updates an announcement, and lists it with what remains', async () => {
    const first = await createPage(t, owner, { name: 'Acme status' });
    const second = await createPage(t, owner, { name: 'Internal' });
    const pages = await ok<Page<{ id: number; name: string }>>(a, 'list_status_pages', { limit: 1 });
    expect(pages.data).toMatchObject({ total: 2, remaining: 1, nextPage: 2, items: [{ id: first.id, name: 'Acme status' }] });
    expect(pages.text).toMatch(/^status pages 1-1 of 2; 1 more \(page=2\)\./);
    expect((await ok<Page<{ id: number }>>(readOnly, 'list_status_pages', { page: 2, limit: 1 })).data.items.map((p) => p.id)).toEqual([second.id]);

    const posted = await ok<{ announcement: Announcement }>(a, 'post_announcement', {
      statusPageId: first.id,
      title: 'Checkout slow',
      impact: 'MINOR',
      message: 'Looking into it',
    });
    expect(posted.data.announcement).toMatchObject({
      statusPageId: first.id,
      title: 'Checkout slow',
      status: 'INVESTIGATING',
      impact: 'MINOR',
      lastUpdate: 'Looking into it',
      updateCount: 1,
    });
    expect(posted.text).toContain('Posted #');
    const older = await ok<{ announcement: Announcement }>(a, 'post_announcement', { statusPageId: first.id, title: 'Older' });
    expect(older.data.announcement.updateCount).toBe(0);

    t.clock.advanceSeconds(60);
    const id = posted.data.announcement.id;
    const updated = await ok<{ update: { announcementId: number; status: string; body: string } }>(a, 'update_announcement', {
      statusPageId: first.id,
      announcementId: id,
      status: 'RESOLVED',
      message: 'Fixed',
    });
    expect(updated.data.update).toMatchObject({ announcementId: id, status: 'RESOLVED', body: 'Fixed' });
    expect(updated.text).toBe(`Announcement #${id} is now RESOLVED: Fixed`);

    const resolved = await ok<Page<Announcement>>(readOnly, 'list_announcements', { statusPageId: first.id, status: 'resolved' });
    expect(resolved.data).toMatchObject({ total: 1, remaining: 0, nextPage: null, items: [{ id, status: 'RESOLVED', lastUpdate: 'Fixed', updateCount: 2 }] });
    expect(resolved.data.items[0]?.resolvedAt).not.toBeNull();
    const all = await ok<Page<Announcement>>(a, 'list_announcements', { statusPageId: first.id, limit: 1 });
    expect(all.data).toMatchObject({ total: 2, remaining: 1, nextPage: 2 });
    expect(all.data.items.map((x) => x.id)).toEqual([older.data.announcement.id]);
    expect((await ok<Page<Announcement>>(a, 'list_announcements', { statusPageId: second.id })).text).toBe('No announcements on status page ' + `${second.id}.`);

    // Bad input is an error result in the API's words, not a crash.
    const unknownComponent = await callTool(a, 'post_announcement', { statusPageId: first.id, title: 'x', componentIds: [999_999] });
    expect(unknownComponent).toMatchObject({ isError: true });
    expect(unknownComponent.text).toMatch(/404/);
  });

  it('hides the write tools from a read_only key and refuses a call to one', async () => {
    const names = (await readOnly.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['list_status_pages', 'list_announcements', 'who_is_on_call']));
    expect(names).not.toContain('post_announcement');
    expect(names).not.toContain('update_announcement');
    const refused = await callTool(readOnly, 'post_announcement', { statusPageId: 1, title: 'sneaky' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/read-only: post_announcement .*403 FORBIDDEN/);
  });

  it("gives another workspace's key an error result for foreign page ids, as /v1 does", async () => {
    const page = await createPage(t, owner);
    const posted = await ok<{ announcement: Announcement }>(a, 'post_announcement', { statusPageId: page.id, title: 'Ours', message: 'x' });
    const calls: [string, Record<string, unknown>][] = [
      ['list_announcements', { statusPageId: page.id }],
      ['post_announcement', { statusPageId: page.id, title: 'Theirs' }],
      ['update_announcement', { statusPageId: page.id, announcementId: posted.data.announcement.id, status: 'RESOLVED', message: 'gotcha' }],
    ];
    for (const [name, args] of calls) {
      const result = await callTool(b, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.text, name).toMatch(/^Status page not found \(404 NOT_FOUND\)/);
    }
    expect((await ok<Page<unknown>>(b, 'list_status_pages')).data.total).toBe(0);
    const still = await ok<Page<Announcement>>(a, 'list_announcements', { statusPageId: page.id });
    expect(still.data.items.map((x) => [x.title, x.status])).toEqual([['Ours', 'INVESTIGATING']]);
  });
});

describe('on call', () => {
  it('says who is on call on a schedule, now or at an instant; foreign schedules are an error result', async () => {
    const scheduleId = await schedule(t, owner, [owner.userId]);
    const now = await ok<OnCall>(readOnly, 'who_is_on_call', { scheduleId });
    expect(now.data).toMatchObject({ scheduleId, scheduleName: 'Primary', at: t.clock.now().toISOString(), user: { id: owner.userId, email: owner.email } });
    expect(now.text).toContain(`sp-owner <${owner.email}> on "Primary" (#${scheduleId}) until `);
    const before = await ok<OnCall>(a, 'who_is_on_call', { scheduleId, at: '2026-02-01T00:00:00Z' });
    expect(before.data).toMatchObject({ user: null, at: '2026-02-01T00:00:00.000Z' });
    expect(before.text).toContain('nobody on "Primary"');

    const foreign = await callTool(b, 'who_is_on_call', { scheduleId });
    expect(foreign.isError).toBe(true);
    expect(foreign.text).toMatch(/^On-call schedule not found \(404 NOT_FOUND\)/);
  });

  it('explain_check names who is on call for the policy that routes the check, else "no schedule"', async () => {
    const job = await ok<{ check: { id: number } }>(a, 'create_job', { name: 'billing export', projectId: owner.projectId, intervalSeconds: 300 });
    const checkId = job.data.check.id;
    const explain = async () => (await ok<{ summary: string; onCall: CheckOnCall }>(a, 'explain_check', { check: checkId })).data;

    const before = await explain();
    expect(before.onCall).toEqual({ policy: null, onCall: [], note: 'no schedule' });
    expect(before.summary).toMatch(/On call: no schedule\.$/);

    const scheduleId = await schedule(t, owner, [owner.userId]);
    const steps = [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'ON_CALL_SCHEDULE', targetScheduleId: scheduleId }] }];
    const created = await t.request<{ id: number }>('POST', '/escalation-policies', {
      token: owner.token,
      body: { workspaceId: owner.workspaceId, name: 'Prod', priority: 1, projectIds: [owner.projectId], steps },
    });
    expect(created.status, created.text).toBe(201);

    const routed = await explain();
    expect(routed.onCall).toMatchObject({
      policy: { id: created.body.id, name: 'Prod' },
      onCall: [{ scheduleId, scheduleName: 'Primary', user: { id: owner.userId, email: owner.email } }],
    });
    expect(routed.onCall.note).toContain(`policy "Prod": sp-owner <${owner.email}> on "Primary"`);
    expect(routed.summary).toContain(`On call: policy "Prod": sp-owner <${owner.email}> on "Primary" (#${scheduleId})`);

    // A policy that wins the project but targets no schedule: nobody is named.
    const direct = [{ position: 0, delayMinutes: 0, targets: [{ targetType: 'USER', targetUserId: owner.userId }] }];
    const first = await t.request('POST', '/escalation-policies', { token: owner.token, body: { workspaceId: owner.workspaceId, name: 'Direct', priority: 0, steps: direct } });
    expect(first.status, first.text).toBe(201);
    expect((await explain()).onCall).toMatchObject({ policy: { name: 'Direct' }, onCall: [], note: 'no schedule (policy "Direct" targets none)' });
  });
});
