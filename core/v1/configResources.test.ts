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
