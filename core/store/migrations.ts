import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../deps.js';
import { isConditionalFailure } from './conditional.js';

/**
 * Data written before checks left the project and workspace indexes (2026-11-21) has check items
 * in gsi1/gsi3 and refs in neither, so the lists would not find those checks. For each workspace
 * id, this queries gsi3 for such check entries, writes the ref with the check's project, and takes
 * the check out of both indexes. Idempotent; nothing to do on data written since. The local server
 * runs it at boot (AWS deployments started after the change).
 */
export async function moveCheckListsToRefs(deps: Pick<Deps, 'store'>): Promise<number> {
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
