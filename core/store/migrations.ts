import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { checkLanes, checkRankList } from './checkLists.js';
import { isConditionalFailure } from './conditional.js';
import type { CheckRefItem } from './entities/check.js';
import { putRun, readRuns, runOf } from './listRank.js';
import { PROJECT_LANE, projectRankList } from './projectLists.js';
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
    for await (const item of workspaceIndexItems(store, workspaceId, '$check_1#')) {
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
    const refs = (await listedRefs(store, workspaceId)).filter((ref) => ref.checkMode === undefined);
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

const CHECK_LISTS_MARK = 'migration:checkLists';

/**
 * Check lists page by a zero-padded id (`listOrder`) and count by rank runs (core/store/listRank.ts),
 * both from 2026-11-24. For each workspace this re-puts its listed refs that have no `listOrder`
 * (the put derives it and rewrites their index keys), then counts its refs per run and mode and
 * sets the workspace's and each project's runs to those counts (runs nobody holds any more are
 * set to zero). Idempotent: a second run writes the same counts. Done once per table, marked by a
 * setting item; `force` runs it again. The local server runs it at boot; on AWS run
 * `npm run migrate` once after deploying (README). Returns the refs counted.
 */
export async function migrateCheckLists(deps: { store: Store; clock: { now(): Date } }, options: { force?: boolean } = {}): Promise<number> {
  const { store } = deps;
  if (!options.force && (await store.entities.setting.get({ name: CHECK_LISTS_MARK }).go({ consistent: true })).data) return 0;
  let counted = 0;
  const highest = await store.currentId('workspace');
  for (let workspaceId = 1; workspaceId <= highest; workspaceId++) {
    // run -> lane -> count, as writeCheckRef keeps them (checkLists.ts: the workspace's modes, each project's).
    const runs = new Map<number, Record<string, number>>();
    for (const ref of await listedRefs(store, workspaceId)) {
      const { checkId, token, checkMode, projectId } = ref;
      if (!checkMode) continue;
      if (ref.listOrder === undefined) {
        await store.entities.checkRef.put({ checkId, token, workspaceId: ref.workspaceId, checkMode, ...(projectId !== undefined ? { projectId } : {}) }).go();
      }
      const counts = runs.get(runOf(ref.checkId)) ?? {};
      runs.set(runOf(ref.checkId), counts);
      for (const lane of checkLanes({ checkMode, projectId })) counts[lane] = (counts[lane] ?? 0) + 1;
      counted++;
    }
    const list = checkRankList(workspaceId);
    // Every lane of every run found is set: counted, or zero when nothing holds it any more.
    for (const found of await readRuns(store, list)) {
      const counts = runs.get(found.run) ?? {};
      runs.set(found.run, { ...Object.fromEntries(Object.keys(found.counts).map((lane) => [lane, 0])), ...counts });
    }
    for (const [run, counts] of runs) await putRun(store, list, { run, counts });
  }
  await store.entities.setting.put({ name: CHECK_LISTS_MARK, value: 'done', createdAt: deps.clock.now().toISOString() }).go();
  return counted;
}

/** Every ref in a workspace's list index, whatever its sort key's format (`$checkref_1#checkid_...` before 2026-11-24, `#listorder_...` since). */
async function listedRefs(store: Store, workspaceId: number): Promise<CheckRefItem[]> {
  const refs: CheckRefItem[] = [];
  for await (const Item of workspaceIndexItems(store, workspaceId, '$checkref_1#')) {
    const ref = store.entities.checkRef.parse({ Item }).data;
    if (ref) refs.push(ref);
  }
  return refs;
}

/** Every item of a workspace's gsi3 partition whose sort key starts with `prefix`, page by page (the migrations' one query). */
async function* workspaceIndexItems(store: Store, workspaceId: number, prefix: string): AsyncGenerator<Record<string, unknown>> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.client.send(
      new QueryCommand({
        TableName: store.table,
        IndexName: 'gsi3',
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': 'gsi3pk', '#sk': 'gsi3sk' },
        ExpressionAttributeValues: { ':pk': `$vigil#workspaceid_${workspaceId}`, ':prefix': prefix },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    yield* page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

const PROJECT_LISTS_MARK = 'migration:projectLists';

/**
 * Project lists page by a zero-padded id (`listOrder`) and count by rank runs
 * (core/store/projectLists.ts), both from 2026-11-24. For each workspace this re-puts its projects
 * that have no `listOrder` (the put derives it and rewrites their index key), then sets the
 * workspace's runs to the projects counted (runs nobody holds any more are set to zero).
 * Idempotent: a second run writes the same counts. Done once per table, marked by a setting item;
 * `force` runs it again. Runs beside migrateCheckLists (local boot, `npm run migrate`). Returns
 * the projects counted.
 */
export async function migrateProjectLists(deps: { store: Store; clock: { now(): Date } }, options: { force?: boolean } = {}): Promise<number> {
  const { store } = deps;
  if (!options.force && (await store.entities.setting.get({ name: PROJECT_LISTS_MARK }).go({ consistent: true })).data) return 0;
  let counted = 0;
  const highest = await store.currentId('workspace');
  for (let workspaceId = 1; workspaceId <= highest; workspaceId++) {
    const runs = new Map<number, Record<string, number>>();
    for await (const Item of indexItems(store, 'gsi1', workspaceId, '$project_1#')) {
      const project = store.entities.project.parse({ Item }).data;
      if (!project || project.workspaceId !== workspaceId) continue;
      if (project.listOrder === undefined) {
        const { listOrder: _unset, ...rest } = project;
        await store.entities.project.put(rest).go();
      }
      const counts = runs.get(runOf(project.projectId)) ?? {};
      runs.set(runOf(project.projectId), counts);
      counts[PROJECT_LANE] = (counts[PROJECT_LANE] ?? 0) + 1;
      counted++;
    }
    const list = projectRankList(workspaceId);
    for (const found of await readRuns(store, list)) if (!runs.has(found.run)) runs.set(found.run, { [PROJECT_LANE]: 0 });
    for (const [run, counts] of runs) await putRun(store, list, { run, counts });
  }
  await store.entities.setting.put({ name: PROJECT_LISTS_MARK, value: 'done', createdAt: deps.clock.now().toISOString() }).go();
  return counted;
}

/** Every item of a workspace's partition of `index` whose sort key starts with `prefix`. */
async function* indexItems(store: Store, index: 'gsi1', workspaceId: number, prefix: string): AsyncGenerator<Record<string, unknown>> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.client.send(
      new QueryCommand({
        TableName: store.table,
        IndexName: index,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': `${index}pk`, '#sk': `${index}sk` },
        ExpressionAttributeValues: { ':pk': `$vigil#workspaceid_${workspaceId}`, ':prefix': prefix },
        ConsistentRead: false,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    yield* page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}
