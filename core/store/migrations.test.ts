import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createCheck, expectStatus, inboundBody, type User } from '../../test/support/checks.js';
import { moveCheckListsToRefs, tidyCheckRefs } from './migrations.js';

let t: TestContext;
let user: User;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('legacy');
});

const listed = async () =>
  expectStatus(await t.request<{ items: { id: number }[] }>('GET', `/checks?projectId=${user.projectId}&limit=100`, { token: user.token }), 200).items.map((c) => c.id);

/** Puts a check back in the layout of before 2026-11-21: in gsi1/gsi3 itself, its ref in neither. */
async function makeLegacy(checkId: number, token: string): Promise<void> {
  const { client, table } = t.deps.store;
  await client.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: `$vigil#token_${token.toLowerCase()}`, sk: '$check_1' },
      UpdateExpression: 'SET gsi1pk = :p1, gsi1sk = :s, gsi3pk = :p3, gsi3sk = :s',
      ExpressionAttributeValues: { ':p1': `$vigil#projectid_${user.projectId}`, ':p3': `$vigil#workspaceid_${user.workspaceId}`, ':s': `$check_1#checkid_${checkId}` },
    }),
  );
  await client.send(
    new UpdateCommand({ TableName: table, Key: { pk: `$vigil#checkid_${checkId}`, sk: '$checkref_1' }, UpdateExpression: 'REMOVE projectId, gsi1pk, gsi1sk, gsi3pk, gsi3sk' }),
  );
}

describe('moveCheckListsToRefs', () => {
  it('brings checks written in the old layout back into the lists, once', async () => {
    const check = await createCheck(t, user, inboundBody(user));
    const current = await createCheck(t, user, inboundBody(user));
    await makeLegacy(check.id, check.token);
    expect(await listed()).toEqual([current.id]);

    expect(await moveCheckListsToRefs(t.deps)).toBe(1);
    expect(await listed()).toEqual([check.id, current.id]);
    const item = await t.deps.store.client.send(new GetCommand({ TableName: t.deps.store.table, Key: { pk: `$vigil#token_${check.token.toLowerCase()}`, sk: '$check_1' } }));
    expect(item.Item).not.toHaveProperty('gsi1pk');
    expect(item.Item).not.toHaveProperty('gsi3pk');
    expect(await moveCheckListsToRefs(t.deps)).toBe(0);
  });
});

describe('tidyCheckRefs', () => {
  it('gives refs of before 2026-11-23 their mode and takes deleted checks out of the lists', async () => {
    const owner = await t.signup('tidy');
    const kept = await createCheck(t, owner, inboundBody(owner));
    const gone = await createCheck(t, owner, inboundBody(owner));
    expectStatus(await t.request('DELETE', `/checks/${gone.id}`, { token: owner.token }), 204);
    const { client, table } = t.deps.store;
    // As refs were written before: no mode, and the deleted check's ref still in both indexes.
    for (const id of [kept.id, gone.id]) {
      await client.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `$vigil#checkid_${id}`, sk: '$checkref_1' },
          UpdateExpression: 'REMOVE checkMode SET gsi1pk = :p1, gsi1sk = :s, gsi3pk = :p3, gsi3sk = :s',
          ExpressionAttributeValues: { ':p1': `$vigil#projectid_${owner.projectId}`, ':p3': `$vigil#workspaceid_${owner.workspaceId}`, ':s': `$checkref_1#checkid_${id}` },
        }),
      );
    }
    const total = async () => expectStatus(await t.request<{ total: number }>('GET', `/checks?workspaceId=${owner.workspaceId}`, { token: owner.token }), 200).total;
    expect(await total()).toBe(2);

    expect(await tidyCheckRefs(t.deps)).toBeGreaterThanOrEqual(2);
    expect(await total()).toBe(1);
    const ref = await client.send(new GetCommand({ TableName: table, Key: { pk: `$vigil#checkid_${kept.id}`, sk: '$checkref_1' } }));
    expect(ref.Item?.checkMode).toBe('INBOUND');
    expect(await tidyCheckRefs(t.deps)).toBe(0);
  });
});
