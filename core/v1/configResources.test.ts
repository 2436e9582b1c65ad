import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { expectStatus, freshRateWindow, type User } from '../../test/support/checks.js';
import type { Page } from '../http/pagination.js';

/**
 * The Integration API's configuration resources (core/alerting/v1Routes.ts and its siblings), the
 * ones a monitoring-as-code file is applied through: each walked over HTTP with a read_write key
 * (the whole life), a read_only key (reads, 403 on writes), another workspace's key and ids (404)
 * and bad bodies (400, nothing changed).
 */

type Item = { id: number; workspaceId?: number } & Record<string, unknown>;
type Body = Record<string, unknown>;

let t: TestContext;
let owner: User;
let stranger: User;
let rw: string;
let ro: string;
let foreign: string;

beforeAll(async () => {
  t = await createTestContext();
  owner = await t.signup('v1-config');
  stranger = await t.signup('v1-stranger');
  [rw, ro, foreign] = await Promise.all([t.apiKey(owner), t.apiKey(owner, { permission: 'read_only' }), t.apiKey(stranger)]);
});
beforeEach(() => freshRateWindow(t));

const call = <T = Item>(key: string, method: string, path: string, body?: Body) => t.request<T>(method, `/v1${path}`, { token: key, ...(body === undefined ? {} : { body }) });
const get = async (path: string, key = rw) => expectStatus(await call(key, 'GET', path), 200);
const total = async (path: string) => expectStatus(await call<Page<Item>>(rw, 'GET', path), 200).total;

type Lifecycle = {
  /** The collection, e.g. `/alert-channels`. */
  path: string;
  create: () => Body;
  update: { method: 'PATCH' | 'PUT'; body: Body; expect: Body };
  /** Create bodies the spec refuses (400). */
  bad: Body[];
  badUpdates: Body[];
  /** Whether the body and list query take `workspaceId` (not under a parent resource). */
  workspaceScoped?: boolean;
};

/**
 * One resource's whole life through `/v1`; returns what the read_write key created first, read
 * again, for checks of its own (it is deleted by then).
 */
async function lifecycle(spec: Lifecycle): Promise<{ created: Item; read: Item; updated: Item }> {
  const { path, workspaceScoped = true } = spec;
  const listed = async (key = rw) => expectStatus(await call<Page<Item>>(key, 'GET', path), 200).items.map((i) => i.id);
  const before = await total(path);

  const created = expectStatus(await call(rw, 'POST', path, spec.create()), 201);
  if (workspaceScoped) {
    expect(created.workspaceId).toBe(owner.workspaceId);
    // Naming the key's own workspace is the same as leaving it out.
    const named = expectStatus(await call(rw, 'POST', path, { ...spec.create(), workspaceId: owner.workspaceId }), 201);
    expectStatus(await call(rw, 'DELETE', `${path}/${named.id}`), 204);
  }
  const one = `${path}/${created.id}`;
  const read = await get(one);
  expect(await listed()).toContain(created.id);

  // read_only: reads as the read_write key does, every write 403 and nothing changes.
  expect(await get(one, ro)).toEqual(read);
  expect(await listed(ro)).toEqual(await listed());
  expectError(await call(ro, 'POST', path, spec.create()), 403);
  expectError(await call(ro, spec.update.method, one, spec.update.body), 403);
  expectError(await call(ro, 'DELETE', one), 403);

  // Another workspace: its key finds nothing here, and this key finds nothing there.
  expectError(await call(foreign, 'GET', one), 404);
  expectError(await call(foreign, spec.update.method, one, spec.update.body), 404);
  expectError(await call(foreign, 'DELETE', one), 404);
  if (workspaceScoped) {
    expectError(await call(rw, 'POST', path, { ...spec.create(), workspaceId: stranger.workspaceId }), 404);
    expectError(await call(rw, 'GET', `${path}?workspaceId=${stranger.workspaceId}`), 404);
  }

  // Bad bodies: 400 with field details, nothing made or changed.
  for (const body of spec.bad) expect(expectError(await call(rw, 'POST', path, body), 400), JSON.stringify(body)).toHaveProperty('details');
  for (const body of spec.badUpdates) expectError(await call(rw, spec.update.method, one, body), 400);
  expect(await total(path)).toBe(before + 1);
  expect(await get(one)).toEqual(read);

  const updated = expectStatus(await call(rw, spec.update.method, one, spec.update.body), 200);
  expect(updated).toMatchObject(spec.update.expect);
  expect(await get(one)).toMatchObject(spec.update.expect);

  expectStatus(await call(rw, 'DELETE', one), 204);
  expectError(await call(rw, 'GET', one), 404);
  expect(await total(path)).toBe(before);
  return { created, read, updated };
}

