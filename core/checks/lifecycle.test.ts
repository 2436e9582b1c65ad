import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { CheckStatusChanged } from './events.js';
import { pauseCheck, resumeCheck } from './pause.js';
import { readCheckById } from './repository.js';
import type { DashboardCheck } from './schema.js';
import { LONG_SESSIONS, addMember, createCheck, expectStatus, freshRateWindow, inboundBody, outboundBody, type User } from '../../test/support/checks.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  user = await t.signup('owner');
});

// The queue is not drained in these tests: what a step published is what it left pending.
let seen = 0;
beforeEach(() => {
  freshRateWindow(t);
  seen = t.deps.queue.peek('incidents').length;
});
const published = () => t.deps.queue.peek('incidents').slice(seen) as CheckStatusChanged[];

const put = (path: string, token = user.token) => t.request<DashboardCheck>('PUT', path, { token });
const get = (id: number, token = user.token) => t.request<DashboardCheck>('GET', `/checks/${id}`, { token });

async function setStatus(checkId: number, status: 'OK' | 'LATE' | 'DOWN', lastPingAt: string) {
  const check = await readCheckById(t.deps, checkId);
  if (!check) throw new Error('no check');
  await t.deps.store.entities.check.patch({ token: check.token }).set({ status, lastPingAt, nextDueAt: lastPingAt, dueShard: '0', dueAt: lastPingAt }).go();
}

