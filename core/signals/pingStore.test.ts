import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createJob } from '../../test/support/signals.js';
import { outboxWrite } from '../outbox/owe.js';
import { isConditionalFailure } from '../store/conditional.js';
import { readCheck, restoreField } from './pingStore.js';

// The ping path's plain reads and writes (no ElectroDB, for the ping Lambda) against the entity's own.
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

const viaEntity = async (token: string) => (await t.deps.store.entities.check.get({ token }).go({ consistent: true })).data;

describe('pingStore: the check as the ping path reads it', () => {
  it('reads a check exactly as the entity does, outbox index fields included', async () => {
    const user = await t.signup();
    const key = await t.apiKey(user);
    const job = await createJob(t, user, key, { slug: 'plain-read' });
    expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
    const owed = outboxWrite([{ queue: 'incidents', body: { type: 'note' } }], t.clock.now());
    await t.deps.store.entities.check.patch({ token: job.token }).append({ outbox: owed.entries }).set(owed.set).go();

    const plain = await readCheck(t.deps.store, job.token);
    const entity = await viaEntity(job.token);
    expect(entity?.outboxDue).toBeDefined();
    expect(entity?.lastPingAt).toBeDefined();
    expect(plain).toEqual(entity);
  });

  it('reads nothing for an unknown token', async () => {
    expect(await readCheck(t.deps.store, 'no-such-token')).toBeUndefined();
  });

  it('restores a dedup marker only while it is still the one the ping wrote', async () => {
    const user = await t.signup();
    const key = await t.apiKey(user);
    const job = await createJob(t, user, key);
    expect((await t.request('GET', `/signals/ping/${job.token}`)).status).toBe(200);
    const written = (await viaEntity(job.token))?.lastSuccessAt;
    expect(written).toBe(t.clock.now().toISOString());

    const refused = await restoreField(t.deps.store, job.token, 'lastSuccessAt', undefined, '2000-01-01T00:00:00.000Z').catch((err: unknown) => err);
    expect(isConditionalFailure(refused)).toBe(true);
    expect((await viaEntity(job.token))?.lastSuccessAt).toBe(written);

    await restoreField(t.deps.store, job.token, 'lastSuccessAt', '2025-12-31T00:00:00.000Z', written ?? '');
    expect((await viaEntity(job.token))?.lastSuccessAt).toBe('2025-12-31T00:00:00.000Z');
    await restoreField(t.deps.store, job.token, 'lastSuccessAt', undefined, '2025-12-31T00:00:00.000Z');
    expect((await viaEntity(job.token))?.lastSuccessAt).toBeUndefined();
    // A deleted item is not recreated.
    const gone = await restoreField(t.deps.store, 'no-such-token', 'lastSuccessAt', 'x', 'y').catch((err: unknown) => err);
    expect(isConditionalFailure(gone)).toBe(true);
  });
});
