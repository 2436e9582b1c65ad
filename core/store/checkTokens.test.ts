import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createCheck, expectStatus, inboundBody, LONG_SESSIONS, type User } from '../../test/support/checks.js';
import type { DashboardCheck } from '../checks/schema.js';
import { readCheckById } from '../checks/repository.js';
import { readCheckEvenDeleted } from '../alerting/delivery.js';
import { createJob } from '../../test/support/signals.js';
import { checkKey, checkRefKey } from './checkKeys.js';
import { readCheckOfId } from './checkTokens.js';

let t: TestContext;
let owner: User;
beforeAll(async () => {
  t = await createTestContext(LONG_SESSIONS);
  owner = await t.signup('tokens-owner');
});

/** The gets of check refs the store is sent while `work` runs. */
async function refGets(work: () => Promise<unknown>): Promise<number> {
  const send = vi.spyOn(t.deps.store.hot, 'send');
  try {
    await work();
    return send.mock.calls.filter(([command]) => command.constructor.name === 'GetItemCommand' && JSON.stringify(command.input).includes('checkref')).length;
  } finally {
    send.mockRestore();
  }
}

describe('a check read by id', () => {
  it('reads the id ref once, then follows a rotated token and a deletion as the ref says', async () => {
    const check = await createCheck(t, owner, inboundBody(owner, { name: 'remembered' }));
    expect(await refGets(() => readCheckById(t.deps, check.id))).toBeLessThanOrEqual(1);
    // Remembered: one get of the check by its token.
    expect(await refGets(() => readCheckById(t.deps, check.id))).toBe(0);

    const rotated = expectStatus(await t.request<DashboardCheck>('POST', `/checks/${check.id}/rotate-token`, { token: owner.token }), 200);
    // The remembered token's item is a tombstone now: the ref is read again and names the new one.
    expect((await readCheckById(t.deps, check.id))?.token).toBe(rotated.token);
    expect(await refGets(() => readCheckById(t.deps, check.id))).toBe(0);

    expectStatus(await t.request('DELETE', `/checks/${check.id}`, { token: owner.token }), 204);
    expect(await readCheckById(t.deps, check.id)).toBeUndefined();
    const tombstone = await readCheckEvenDeleted(t.deps, check.id);
    expect([tombstone?.token, tombstone?.deletedAt !== undefined]).toEqual([rotated.token, true]);
    expect(await readCheckById(t.deps, 987_654_321)).toBeUndefined();
  });

  it("is remembered from the ping path's read of a job it had no hint for: its next flip reads no ref", async () => {
    const job = await createJob(t, owner, await t.apiKey(owner));
    expectStatus(await t.request('GET', `/signals/ping/${job.token}`), 200);
    expect(await refGets(async () => expect((await readCheckById(t.deps, job.id))?.token).toBe(job.token))).toBe(0);
  });
});

describe('a check read by id as plain gets (core/store/checkTokens.ts)', () => {
  it("addresses the check and its ref as the entities' gets do", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.integer({ min: 1, max: 2 ** 53 - 1 }), (token, checkId) => {
        expect(checkKey(token)).toEqual(t.deps.store.entities.check.get({ token }).params<{ Key: unknown }>().Key);
        expect(checkRefKey(checkId)).toEqual(t.deps.store.entities.checkRef.get({ checkId }).params<{ Key: unknown }>().Key);
      }),
    );
  });

  it("reads the check the entity's get reads, a tombstone included", async () => {
    const check = await createCheck(t, owner, inboundBody(owner, { name: 'parsed' }));
    const ref = (await t.deps.store.entities.checkRef.get({ checkId: check.id }).go()).data;
    const theirs = async () => (await t.deps.store.entities.check.get({ token: ref?.token ?? '' }).go()).data;
    expect(await readCheckOfId(t.deps.store, check.id)).toEqual(await theirs());
    expectStatus(await t.request('DELETE', `/checks/${check.id}`, { token: owner.token }), 204);
    const tombstone = await theirs();
    expect(tombstone?.deletedAt).toBeDefined();
    expect(await readCheckOfId(t.deps.store, check.id)).toEqual(tombstone);
  });
});
