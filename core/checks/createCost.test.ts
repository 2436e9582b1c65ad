import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { LONG_SESSIONS, addMember, expectStatus, freshRateWindow, inboundBody, type User } from '../../test/support/checks.js';
import { metered, roundTrips, writesOf } from '../../test/support/meter.js';
import type { ApiKeyActor, Ctx } from '../context.js';
import { PLAN_LIMITS } from '../auth/plans.js';
import { createHeartbeatJob } from './v1.js';

/*
 * What one check create costs the store, so that it cannot creep back: bench/scale.ts grows a
 * workspace to 10,000 jobs through the same verb and holds its p99 to 50 ms. Reads that only
 * authorise run beside each other, and nothing is written before the caller is authorised.
 */

let t: TestContext;
let owner: User;
let stranger: User;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_DEFAULT_PLAN: 'BUSINESS' });
  owner = await t.signup('create-cost');
  stranger = await t.signup('create-cost-stranger');
  // The first create of a workspace seeds its plan counter (quota.ts): every create after it is the steady state.
  await createHeartbeatJob(userCtx(owner), { name: 'seed', projectId: owner.projectId, intervalSeconds: 3600 });
});
beforeEach(() => freshRateWindow(t));

const userCtx = (user: User): Ctx => ({ deps: t.deps, actor: { kind: 'user', userId: user.userId, email: user.email } });
const keyCtx = (user: User, permission: ApiKeyActor['permission'] = 'read_write'): Ctx => ({
  deps: t.deps,
  actor: { kind: 'apiKey', apiKeyId: 1, workspaceId: user.workspaceId, permission, keyKind: 'service', name: 'meter' },
});
const job = (user: User, extra: Record<string, unknown> = {}) => ({ name: 'metered', projectId: user.projectId, intervalSeconds: 3600, ...extra });

describe('one check create, metered at the store', () => {
  it('by a user: 7 requests in 4 round trips (project; membership and plan in one batch; slot + id; check + ref + rank)', async () => {
    const { result, requests } = await metered(t.deps.store, () => createHeartbeatJob(userCtx(owner), job(owner)));
    expect(result.workspaceId).toBe(owner.workspaceId);
    expect(roundTrips(requests)).toEqual([['GetItem'], ['BatchGetItem'], ['UpdateItem', 'UpdateItem'], ['PutItem', 'PutItem', 'UpdateItem']]);
  });

  it('by an API key: 6 requests in 3 round trips (the key names the workspace, so its plan is read with the project)', async () => {
    const { result, requests } = await metered(t.deps.store, () => createHeartbeatJob(keyCtx(owner), job(owner)));
    expect(result.workspaceId).toBe(owner.workspaceId);
    expect(roundTrips(requests)).toEqual([['BatchGetItem'], ['UpdateItem', 'UpdateItem'], ['PutItem', 'PutItem', 'UpdateItem']]);
  });

  it('writes nothing for a foreign project (404), a viewer or a read-only key (403) or a bad body (400)', async () => {
    const foreignUser = await metered(t.deps.store, () => createHeartbeatJob(userCtx(stranger), job(owner)).catch((err: unknown) => err));
    expect(foreignUser.result).toMatchObject({ status: 404 });
    expect(writesOf(foreignUser.requests)).toEqual([]);

    const foreignKey = await metered(t.deps.store, () => createHeartbeatJob(keyCtx(stranger), job(owner)).catch((err: unknown) => err));
    expect(foreignKey.result).toMatchObject({ status: 404 });
    expect(writesOf(foreignKey.requests)).toEqual([]);

    const viewer = await t.signup('create-cost-viewer');
    await addMember(t, owner, viewer, 'VIEWER');
    const asViewer = await metered(t.deps.store, () => createHeartbeatJob(userCtx(viewer), job(owner)).catch((err: unknown) => err));
    expect(asViewer.result).toMatchObject({ status: 403 });
    expect(writesOf(asViewer.requests)).toEqual([]);

    const readOnly = await metered(t.deps.store, () => createHeartbeatJob(keyCtx(owner, 'read_only'), job(owner)).catch((err: unknown) => err));
    expect(readOnly.result).toMatchObject({ status: 403 });
    expect(writesOf(readOnly.requests)).toEqual([]);

    const missing = await metered(t.deps.store, () => createHeartbeatJob(keyCtx(owner), job(owner, { projectId: 999_999_999 })).catch((err: unknown) => err));
    expect(missing.result).toMatchObject({ status: 404 });
    expect(writesOf(missing.requests)).toEqual([]);

    const bad = await metered(t.deps.store, () => createHeartbeatJob(userCtx(owner), job(owner, { intervalSeconds: -1 })).catch((err: unknown) => err));
    expect(bad.result).toMatchObject({ status: 400 });
    expect(bad.requests).toEqual([]);
  });

  it('honours a plan change on the very next create (the plan is read by every create, never cached)', async () => {
    const user = await t.signup('create-cost-downgrade');
    await createHeartbeatJob(userCtx(user), job(user, { intervalSeconds: 300 }));
    await t.deps.store.entities.workspace.patch({ workspaceId: user.workspaceId }).set({ plan: 'FREE' }).go();
    const floor = PLAN_LIMITS.FREE.intervalFloorSeconds;
    const refused = await metered(t.deps.store, () => createHeartbeatJob(userCtx(user), job(user, { intervalSeconds: floor - 1 })).catch((err: unknown) => err));
    expect(refused.result).toMatchObject({ status: 403, code: 'PLAN_LIMIT_EXCEEDED' });
    expect(writesOf(refused.requests)).toEqual([]);
    await t.deps.store.entities.workspace.patch({ workspaceId: user.workspaceId }).set({ plan: 'BUSINESS' }).go();
    expect((await createHeartbeatJob(userCtx(user), job(user, { intervalSeconds: floor - 1 }))).intervalSeconds).toBe(floor - 1);
  });
});

describe('over HTTP (the route adds its authentication, rate window and response)', () => {
  it('POST /v1/jobs: key lookups and rate window, then the 3 round trips of the create', async () => {
    const key = await t.apiKey(owner);
    // The key's lastUsedAt is written at most once a minute (the clock stands still here): the first request pays it.
    expectStatus(await t.request('POST', '/v1/jobs', { token: key, body: job(owner) }), 201);
    const { result, requests } = await metered(t.deps.store, () => t.request('POST', '/v1/jobs', { token: key, body: job(owner) }));
    expectStatus(result, 201);
    expect(requests).toHaveLength(9);
    expect(roundTrips(requests)).toEqual([
      ['GetItem'], // the address's failed-key window
      ['GetItem'], // the key
      ['UpdateItem'], // the key's rate window
      ['BatchGetItem'],
      ['UpdateItem', 'UpdateItem'],
      ['PutItem', 'PutItem', 'UpdateItem'],
    ]);
  });

  it('POST /checks: session and rate window, the 4 round trips of the create, then the response', async () => {
    const { result, requests } = await metered(t.deps.store, () => t.request('POST', '/checks', { token: owner.token, body: inboundBody(owner) }));
    expectStatus(result, 201);
    expect(requests).toHaveLength(10);
    expect(roundTrips(requests)).toEqual([
      ['GetItem'], // the session's user
      ['UpdateItem'], // the rate window
      ['GetItem'],
      ['BatchGetItem'],
      ['UpdateItem', 'UpdateItem'],
      ['PutItem', 'PutItem', 'UpdateItem'],
      ['GetItem'], // the response's view
    ]);
    expectError(await t.request('POST', '/checks', { token: stranger.token, body: inboundBody(owner) }), 404);
  });
});