describe('pause and resume', () => {
  it('pauses: PAUSED, due index cleared, one status_changed message; pausing again is a no-op', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    await setStatus(check.id, 'OK', t.clock.now().toISOString());
    const paused = expectStatus(await put(`/checks/${check.id}/pause`), 200);
    expect(paused).toMatchObject({ status: 'PAUSED', paused: true, deploymentPaused: false });
    const stored = await readCheckById(t.deps, check.id);
    expect(stored?.dueAt).toBeUndefined();
    expect(stored?.dueShard).toBeUndefined();
    expect(published()).toEqual([
      {
        type: 'check.status_changed',
        checkId: check.id,
        workspaceId: user.workspaceId,
        projectId: user.projectId,
        from: 'OK',
        to: 'PAUSED',
        at: t.clock.now().toISOString(),
        cause: 'PAUSE',
      },
    ]);
    const again = expectStatus(await put(`/checks/${check.id}/pause`), 200);
    expect(again.status).toBe('PAUSED');
    expect(published()).toHaveLength(1);
  });

  it('resumes: RESUMED, due one interval from the resume; resuming a running check is a no-op', async () => {
    const check = await createCheck(t, user, inboundBody(user, { intervalSeconds: 600 }));
    const noop = expectStatus(await put(`/checks/${check.id}/resume`), 200);
    expect(noop.status).toBe('NEW');
    expect(published()).toEqual([]);
    await setStatus(check.id, 'OK', t.clock.now().toISOString());
    expectStatus(await put(`/checks/${check.id}/pause`), 200);
    t.clock.advanceSeconds(120);
    const resumed = expectStatus(await put(`/checks/${check.id}/resume`), 200);
    const due = new Date(t.clock.now().getTime() + 600_000).toISOString();
    expect(resumed).toMatchObject({ status: 'RESUMED', paused: false, nextDueAt: due });
    const stored = await readCheckById(t.deps, check.id);
    // The due entry waits for the LATE instant: the resume's nextDueAt plus the 30 s of grace.
    expect(stored).toMatchObject({ dueShard: '0', dueAt: new Date(Date.parse(due) + 30_000).toISOString() });
    expect(published().map((m) => [m.from, m.to, m.cause])).toEqual([
      ['OK', 'PAUSED', 'PAUSE'],
      ['PAUSED', 'RESUMED', 'RESUME'],
    ]);
    expectStatus(await put(`/checks/${check.id}/resume`), 200);
    expect(published()).toHaveLength(2);
  });

  it('a check that never pinged is resumed without arming the sweep: it is never alerted', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    expectStatus(await put(`/checks/${check.id}/pause`), 200);
    const resumed = expectStatus(await put(`/checks/${check.id}/resume`), 200);
    expect(resumed.status).toBe('RESUMED');
    const stored = await readCheckById(t.deps, check.id);
    expect(stored?.dueAt).toBeUndefined();
    expect(stored?.dueShard).toBeUndefined();
  });

  it('a user pausing a check a deployment paused takes the pause over: the deployment end leaves it paused', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    const item = await readCheckById(t.deps, check.id);
    if (!item) throw new Error('missing');
    const now = t.clock.now();
    await pauseCheck(t.deps, item, { cause: 'DEPLOYMENT', now });
    const count = published().length;
    const byUser = expectStatus(await put(`/checks/${check.id}/pause`), 200);
    expect(byUser).toMatchObject({ status: 'PAUSED', deploymentPaused: false });
    expect(published()).toHaveLength(count);
    const current = await readCheckById(t.deps, check.id);
    if (!current) throw new Error('missing');
    expect((await resumeCheck(t.deps, current, { cause: 'DEPLOYMENT', now })).status).toBe('PAUSED');
  });

  it('disables and re-enables the probe schedules of outbound checks', async () => {
    const check = await createCheck(t, user, outboundBody(user, { regions: ['eu-west-1'] }));
    const schedule = () => t.deps.scheduler.schedules.get(`probe-${check.id}-eu-west-1`);
    expect(schedule()?.enabled).toBe(true);
    expectStatus(await put(`/checks/${check.id}/pause`), 200);
    expect(schedule()?.enabled).toBe(false);
    const resumed = expectStatus(await put(`/checks/${check.id}/resume`), 200);
    expect(schedule()?.enabled).toBe(true);
    // Outbound checks are judged by probes, not ping timing: no entry in the sweep's index.
    expect((await readCheckById(t.deps, check.id))?.dueAt).toBeUndefined();
    expect(resumed.nextDueAt).not.toBeNull();
  });

  it('deployment pauses set deploymentPaused; a deployment resumes only what it paused', async () => {
    const a = await createCheck(t, user, inboundBody(user));
    const now = t.clock.now();
    const itemA = await readCheckById(t.deps, a.id);
    if (!itemA) throw new Error('missing');
    const paused = await pauseCheck(t.deps, itemA, { cause: 'DEPLOYMENT', now });
    expect(paused).toMatchObject({ status: 'PAUSED', deploymentPaused: true });
    expect(published().at(-1)).toMatchObject({ from: 'NEW', to: 'PAUSED', cause: 'DEPLOYMENT' });
    const resumed = await resumeCheck(t.deps, paused, { cause: 'DEPLOYMENT', now });
    expect(resumed.status).toBe('RESUMED');
    expect(resumed.deploymentPaused).toBeUndefined();
    expect(published().at(-1)).toMatchObject({ from: 'PAUSED', to: 'RESUMED', cause: 'DEPLOYMENT' });

    const b = await createCheck(t, user, inboundBody(user));
    const userPaused = expectStatus(await put(`/checks/${b.id}/pause`), 200);
    const itemB = await readCheckById(t.deps, b.id);
    if (!itemB) throw new Error('missing');
    const count = published().length;
    expect((await pauseCheck(t.deps, itemB, { cause: 'DEPLOYMENT', now })).deploymentPaused).toBeUndefined();
    expect((await resumeCheck(t.deps, itemB, { cause: 'DEPLOYMENT', now })).status).toBe('PAUSED');
    expect(published()).toHaveLength(count);
    expect(userPaused.deploymentPaused).toBe(false);
  });

  it('works from the state it reads, not a stale copy', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    const stale = await readCheckById(t.deps, check.id);
    if (!stale) throw new Error('missing');
    await setStatus(check.id, 'LATE', t.clock.now().toISOString());
    await pauseCheck(t.deps, stale, { cause: 'USER', now: t.clock.now() });
    expect(published().at(-1)).toMatchObject({ from: 'LATE', to: 'PAUSED' });
  });
});

