import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createJob, recordStoreRequests, signalsOf } from '../../test/support/signals.js';

/*
 * The signal's group commit beside the check update (core/signals/signalWriter.ts), over HTTP:
 * pings that overlap, as a steady 200 a second often do, share the request that puts their
 * signals, and a ping alone still puts its signal at once with one PutItem.
 */
let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let key: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('group-commit');
  key = await t.apiKey(user);
});

const ping = (token: string) => t.request('GET', `/signals/ping/${token}`);
/** What the steady pings sent, the check updates apart from the rest. */
async function steadyPings(tokens: string[]): Promise<string[]> {
  const recorded = recordStoreRequests(t.deps.store);
  try {
    const answers = await Promise.all(tokens.map(ping));
    expect(answers.map((res) => res.status)).toEqual(tokens.map(() => 200));
    return recorded.commands.filter((command) => command !== 'UpdateItemCommand');
  } finally {
    recorded.stop();
  }
}

describe('signals of pings in flight together', () => {
  it('two steady pings sent together put both signals in one request, and each answers after its own is stored', async () => {
    const jobs = [await createJob(t, user, key), await createJob(t, user, key)];
    // The first pings move the checks NEW -> UP and warm the remembered hints.
    for (const { token } of jobs) expect((await ping(token)).status).toBe(200);
    t.clock.advanceSeconds(5);
    expect(await steadyPings(jobs.map((job) => job.token))).toEqual(['BatchWriteItemCommand']);
    for (const { id } of jobs) expect((await signalsOf(t, id)).map((signal) => signal.type)).toEqual(['SUCCESS', 'SUCCESS']);
  });

  it('a ping alone puts its signal with one PutItem', async () => {
    const { id, token } = await createJob(t, user, key);
    expect((await ping(token)).status).toBe(200);
    t.clock.advanceSeconds(5);
    expect(await steadyPings([token])).toEqual(['PutItemCommand']);
    expect(await signalsOf(t, id)).toHaveLength(2);
  });
});
