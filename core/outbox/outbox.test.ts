import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { checkOf, createJob } from '../../test/support/signals.js';
import { itemKey, OUTBOX_GRACE_MS, outboxWrite, relayAfterWrite, relayOutbox, relayPendingOutboxes, type Owed } from './index.js';

let t: TestContext;
let token: string;
beforeEach(async () => {
  t = await createTestContext();
  const user = await t.signup('outbox');
  token = (await createJob(t, user, await t.apiKey(user))).token;
});

const note = (n: number): Owed => ({ queue: 'alerts', body: { type: 'test.note', n } });
const notes = () => (t.deps.queue.peek('alerts') as { type: string; n: number }[]).filter((m) => m.type === 'test.note').map((m) => m.n);
const keyOf = () => itemKey(t.deps.store.entities.check.get({ token }));

/** A state change of the check that owes `owed`, as the sites write it: append, set, one request. */
async function owe(...owed: Owed[]) {
  const write = outboxWrite(owed, t.clock.now());
  const written = await t.deps.store.entities.check.patch({ token }).append({ outbox: write.entries }).set(write.set).go({ response: 'all_new' });
  return written.data.outbox ?? [];
}
const sweep = () => relayPendingOutboxes(t.deps, t.clock.now());

describe('outbox', () => {
  it('records the owed messages with the write; the fast path publishes them in order and clears the item from the index', async () => {
    const pending = await owe(note(1), { queue: 'incidents', body: { type: 'test.other' } }, note(2));
    expect(pending.map((e) => e.queue)).toEqual(['alerts', 'incidents', 'alerts']);
    expect((await checkOf(t, token)).outboxDue).toBe('outbox#0');
    await relayAfterWrite(t.deps, keyOf(), pending);
    expect(notes()).toEqual([1, 2]);
    const check = await checkOf(t, token);
    expect([check.outbox, check.outboxId, check.outboxDue, check.outboxDueAt]).toEqual([undefined, undefined, undefined, undefined]);
    t.clock.advance(OUTBOX_GRACE_MS + 1);
    expect(await sweep()).toEqual({ read: 0, relayed: 0, failed: 0 });
  });

  it('a failed publish leaves the messages owed; the sweep relays them once, after the grace', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(t.deps.queue, 'publish').mockRejectedValueOnce(new Error('queue down'));
    await relayAfterWrite(t.deps, keyOf(), await owe(note(1)));
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('outbox relay failed'), expect.any(Error));
    logged.mockRestore();
    expect(notes()).toEqual([]);
    expect(await sweep()).toEqual({ read: 0, relayed: 0, failed: 0 });
    t.clock.advance(OUTBOX_GRACE_MS);
    expect(await sweep()).toEqual({ read: 1, relayed: 1, failed: 0 });
    expect(await sweep()).toEqual({ read: 0, relayed: 0, failed: 0 });
    expect(notes()).toEqual([1]);
  });

  it('keeps what a later change appended while a relay ran, and removes only what it published', async () => {
    const first = await owe(note(1));
    const both = await owe(note(2));
    expect(both.map((e) => e.id)).toEqual([first[0]?.id, expect.any(String)]);
    // The first write's relay runs late, after the second append: only entry 1 goes.
    expect(await relayOutbox(t.deps, keyOf(), first)).toBe('partly_cleared');
    expect((await checkOf(t, token)).outbox?.map((e) => e.id)).toEqual([both[1]?.id]);
    t.clock.advance(OUTBOX_GRACE_MS);
    expect(await sweep()).toEqual({ read: 1, relayed: 1, failed: 0 });
    expect(notes()).toEqual([1, 2]);
    expect((await checkOf(t, token)).outboxDue).toBeUndefined();
  });

  it('a relay that finds its entries already taken by another clears nothing', async () => {
    const pending = await owe(note(1));
    expect(await relayOutbox(t.deps, keyOf(), pending)).toBe('cleared');
    expect(await relayOutbox(t.deps, keyOf(), pending)).toBe('taken');
  });

  it('a crash between publish and clear publishes again on the next sweep (at least once, never lost)', async () => {
    const pending = await owe(note(1));
    // The clear is the relay's only REMOVE; the crash takes it and nothing else.
    let crashed = false;
    // The relay's updates go through the plain client (the one the ping path has).
    t.deps.store.hot.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { UpdateExpression?: string };
        if (!crashed && input.UpdateExpression?.startsWith('REMOVE')) {
          crashed = true;
          throw new Error('crash before the clear');
        }
        return next(args);
      },
      { step: 'initialize', name: 'crashClear' },
    );
    await expect(relayOutbox(t.deps, keyOf(), pending)).rejects.toThrow('crash before the clear');
    t.deps.store.hot.middlewareStack.remove('crashClear');
    t.clock.advance(OUTBOX_GRACE_MS);
    expect(await sweep()).toEqual({ read: 1, relayed: 1, failed: 0 });
    expect(notes()).toEqual([1, 1]);
  });
});
