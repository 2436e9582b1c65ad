import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalFailure } from './conditional.js';
import type { Store } from './service.js';

/**
 * Data written before checks left the project and workspace indexes (2026-11-21) has check items
 * in gsi1/gsi3 and refs in neither, so the lists would not find those checks. For each workspace
 * id, this queries gsi3 for such check entries, writes the ref with the check's project, and takes
 * the check out of both indexes. Idempotent; nothing to do on data written since. The local server
 * runs it at boot (AWS deployments started after the change).
 */
export async function moveCheckListsToRefs(deps: { store: Store }): Promise<number> {
  const { store } = deps;
  let moved = 0;
  const highest = await store.currentId('workspace');
  for (let workspaceId = 1; workspaceId <= highest; workspaceId++) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await store.client.send(
        new QueryCommand({
          TableName: store.table,
          IndexName: 'gsi3',
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :check)',
          ExpressionAttributeNames: { '#pk': 'gsi3pk', '#sk': 'gsi3sk' },
          ExpressionAttributeValues: { ':pk': `$vigil#workspaceid_${workspaceId}`, ':check': '$check_1#' },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        const check = store.entities.check.parse({ Item: item }).data;
        if (!check) continue;
        const { checkId, token, projectId } = check;
        await store.entities.checkRef.put({ checkId, token, workspaceId: check.workspaceId, ...(projectId !== undefined ? { projectId } : {}) }).go();
        await store.client.send(
          new UpdateCommand({
            TableName: store.table,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'REMOVE gsi1pk, gsi1sk, gsi3pk, gsi3sk',
            ConditionExpression: 'attribute_exists(pk)',
          }),
        ).catch((err: unknown) => {
          // Deleted meanwhile: nothing left to take out of the indexes.
          if (!isConditionalFailure(err)) throw err;
        });
        moved++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return moved;
}

/**
 * Refs written before 2026-11-23 carry no `checkMode`, and a deleted check's ref stayed in the
 * list indexes; check lists page from the refs alone (core/store/checkLists.ts pageChecks), so
 * this gives every live ref its mode and takes deleted checks' refs out of the indexes.
 * Idempotent; the local server runs it at boot.
 */
export async function tidyCheckRefs(deps: { store: Store }): Promise<number> {
  const { store } = deps;
  let tidied = 0;
  const highest = await store.currentId('workspace');
  for (let workspaceId = 1; workspaceId <= highest; workspaceId++) {
    const refs = (await store.entities.checkRef.query.byWorkspace({ workspaceId }).go({ pages: 'all' })).data.filter((ref) => ref.checkMode === undefined);
    for (let i = 0; i < refs.length; i += 100) {
      const slice = refs.slice(i, i + 100);
      const checks = (await store.entities.check.get(slice.map((ref) => ({ token: ref.token }))).go()).data;
      const byToken = new Map(checks.map((check) => [check.token, check]));
      for (const ref of slice) {
        const check = byToken.get(ref.token);
        if (check === undefined || check.deletedAt !== undefined) {
          const { Key } = store.entities.checkRef.get({ checkId: ref.checkId }).params<{ Key: Record<string, string> }>();
          await store.client.send(new UpdateCommand({ TableName: store.table, Key, UpdateExpression: 'REMOVE gsi1pk, gsi1sk, gsi3pk, gsi3sk' }));
        } else {
          await store.entities.checkRef.patch({ checkId: ref.checkId }).set({ checkMode: check.checkMode }).go();
        }
        tidied++;
      }
    }
  }
  return tidied;
}
