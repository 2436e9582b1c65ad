import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { createCheck, expectStatus, inboundBody, type User } from '../../test/support/checks.js';
import { migrateCheckLists, moveCheckListsToRefs, tidyCheckRefs } from './migrations.js';

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
    await migrateCheckLists(t.deps, { force: true });
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
    // Lists count by rank runs since 2026-11-24: the counts are rebuilt after the older migrations.
    expect(await tidyCheckRefs(t.deps)).toBeGreaterThanOrEqual(2);
    await migrateCheckLists(t.deps, { force: true });
    expect(await total()).toBe(1);
    const ref = await client.send(new GetCommand({ TableName: table, Key: { pk: `$vigil#checkid_${kept.id}`, sk: '$checkref_1' } }));
    expect(ref.Item?.checkMode).toBe('INBOUND');
    expect(await tidyCheckRefs(t.deps)).toBe(0);
  });
});

describe('migrateCheckLists', () => {
  it('re-keys refs of before 2026-11-24 by listOrder and rebuilds the rank counts, idempotently', async () => {
    const owner = await t.signup('ranks');
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createCheck(t, owner, inboundBody(owner)));
    const { client, table } = t.deps.store;
    // As refs were written before: sorted by the bare id, no listOrder, no rank items.
    for (const { id } of made) {
      await client.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `$vigil#checkid_${id}`, sk: '$checkref_1' },
          UpdateExpression: 'REMOVE listOrder SET gsi1sk = :s, gsi3sk = :s',
          ExpressionAttributeValues: { ':s': `$checkref_1#checkid_${id}` },
        }),
      );
    }
    const runs = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `listRank#check#workspace#${owner.workspaceId}` } }));
    for (const item of runs.Items ?? []) await client.send(new DeleteCommand({ TableName: table, Key: { pk: item.pk, sk: item.sk } }));
    const page = async (n: number) =>
      expectStatus(await t.request<{ total: number; items: { id: number }[] }>('GET', `/checks?workspaceId=${owner.workspaceId}&page=${n}&limit=2`, { token: owner.token }), 200);
    expect((await page(1)).total).toBe(0);

    expect(await migrateCheckLists(t.deps, { force: true })).toBeGreaterThanOrEqual(5);
    const ids = made.map((c) => c.id);
    expect(await page(1)).toMatchObject({ total: 5, items: ids.slice(0, 2).map((id) => ({ id })) });
    expect((await page(3)).items.map((c) => c.id)).toEqual(ids.slice(4));
    const projectTotal = async () => expectStatus(await t.request<{ total: number }>('GET', `/checks?projectId=${owner.projectId}`, { token: owner.token }), 200).total;
    expect(await projectTotal()).toBe(5);
    const ref = await client.send(new GetCommand({ TableName: table, Key: { pk: `$vigil#checkid_${ids[0]}`, sk: '$checkref_1' } }));
    expect(ref.Item?.gsi3sk).toBe(`$checkref_1#listorder_${String(ids[0]).padStart(16, '0')}`);

    // Again (forced): the same counts, not doubled; unforced: the marker says it is done.
    await migrateCheckLists(t.deps, { force: true });
    expect((await page(1)).total).toBe(5);
    expect(await projectTotal()).toBe(5);
    expect(await migrateCheckLists(t.deps)).toBe(0);
    expect((await page(1)).total).toBe(5);
  });
});
