import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { sweepAndDeliver } from '../../test/support/outbox.js';
import { checkOf, createJob, recordStoreRequests, signalsOf } from '../../test/support/signals.js';

/** Dedup by kind (docs/guide/checks-and-pings.md) and what a ping owes when it moves the check, over HTTP. */
let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('deduper');
  key = await t.apiKey(user);
});

const job = () => createJob(t, user, key);
const ping = (token: string, kind = '') => t.request('GET', `/signals/ping/${token}${kind}`);
const moves = (checkId: number) =>
  (t.deps.queue.peek('incidents') as { type: string; checkId: number; from: string; to: string }[])
    .filter((m) => m.type === 'check.status_changed' && m.checkId === checkId)
    .map((m) => `${m.from}->${m.to}`);
const incidentStates = async (checkId: number) => (await t.deps.store.entities.incident.query.byCheck({ checkId }).go({ pages: 'all' })).data.map((i) => i.state);

/** Every publish to the queue fails while `work` runs (its error log silenced). */
async function whileQueueDown<T>(work: () => Promise<T>): Promise<T> {
  const publish = vi.spyOn(t.deps.queue, 'publish').mockRejectedValue(new Error('queue down'));
  // Nor does the consumer in this process take it (core/outbox/relay.ts handOffAfterWrite): the relay must publish, and fails.
  const handOff = vi.spyOn(t.deps.queue, 'handOff').mockReturnValue(false);
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    return await work();
  } finally {
    publish.mockRestore();
    handOff.mockRestore();
    logged.mockRestore();
  }
}

describe('a change of kind is never a duplicate', () => {
  it('curl $PING; curl $PING/fail within 1 s leaves the check DOWN with its incident open', async () => {
    const { id, token } = await job();
    expect((await ping(token)).status).toBe(200);
    t.clock.advance(30);
    expect((await ping(token, '/fail')).status).toBe(200);
    expect((await checkOf(t, token)).status).toBe('DOWN');
    expect((await signalsOf(t, id)).map((s) => s.type)).toEqual(['SUCCESS', 'FAIL']);
    expect(moves(id)).toEqual(['NEW->OK', 'OK->DOWN']);
    await t.deps.queue.drain();
    expect(await incidentStates(id)).toEqual(['ACTIVE']);
  });

  it('a success right after a fail brings the check back OK and resolves its incident', async () => {
    const { id, token } = await job();
    await ping(token);
    t.clock.advanceSeconds(5);
    await ping(token, '/fail');
    await t.deps.queue.drain();
    t.clock.advance(200);
    expect((await ping(token)).status).toBe(200);
    expect((await checkOf(t, token)).status).toBe('OK');
    await t.deps.queue.drain();
    expect(await incidentStates(id)).toEqual(['RESOLVED']);
    expect((await signalsOf(t, id)).map((s) => s.type)).toEqual(['SUCCESS', 'FAIL', 'SUCCESS']);
  });

  it('a start then its success within 1 s are both stored, with the duration', async () => {
    const { id, token } = await job();
    await ping(token, '/start');
    t.clock.advance(300);
    await ping(token);
    expect((await signalsOf(t, id)).map((s) => [s.type, s.durationMs])).toEqual([
      ['START', undefined],
      ['SUCCESS', 300],
    ]);
  });

  it.each(['', '/fail', '/start'])('a repeat of the same kind (%s) within 1 s answers 200 and stores nothing; after 1 s it counts', async (kind) => {
    const { id, token } = await job();
    await ping(token, kind);
    t.clock.advance(999);
    const again = await ping(token, kind);
    expect([again.status, again.body]).toEqual([200, { message: 'OK' }]);
    expect(await signalsOf(t, id)).toHaveLength(1);
    t.clock.advance(1);
    await ping(token, kind);
    expect(await signalsOf(t, id)).toHaveLength(2);
  });
});

describe('a failure after the update gives the dedup marker back', () => {
  it('a failed dependency report answers 500, and the retry at once is recorded, not swallowed', async () => {
    const { id, token } = await job();
    await ping(token);
    t.clock.advanceSeconds(5);
    const body = { dependencies: [{ name: 'postgres', status: 'down' }] };
    const failed = await whileQueueDown(() => t.request('POST', `/signals/ping/${token}`, { body }));
    expectError(failed, 500);
    const retried = await t.request('POST', `/signals/ping/${token}`, { body });
    expect(retried.status).toBe(200);
    expect(t.deps.queue.peek('incidents')).toContainEqual(expect.objectContaining({ type: 'dependencies.reported', checkId: id }));
  });

  it('a failed signal put on /fail answers 500, and the retry at once is recorded', async () => {
    const { id, token } = await job();
    await ping(token);
    t.clock.advanceSeconds(5);
    const client = t.deps.store.hot;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand') throw new Error('store unavailable');
        return next(args);
      },
      { step: 'initialize', name: 'failPuts' },
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const failed = await ping(token, '/fail');
    client.middlewareStack.remove('failPuts');
    logged.mockRestore();
    expectError(failed, 500);
    expect((await ping(token, '/fail')).status).toBe(200);
    expect((await signalsOf(t, id)).map((s) => s.type)).toEqual(['SUCCESS', 'FAIL']);
    // The move was owed by the first attempt's update: one message, not two.
    expect(moves(id)).toEqual(['NEW->OK', 'OK->DOWN']);
  });
});

describe('a move owes its message in the ping update itself', () => {
  it('one update records the move and its message; with the queue down the ping still answers 200 and the sweep sends it once', async () => {
    const { id, token } = await job();
    await ping(token);
    // Its NEW -> OK went to this process's incidents consumer (core/outbox/relay.ts handOffAfterWrite), which takes it now.
    await t.deps.queue.drain();
    t.clock.advanceSeconds(5);
    const requests = recordStoreRequests(t.deps.store);
    const answer = await whileQueueDown(() => ping(token, '/fail'));
    requests.stop();
    expect(answer.status).toBe(200);
    // The update (with the message), then the signal: the failed relay cleared nothing.
    expect(requests.commands).toEqual(['UpdateItemCommand', 'PutItemCommand']);
    const owing = await checkOf(t, token);
    expect([owing.status, owing.outbox?.length, owing.outboxDue]).toEqual(['DOWN', 1, 'outbox#0']);
    // Nothing went out: the OK -> DOWN is in the check's outbox only.
    expect(moves(id)).toEqual([]);
    await sweepAndDeliver(t);
    await sweepAndDeliver(t);
    expect(await incidentStates(id)).toEqual(['ACTIVE']);
    expect((await checkOf(t, token)).outboxDue).toBeUndefined();
  });
});
