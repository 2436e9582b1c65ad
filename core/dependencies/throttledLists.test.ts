import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { declare } from '../../test/support/alerting.js';
import type { User } from '../../test/support/incidents.js';

/*
 * DynamoDB answers a BatchGetItem in part when it throttles, handing back the rest as
 * UnprocessedKeys. The lists of dependencies and incidents read their page in one batch: they must
 * ask again for what was left, and when it is still left after the last attempt, fail rather than
 * answer a page with items missing and a total that counts them.
 */
let t: TestContext;
let user: User;
const waits: number[] = [];
/** How many BatchGetItem answers still hand every key back unprocessed. */
let throttled = 0;

beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('throttled');
  t.deps.store.pause = async (ms) => void waits.push(ms);
  t.deps.store.client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (!/^BatchGet(Item)?Command$/.test(context.commandName ?? '') || throttled === 0) return result;
      throttled--;
      const output = result.output as { Responses?: Record<string, { pk: unknown; sk: unknown }[]>; UnprocessedKeys?: Record<string, { Keys: unknown[] }> };
      const table = t.deps.store.table;
      const held = output.Responses?.[table] ?? [];
      output.Responses = { [table]: [] };
      output.UnprocessedKeys = { [table]: { Keys: held.map((item) => ({ pk: item.pk, sk: item.sk })) } };
      return result;
    },
    { step: 'initialize', name: 'throttleBatchGets' },
  );
});

const list = (path: string) => t.request<{ items: { id: number }[]; total: number }>('GET', `${path}?workspaceId=${user.workspaceId}`, { token: user.token });

describe('a list page whose batch read the store throttles', () => {
  it('dependencies: keys handed back once are read again; still handed back after the last attempt, an error and no short page', async () => {
    for (const name of ['db', 'cache', 'queue']) {
      const res = await t.request('POST', '/dependencies', { token: user.token, body: { workspaceId: user.workspaceId, name } });
      expect(res.status).toBe(201);
    }
    waits.length = 0;
    throttled = 1;
    const page = await list('/dependencies');
    expect(page.status).toBe(200);
    expect([page.body.items.length, page.body.total]).toEqual([3, 3]);
    expect(waits).toEqual([20]);

    throttled = 1_000;
    const refused = await list('/dependencies');
    throttled = 0;
    expectError(refused, 500, 'INTERNAL');
    expect(waits.length).toBe(1 + 5);
  });

  it('incidents: the same', async () => {
    const key = await t.apiKey(user);
    for (const title of ['one', 'two']) await declare(t, key, { title });
    waits.length = 0;
    throttled = 1;
    const page = await list('/incidents');
    expect(page.status).toBe(200);
    expect([page.body.items.length, page.body.total]).toEqual([2, 2]);

    throttled = 1_000;
    const refused = await list('/incidents');
    throttled = 0;
    expectError(refused, 500, 'INTERNAL');
    expect(waits).toEqual([20, 20, 40, 80, 160, 320]);
  });
});