describe('DELETE /checks/:id', () => {
  it('soft-deletes: 404 everywhere after, signals removed, DELETE message, schedules removed', async () => {
    const check = await createCheck(t, user, outboundBody(user));
    await setStatus(check.id, 'DOWN', t.clock.now().toISOString());
    const expiresAt = Math.floor(t.clock.now().getTime() / 1000) + 3600;
    for (let i = 0; i < 30; i++) {
      await t.deps.store.entities.signal
        .create({ checkId: check.id, workspaceId: user.workspaceId, signalId: `sig${i}`, receivedAt: new Date(i * 1000).toISOString(), type: 'FAIL', source: 'PROBE', expiresAt })
        .go();
    }
    expectStatus(await t.request('DELETE', `/checks/${check.id}`, { token: user.token }), 204);
    expect(published()).toEqual([expect.objectContaining({ checkId: check.id, cause: 'DELETE', from: 'DOWN' })]);
    const remaining = await t.deps.store.entities.signal.query.byCheck({ checkId: check.id }).go({ pages: 'all' });
    expect(remaining.data).toEqual([]);
    expect(t.deps.scheduler.schedules.has(`probe-${check.id}-${t.config.homeRegion}`)).toBe(false);
    const stored = (await t.deps.store.entities.check.get({ token: check.token }).go()).data;
    expect(stored?.deletedAt).toBe(t.clock.now().toISOString());
    expect(stored?.dueAt).toBeUndefined();

    expectError(await get(check.id), 404);
    expectError(await t.request('GET', `/checks/token/${check.token}`, { token: user.token }), 404);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { token: user.token, body: { name: 'x' } }), 404);
    expectError(await put(`/checks/${check.id}/pause`), 404);
    expectError(await put(`/checks/${check.id}/resume`), 404);
    expectError(await t.request('PATCH', `/checks/${check.id}/transfer`, { token: user.token, body: { projectId: user.projectId } }), 404);
    expectError(await t.request('DELETE', `/checks/${check.id}`, { token: user.token }), 404);
    expectError(await t.request('GET', check.badgeUrl), 404);
    const list = expectStatus(await t.request<{ items: DashboardCheck[] }>('GET', '/checks?limit=100', { token: user.token }), 200);
    expect(list.items.map((c) => c.id)).not.toContain(check.id);
  });
});

describe('authorisation', () => {
  it('404s every route for another workspace and keeps the check unchanged', async () => {
    const check = await createCheck(t, user, outboundBody(user));
    const stranger = await t.signup('stranger');
    const as = { token: stranger.token };
    expectError(await t.request('GET', `/checks/${check.id}`, as), 404);
    expectError(await t.request('GET', `/checks/token/${check.token}`, as), 404);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { ...as, body: { name: 'mine now' } }), 404);
    expectError(await t.request('PUT', `/checks/${check.id}/pause`, as), 404);
    expectError(await t.request('PUT', `/checks/${check.id}/resume`, as), 404);
    expectError(await t.request('PATCH', `/checks/${check.id}/transfer`, { ...as, body: { projectId: stranger.projectId } }), 404);
    expectError(await t.request('DELETE', `/checks/${check.id}`, as), 404);
    expectError(await t.request('GET', `/checks?workspaceId=${user.workspaceId}`, as), 404);
    expectError(await t.request('GET', `/checks?projectId=${user.projectId}`, as), 404);
    expectError(await t.request('POST', '/checks', { ...as, body: inboundBody(user) }), 404);
    const list = expectStatus(await t.request<{ items: DashboardCheck[] }>('GET', '/checks', as), 200);
    expect(list.items).toEqual([]);
    expect(expectStatus(await get(check.id), 200)).toEqual({ ...check, probe: expect.objectContaining({ status: check.status }) });
  });

  it('lets a VIEWER read but not write (403)', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    const viewer = await t.signup('viewer');
    await addMember(t, user, viewer, 'VIEWER');
    const as = { token: viewer.token };
    expectStatus(await t.request('GET', `/checks/${check.id}`, as), 200);
    expectStatus(await t.request('GET', `/checks/token/${check.token}`, as), 200);
    expectStatus(await t.request('GET', `/checks?workspaceId=${user.workspaceId}`, as), 200);
    expectError(await t.request('POST', '/checks', { ...as, body: inboundBody(user) }), 403);
    expectError(await t.request('PATCH', `/checks/${check.id}`, { ...as, body: { name: 'x' } }), 403);
    expectError(await t.request('PUT', `/checks/${check.id}/pause`, as), 403);
    expectError(await t.request('PUT', `/checks/${check.id}/resume`, as), 403);
    expectError(await t.request('PATCH', `/checks/${check.id}/transfer`, { ...as, body: { projectId: user.projectId } }), 403);
    expectError(await t.request('DELETE', `/checks/${check.id}`, as), 403);

    const member = await t.signup('member');
    await addMember(t, user, member, 'MEMBER');
    expectStatus(await t.request('POST', '/checks', { token: member.token, body: inboundBody(user) }), 201);
    expectStatus(await t.request('PUT', `/checks/${check.id}/pause`, { token: member.token }), 200);
  });
});