describe('/v1/alert-channels', () => {
  const HOOK = 'https://hooks.slack.com/services/T0SECRET/B0SECRET/xoxoSecretPathwxyz';
  const slack = () => ({ name: 'Ops room', type: 'SLACK', config: { webhookUrl: HOOK } });

  it('lives through a read_write key with the Slack URL masked on every read, refused otherwise', async () => {
    const { created, read, updated } = await lifecycle({
      path: '/alert-channels',
      create: slack,
      update: { method: 'PATCH', body: { name: 'Ops hall', enabled: false }, expect: { name: 'Ops hall', enabled: false } },
      bad: [{}, { ...slack(), type: 'PIGEON' }, { ...slack(), name: '' }, { ...slack(), config: { webhookUrl: 'http://hooks.example.com/x' } }, { ...slack(), extra: 1 }],
      badUpdates: [{ name: '' }, { config: { url: 'https://example.com' } }, { type: 'EMAIL' }],
    });
    // The key that made it was told what it sent; a read, its own PATCH included, is masked as for a MEMBER.
    expect(created.config).toEqual({ webhookUrl: HOOK });
    for (const shown of [read, updated]) {
      expect(JSON.stringify(shown)).not.toContain('SECRET');
      expect(shown.config).toEqual({ webhookUrl: 'https://hooks.slack.com/…wxyz' });
    }
  });
});

describe('/v1/escalation-policies', () => {
  it('lives through a read_write key, its targets and projects checked against the workspace', async () => {
    const channel = expectStatus(await call(rw, 'POST', '/alert-channels', { name: 'pager', type: 'WEBHOOK', config: { url: 'https://example.com/hook' } }), 201);
    const alien = expectStatus(await call(foreign, 'POST', '/alert-channels', { name: 'theirs', type: 'WEBHOOK', config: { url: 'https://example.com/hook' } }), 201);
    const step = (alertChannelId: number) => ({ position: 0, delayMinutes: 0, targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId }] });
    let priority = 0;
    const policy = () => ({ name: 'Default', priority: priority++, steps: [step(channel.id)] });
    const { created } = await lifecycle({
      path: '/escalation-policies',
      create: policy,
      update: {
        method: 'PUT',
        body: { name: 'Nights', repeatCount: 2, projectIds: [owner.projectId] },
        expect: {
          name: 'Nights',
          repeatCount: 2,
          projectIds: [owner.projectId],
          steps: [{ ...step(channel.id), targets: [{ targetType: 'ALERT_CHANNEL', alertChannelId: channel.id }] }],
        },
      },
      bad: [{}, { ...policy(), steps: [] }, { ...policy(), priority: -1 }, { ...policy(), projectIds: [], integrationIds: [] }, { ...policy(), extra: 1 }],
      badUpdates: [{ name: '' }, { steps: [{ ...step(channel.id), position: 1 }] }, { workspaceId: owner.workspaceId }],
    });
    expect(created).toMatchObject({ projectIds: null, enabled: true, repeatCount: 0 });
    // Another workspace's channel or project is as unknown as a made-up one.
    expectError(await call(rw, 'POST', '/escalation-policies', { ...policy(), steps: [step(alien.id)] }), 404);
    expectError(await call(rw, 'POST', '/escalation-policies', { ...policy(), projectIds: [stranger.projectId] }), 404);
    // A channel a policy pages cannot be deleted from under it, through /v1 as on the dashboard.
    const kept = expectStatus(await call(rw, 'POST', '/escalation-policies', policy()), 201);
    expectError(await call(rw, 'DELETE', `/alert-channels/${channel.id}`), 409);
    expectStatus(await call(rw, 'DELETE', `/escalation-policies/${kept.id}`), 204);
    expectStatus(await call(rw, 'DELETE', `/alert-channels/${channel.id}`), 204);
  });
});

