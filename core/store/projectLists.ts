import { DeleteCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { getAll } from './batch.js';
import { isConditionalFailure } from './conditional.js';
import { listOrderOf } from './entities/check.js';
import type { ProjectItem } from './entities/project.js';
import { addToRank, locate, readRuns, runBounds } from './listRank.js';
import { queryProjected } from './projected.js';
import type { Store } from './service.js';

/*
 * The list of a workspace's projects, paged like the check lists (core/store/checkLists.ts): the
 * workspace index sorts by the zero-padded id (`listOrder`), and one rank list per workspace
 * (core/store/listRank.ts, lane `n`) counts its projects per run of 64 ids, moved by `ADD` in the
 * same verbs that create and delete a project.
 */

export const projectRankList = (workspaceId: number): string => `project#workspace#${workspaceId}`;
export const PROJECT_LANE = 'n';
const LANES = [PROJECT_LANE];

type NewProject = { projectId: number; workspaceId: number; name: string; description?: string | undefined; createdAt: string; updatedAt: string };

/** Creates a project (its id just handed out) and counts it; if the count fails the project is taken back out. */
export async function createProjectItem(store: Store, input: NewProject): Promise<ProjectItem> {
  const created = (await store.entities.project.create(input).go()).data;
  try {
    await addToRank(store, projectRankList(input.workspaceId), input.projectId, { [PROJECT_LANE]: 1 });
  } catch (err) {
    await store.entities.project.delete({ projectId: input.projectId }).go();
    throw err;
  }
  return created;
}

/**
 * Deletes a project and counts it out: the delete is conditional on the item existing and returns
 * it, so of two deletes racing only one counts. False when the project was already gone.
 */
export async function deleteProjectItem(store: Store, projectId: number): Promise<boolean> {
  const { Key } = store.entities.project.get({ projectId }).params<{ Key: Record<string, string> }>();
  try {
    const old = (await store.client.send(new DeleteCommand({ TableName: store.table, Key, ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }))).Attributes;
    if (typeof old?.workspaceId === 'number') await addToRank(store, projectRankList(old.workspaceId), projectId, { [PROJECT_LANE]: -1 });
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * One page of a workspace's projects in id order, and how many there are. The rank runs give
 * `total` and the run the page starts in; the index is read from that run's first id, keys only
 * (at most 63 ids before the page, plus the page), and only the page's projects are read whole.
 */
export async function pageProjectItems(store: Store, workspaceId: number, offset: number, limit: number): Promise<{ items: ProjectItem[]; total: number }> {
  const span = locate(await readRuns(store, projectRankList(workspaceId)), offset, limit, LANES);
  if (span.from === undefined || limit === 0) return { items: [], total: span.total };
  const { run, skip, lastRun } = span.from;
  const ids = (await idsBetween(store, workspaceId, runBounds(run)[0], runBounds(lastRun)[1], skip + limit)).slice(skip);
  if (ids.length === 0) return { items: [], total: span.total };
  const items = await getAll(
    store,
    ids.map((projectId) => ({ projectId })),
    (keys) => store.entities.project.get(keys).go({ consistent: true }),
    'projects',
  );
  return { items: items.filter((p) => p.workspaceId === workspaceId).sort((a, b) => a.projectId - b.projectId), total: span.total };
}

/** Up to `wanted` project ids of a workspace in [fromId, toId], in id order, read as keys only. */
async function idsBetween(store: Store, workspaceId: number, fromId: number, toId: number, wanted: number): Promise<number[]> {
  const params = store.entities.project.query
    .byWorkspace({ workspaceId })
    .between({ listOrder: listOrderOf(fromId) }, { listOrder: listOrderOf(toId) })
    .params<QueryCommandInput>();
  const rows = await queryProjected<{ projectId?: unknown }>(store, params, ['projectId'], wanted);
  return rows.flatMap((row) => (typeof row.projectId === 'number' ? [row.projectId] : []));
}
