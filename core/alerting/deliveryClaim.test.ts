import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { claimDelivery, CLAIM_LEASE_MS } from './deliveryClaim.js';

/**
 * A delivery's claim holds other workers off for its lease. Under a runtime that owns its store
 * (`npm start`), a claim from before that runtime started is an orphan at once: the process that
 * took it was killed mid-send, and its alert must not wait out the lease after the restart.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

const at = (ms: number) => new Date(Date.parse('2026-03-01T12:00:00.000Z') + ms);

describe('delivery claims', () => {
  it('hold another worker off for the lease, then lapse', async () => {
    const key = 'claim-lease';
    expect(await claimDelivery(t.deps, key, at(0))).toBeDefined();
    expect(await claimDelivery(t.deps, key, at(10_000))).toBeUndefined();
    expect(await claimDelivery(t.deps, key, at(CLAIM_LEASE_MS + 1))).toBeDefined();
  });

  it('taken before a runtime that owns the store started are orphans; its own claims hold', async () => {
    const key = 'claim-orphan';
    // The killed run's claim, at 0; the restarted run owns the store from 5 s on.
    expect(await claimDelivery(t.deps, key, at(0))).toBeDefined();
    const restarted = { store: t.deps.store, storeOwnedSince: at(5_000) };
    const release = await claimDelivery(restarted, key, at(10_000));
    expect(release).toBeDefined();
    // Its own claim is live for its other workers, as any claim is.
    expect(await claimDelivery(restarted, key, at(11_000))).toBeUndefined();
    await release?.();
    expect(await claimDelivery(restarted, key, at(12_000))).toBeDefined();
  });
});