describe('badges', () => {
  it('redirects to an SVG that does not reveal the ping token, coloured by status', async () => {
    const check = await createCheck(t, user, inboundBody(user, { name: 'private name', badgeLabel: '<script>alert("x")</script> & co' }));
    expect(check.badgeUrl).toMatch(new RegExp(`^${t.config.publicUrl}/api/checks/${check.id}-[0-9a-f]{32}/badge$`));
    const redirect = await t.request('GET', check.badgeUrl);
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${t.config.publicUrl}/api/badges/checks/${check.id}-[0-9a-f]{32}\\.svg$`));
    expect(location).not.toContain(check.token);
    expect(redirect.headers.get('cache-control')).toMatch(/max-age=\d+/);

    const colourOf = async () => {
      const svg = await t.request('GET', location);
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toContain('image/svg+xml');
      expect(svg.headers.get('cache-control')).toBe('public, max-age=60');
      expect(svg.text).not.toContain('<script>');
      expect(svg.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
      return /<rect x="\d+" width="\d+" height="20" fill="(#[0-9a-f]{6})"/.exec(svg.text)?.[1];
    };
    expect(await colourOf()).toBe('#8b949e');
    await setStatus(check.id, 'OK', t.clock.now().toISOString());
    expect(await colourOf()).toBe('#3fb950');
    await setStatus(check.id, 'LATE', t.clock.now().toISOString());
    expect(await colourOf()).toBe('#d29922');
    await setStatus(check.id, 'DOWN', t.clock.now().toISOString());
    expect(await colourOf()).toBe('#e5534b');
  });

  it('is not enumerable by sequential id: a bare numeric id is 404, only the unguessable key answers', async () => {
    const other = await t.signup('badge-neighbour');
    const first = await createCheck(t, user, inboundBody(user));
    const second = await createCheck(t, other, inboundBody(other));
    // Ids are sequential: walking them must not list every check of the install (and its status).
    for (const id of [first.id, second.id, second.id + 1]) expectError(await t.request('GET', `/checks/${id}/badge`), 404);
    expectError(await t.request('GET', `/checks/${second.id}-${'0'.repeat(32)}/badge`), 404);
    // The key of one check does not open another.
    const key = /\/checks\/([^/]+)\/badge$/.exec(first.badgeUrl)?.[1] ?? '';
    expectError(await t.request('GET', `/checks/${key.replace(/^\d+/, String(second.id))}/badge`), 404);
    expect((await t.request('GET', first.badgeUrl)).status).toBe(302);
    expect((await t.request('GET', second.badgeUrl)).status).toBe(302);
  });

  it('refuses made-up badge keys and unknown checks', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    expectError(await t.request('GET', `/badges/checks/${check.id}-${'0'.repeat(32)}.svg`), 404);
    expectError(await t.request('GET', `/badges/checks/${check.token}.svg`), 404);
    expectError(await t.request('GET', '/badges/checks/nothing'), 404);
    expectError(await t.request('GET', '/checks/999999/badge'), 404);
    expectError(await t.request('GET', '/checks/999999-0123456789abcdef0123456789abcdef/badge'), 404);
  });
});