describe('/v1/on-call-schedules and the read-only /v1/teams and /v1/members', () => {
  const rotation = (userId: number) => ({
    type: 'weekly',
    layerPosition: 0,
    effectiveFrom: '2026-03-02T09:00:00Z',
    handoffTime: '09:00',
    participants: [{ userId, position: 0 }],
  });
  const schedule = () => ({ name: 'Primary', timezone: 'Europe/Berlin', rotations: [rotation(owner.userId)] });

  it('lives through a read_write key; a rotation names only people of the workspace', async () => {
    const { created } = await lifecycle({
      path: '/on-call-schedules',
      create: schedule,
      update: {
        method: 'PUT',
        body: { name: 'Secondary', handoffNotificationMinutes: null },
        expect: { name: 'Secondary', handoffNotificationMinutes: null, timezone: 'Europe/Berlin' },
      },
      bad: [{}, { ...schedule(), timezone: 'Mars/Olympus' }, { ...schedule(), rotations: [{ ...rotation(owner.userId), type: 'hourly' }] }, { ...schedule(), extra: 1 }],
      badUpdates: [{ name: '' }, { rotations: [{ ...rotation(owner.userId), handoffTime: '25:00' }] }],
    });
    expect(created).toMatchObject({ name: 'Primary', handoffNotificationMinutes: 15, enabled: true });
    expectError(await call(rw, 'POST', '/on-call-schedules', { ...schedule(), rotations: [rotation(stranger.userId)] }), 404);
  });

  it('lists and reads teams and members for any key of the workspace, nobody else', async () => {
    const team = expectStatus(
      await t.request<Item>('POST', '/teams', { token: owner.token, body: { workspaceId: owner.workspaceId, name: 'SRE', description: 'keeps it up' } }),
      201,
    );
    expectStatus(await t.request('POST', '/team-members', { token: owner.token, body: { teamId: team.id, userId: owner.userId } }), 201);
    for (const key of [rw, ro]) {
      const teams = expectStatus(await call<Page<Item>>(key, 'GET', '/teams'), 200);
      expect(teams).toMatchObject({ total: 1, page: 1, items: [{ id: team.id, name: 'SRE', members: [{ userId: owner.userId, email: owner.email }] }] });
      expect(await get(`/teams/${team.id}`, key)).toEqual(teams.items[0]);
      const members = expectStatus(await call<Page<Item>>(key, 'GET', '/members?limit=1'), 200);
      expect(members).toMatchObject({ total: 1, limit: 1, items: [{ userId: owner.userId, email: owner.email, name: 'v1-config', role: 'OWNER' }] });
    }
    expectError(await call(foreign, 'GET', `/teams/${team.id}`), 404);
    for (const path of ['/teams', '/members']) expectError(await call(rw, 'GET', `${path}?workspaceId=${stranger.workspaceId}`), 404);
    // Read only through /v1: managing teams and members stays with a session.
    expectError(await call(rw, 'POST', '/teams', { name: 'Ops' }), 405);
    expectError(await call(rw, 'DELETE', `/teams/${team.id}`), 405);
  });
});

describe('/v1/status-pages and their components', () => {
  let slugs = 0;
  const page = () => ({ name: 'Acme status', slug: `acme-v1-${Date.now().toString(36)}-${++slugs}` });

  it('lives through a read_write key', async () => {
    const { created } = await lifecycle({
      path: '/status-pages',
      create: page,
      update: { method: 'PATCH', body: { name: 'Acme', showUptimeHistory: false }, expect: { name: 'Acme', showUptimeHistory: false } },
      bad: [{}, { ...page(), slug: 'Not a slug' }, { ...page(), visibility: 'PASSWORD_PROTECTED' }, { ...page(), primaryColor: 'red' }, { ...page(), extra: 1 }],
      badUpdates: [{ name: '' }, { password: null }, { workspaceId: owner.workspaceId }],
    });
    expect(created).toMatchObject({ name: 'Acme status', visibility: 'PUBLIC', enabled: true });
  });

  it('adds, changes, reorders and removes components of its pages only', async () => {
    const statusPage = expectStatus(await call(rw, 'POST', '/status-pages', page()), 201);
    const path = `/status-pages/${statusPage.id}/components`;
    const add = async (name: string, position: number) => expectStatus(await call(rw, 'POST', path, { name, position, projectId: owner.projectId }), 201);
    const api = await add('API', 0);
    const web = await add('Website', 1);
    const listed = async (key = rw) => expectStatus(await call<Page<Item>>(key, 'GET', path), 200);
    expect((await listed()).items.map((c) => c.id)).toEqual([api.id, web.id]);
    expect(await listed(ro)).toEqual(await listed());
    expect((await get(`/status-pages/${statusPage.id}`, ro)).components).toHaveLength(2);

    // read_only and another workspace change nothing; bad bodies are 400.
    const before = await listed();
    expectError(await call(ro, 'POST', path, { name: 'Docs', projectId: owner.projectId }), 403);
    expectError(await call(ro, 'PATCH', `${path}/${api.id}`, { name: 'x' }), 403);
    expectError(await call(ro, 'PATCH', `${path}/reorder`, { componentIds: [web.id, api.id] }), 403);
    expectError(await call(ro, 'DELETE', `${path}/${api.id}`), 403);
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['POST', '', { name: 'Docs', projectId: stranger.projectId }],
      ['PATCH', `/${api.id}`, { name: 'x' }],
      ['DELETE', `/${api.id}`, undefined],
    ] as const) {
      expectError(await call(foreign, method, `${path}${suffix}`, body), 404);
    }
    expectError(await call(rw, 'POST', path, { name: 'Docs', projectId: stranger.projectId }), 404);
    for (const body of [{}, { name: 'Docs' }, { name: 'Docs', projectId: owner.projectId, checkId: 1 }, { name: '', projectId: owner.projectId }]) {
      expectError(await call(rw, 'POST', path, body), 400);
    }
    expectError(await call(rw, 'PATCH', `${path}/reorder`, { componentIds: [api.id] }), 400);
    expectError(await call(rw, 'PATCH', `${path}/reorder`, { componentIds: [api.id, api.id] }), 400);
    expect(await listed()).toEqual(before);

    expect(expectStatus(await call(rw, 'PATCH', `${path}/${web.id}`, { name: 'Web', groupName: 'Front' }), 200)).toMatchObject({ name: 'Web', groupName: 'Front' });
    const reordered = expectStatus(await call<Item[]>(rw, 'PATCH', `${path}/reorder`, { componentIds: [web.id, api.id] }), 200);
    expect(reordered.map((c) => c.id)).toEqual([web.id, api.id]);
    expect((await listed()).items.map((c) => [c.id, c.name])).toEqual([
      [web.id, 'Web'],
      [api.id, 'API'],
    ]);
    expectStatus(await call(rw, 'DELETE', `${path}/${api.id}`), 204);
    expect((await listed()).total).toBe(1);
    expectStatus(await call(rw, 'DELETE', `/status-pages/${statusPage.id}`), 204);
    expectError(await call(rw, 'GET', path), 404);
  });
});

describe('/v1/projects and /v1/maintenance-windows: update and delete', () => {
  it('a project lives through a read_write key; one with checks is not deleted', async () => {
    const project = () => ({ name: 'billing', description: 'invoices' });
    await lifecycle({
      path: '/projects',
      create: project,
      update: { method: 'PATCH', body: { name: 'payments', description: null }, expect: { name: 'payments', description: null } },
      bad: [{}, { name: '' }, { ...project(), workspaceId: owner.workspaceId }],
      badUpdates: [{ name: '' }, { description: 'x'.repeat(256) }, { extra: 1 }],
      workspaceScoped: false,
    });
    const busy = expectStatus(await call(rw, 'POST', '/projects', project()), 201);
    const job = expectStatus(await call(rw, 'POST', '/jobs', { name: 'nightly', projectId: busy.id, intervalSeconds: 60, graceSeconds: 5 }), 201);
    expectError(await call(rw, 'DELETE', `/projects/${busy.id}`), 409);
    expectStatus(await call(rw, 'DELETE', `/jobs/${job.id}`), 204);
    expectStatus(await call(rw, 'DELETE', `/projects/${busy.id}`), 204);
  });

  it('a maintenance window is read, changed while scheduled, cancelled and deleted', async () => {
    const at = (minutes: number) => new Date(t.clock.now().getTime() + minutes * 60_000).toISOString();
    const window = () => ({ name: 'db upgrade', startAt: at(60), endAt: at(120) });
    const { read } = await lifecycle({
      path: '/maintenance-windows',
      create: window,
      update: { method: 'PUT', body: { name: 'db vacuum', endAt: at(180) }, expect: { name: 'db vacuum', endAt: at(180), state: 'SCHEDULED' } },
      bad: [{}, { ...window(), endAt: 'soon' }, { ...window(), workspaceId: owner.workspaceId }],
      badUpdates: [{ name: '' }, { endAt: 'soon' }, { state: 'ACTIVE' }],
      workspaceScoped: false,
    });
    expect(read).toMatchObject({ state: 'SCHEDULED', projects: [{ id: owner.projectId }] });

    const active = expectStatus(await call(rw, 'POST', '/maintenance-windows', { name: 'now', endAt: at(30) }), 201);
    const one = `/maintenance-windows/${active.id}`;
    expectError(await call(rw, 'PUT', one, { name: 'later' }), 409);
    expectError(await call(rw, 'DELETE', one), 409);
    expectError(await call(ro, 'POST', `${one}/cancel`), 403);
    expectError(await call(foreign, 'POST', `${one}/cancel`), 404);
    expect(await get(one)).toMatchObject({ state: 'ACTIVE' });
    expect(expectStatus(await call(rw, 'POST', `${one}/cancel`), 200)).toMatchObject({ state: 'CANCELLED' });
    expect(expectStatus(await call(rw, 'POST', `${one}/cancel`), 200)).toMatchObject({ state: 'CANCELLED' });
    expectStatus(await call(rw, 'DELETE', one), 204);
  });
});
