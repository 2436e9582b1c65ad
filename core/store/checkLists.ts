import { PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { getAll } from './batch.js';
import { isConditionalFailure } from './conditional.js';
import { listOrderOf, type CheckItem, type CheckRefItem } from './entities/check.js';
import { addToRank, locate, readRuns, runBounds, runOf } from './listRank.js';
import type { Store } from './service.js';

/*
 * The lists of a workspace's or a project's checks (ACCESS_PATTERNS.md: "checks of a project",
 * "checks of a workspace"). They live in the store because areas below checks ask them too
 * (identity refuses to delete a project that still has checks).
 */

/** Every live check of a workspace, in id order. */
export async function listWorkspaceChecks(deps: { store: Store }, workspaceId: number): Promise<CheckItem[]> {
  const refs = await deps.store.entities.checkRef.query.byWorkspace({ workspaceId }).go({ pages: 'all' });
  return (await checksOf(deps.store, refs.data)).filter((check) => check.workspaceId === workspaceId);
}

/** Every live check of a project, in id order. */
export async function listProjectChecks(deps: { store: Store }, projectId: number): Promise<CheckItem[]> {
  const refs = await deps.store.entities.checkRef.query.byProject({ projectId }).go({ pages: 'all' });
  // The check's own projectId decides: a ref is rewritten just after a move.
  return (await checksOf(deps.store, refs.data)).filter((check) => check.projectId === projectId);
}

/** A workspace's checks, or one project's (of that workspace). */
export type CheckListScope = { workspaceId: number; projectId?: number | undefined };
type Mode = CheckItem['checkMode'];
const MODES: readonly Mode[] = ['INBOUND', 'OUTBOUND'];

/**
 * The rank list (core/store/listRank.ts) of a workspace's checks. Its lanes count the workspace's
 * checks per mode (`INBOUND`, `OUTBOUND`) and each project's (`p<projectId>_<mode>`), so that one
 * `ADD` on one run item counts a new check everywhere it is listed.
 */
export const checkRankList = (workspaceId: number): string => `check#workspace#${workspaceId}`;
const laneOf = (projectId: number | undefined, mode: string): string => (projectId === undefined ? mode : `p${projectId}_${mode}`);
const lanesOf = (scope: CheckListScope, mode: Mode | undefined): string[] => (mode === undefined ? MODES : [mode]).map((m) => laneOf(scope.projectId, m));

/**
 * One page of a workspace's or project's live checks in id order, optionally of one mode, and how
 * many there are. The rank runs (one small item per 64 ids) give `total` and the run the page
 * starts in; the index (sorted by the zero-padded id) is then read from that run's first id, at
 * most 63 refs before the page plus the page, and only the page's checks are read whole. A mode's
 * page reads the refs of the runs its items sit in (the other mode's refs there are filtered out).
 */
export async function pageChecks(
  deps: { store: Store },
  scope: CheckListScope,
  query: { mode?: Mode | undefined; page: number; limit: number },
): Promise<{ items: CheckItem[]; total: number }> {
  const { store } = deps;
  const offset = (query.page - 1) * query.limit;
  const span = locate(await readRuns(store, checkRankList(scope.workspaceId)), offset, query.limit, lanesOf(scope, query.mode));
  if (span.from === undefined || query.limit === 0) return { items: [], total: span.total };
  const { run, skip, lastRun } = span.from;
  const refs = await refsBetween(store, scope, runBounds(run)[0], runBounds(lastRun)[1], query.mode, skip + query.limit);
  const items = (await checksOf(store, refs.slice(skip))).filter(
    (check) =>
      check.workspaceId === scope.workspaceId &&
      (scope.projectId === undefined || check.projectId === scope.projectId) &&
      (query.mode === undefined || check.checkMode === query.mode),
  );
  return { items, total: span.total };
}

type RefKey = { checkId: number; token: string; checkMode?: Mode };

/** The highest id the list indexes order (ids stay below 10^16). */
const LAST_ID = 10 ** 16 - 1;

export type CheckWalk = {
  /** Matching checks, in id order, at most `wanted`. */
  items: CheckItem[];
  /** The id the walk stopped after (the next walk starts after it); undefined at the end of the list. */
  stoppedAfter: number | undefined;
  /** How many refs the walk read. */
  read: number;
};

/**
 * A filtered page of a scope's checks without an index on what is filtered (a check's status moves
 * with its pings; its name and type sit on the check item, which is in no list index: see
 * ACCESS_PATTERNS.md): the refs after `afterId` are read in id order in growing chunks (DynamoDB's
 * Limit counts items read, not items matching, so the walk is bounded by the refs it reads, not by
 * what it finds), each chunk's checks read whole (BatchGetItem) and matched. It stops at `wanted`
 * matches or after `budget` refs, and says where it stopped, so a caller pages on by that id: no
 * match is skipped or listed twice, however the filter and the pages fall.
 */
export async function walkChecks(
  deps: { store: Store },
  scope: CheckListScope,
  query: { afterId: number; mode?: Mode | undefined; wanted: number; budget: number; matches: (check: CheckItem) => boolean },
): Promise<CheckWalk> {
  const { store } = deps;
  const items: CheckItem[] = [];
  let position = query.afterId;
  let read = 0;
  let chunk = Math.min(query.budget, Math.max(100, 2 * query.wanted));
  while (read < query.budget) {
    const { refs, more } = await refsAfter(store, scope, position, Math.min(chunk, query.budget - read));
    read += refs.length;
    const last = refs[refs.length - 1];
    const wanted = refs.filter((ref) => query.mode === undefined || ref.checkMode === query.mode);
    const checks = (await checksOf(store, wanted)).filter(
      (check) =>
        check.workspaceId === scope.workspaceId &&
        (scope.projectId === undefined || check.projectId === scope.projectId) &&
        (query.mode === undefined || check.checkMode === query.mode) &&
        query.matches(check),
    );
    for (const [i, check] of checks.entries()) {
      items.push(check);
      // The chunk's last match with nothing after it in the index is the end: no empty page follows.
      if (items.length === query.wanted) return { items, stoppedAfter: !more && i === checks.length - 1 ? undefined : check.checkId, read };
    }
    if (!more || last === undefined) return { items, stoppedAfter: undefined, read };
    position = last.checkId;
    chunk *= 2;
  }
  return { items, stoppedAfter: position, read };
}

/** Up to `limit` listed refs of a scope with ids above `afterId`, in id order, keys only; `more` if the index may hold others. */
async function refsAfter(store: Store, scope: CheckListScope, afterId: number, limit: number): Promise<{ refs: RefKey[]; more: boolean }> {
  if (afterId >= LAST_ID) return { refs: [], more: false };
  const { checkRef } = store.entities;
  const index = scope.projectId !== undefined ? checkRef.query.byProject({ projectId: scope.projectId }) : checkRef.query.byWorkspace({ workspaceId: scope.workspaceId });
  const params = index.between({ listOrder: listOrderOf(afterId + 1) }, { listOrder: listOrderOf(LAST_ID) }).params<QueryCommandInput>();
  const refs: RefKey[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const page = await store.client.send(
      new QueryCommand({
        TableName: params.TableName,
        IndexName: params.IndexName,
        KeyConditionExpression: params.KeyConditionExpression,
        ExpressionAttributeNames: { ...params.ExpressionAttributeNames, '#id': 'checkId', '#token': 'token', '#mode': 'checkMode' },
        ExpressionAttributeValues: params.ExpressionAttributeValues,
        ProjectionExpression: '#id, #token, #mode',
        Limit: limit - refs.length,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) refs.push(item as RefKey);
    start = page.LastEvaluatedKey;
  } while (start && refs.length < limit);
  return { refs, more: start !== undefined };
}

/** Up to `wanted` listed refs of a scope with ids in [fromId, toId], in id order, keys only. */
async function refsBetween(store: Store, scope: CheckListScope, fromId: number, toId: number, mode: Mode | undefined, wanted: number): Promise<RefKey[]> {
  const { checkRef } = store.entities;
  const index = scope.projectId !== undefined ? checkRef.query.byProject({ projectId: scope.projectId }) : checkRef.query.byWorkspace({ workspaceId: scope.workspaceId });
  const params = index.between({ listOrder: listOrderOf(fromId) }, { listOrder: listOrderOf(toId) }).params<QueryCommandInput>();
  const refs: RefKey[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const page = await store.client.send(
      new QueryCommand({
        TableName: params.TableName,
        IndexName: params.IndexName,
        KeyConditionExpression: params.KeyConditionExpression,
        ExpressionAttributeNames: { ...params.ExpressionAttributeNames, '#id': 'checkId', '#token': 'token', '#mode': 'checkMode' },
        ExpressionAttributeValues: { ...params.ExpressionAttributeValues, ...(mode !== undefined ? { ':mode': mode } : {}) },
        ProjectionExpression: '#id, #token, #mode',
        // Without a mode every item read is wanted, so read no more than that.
        ...(mode !== undefined ? { FilterExpression: '#mode = :mode' } : { Limit: wanted - refs.length }),
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) refs.push(item as RefKey);
    start = page.LastEvaluatedKey;
  } while (start && refs.length < wanted);
  return refs.slice(0, wanted);
}

/** Where a ref is counted: its workspace's rank list, and the lanes of its mode (the workspace's, its project's). */
type Membership = { workspaceId: number; lanes: string[] };
function memberships(ref: Record<string, unknown> | undefined): Membership | undefined {
  if (!ref || typeof ref.checkMode !== 'string' || typeof ref.workspaceId !== 'number' || ref.gsi3pk === undefined) return undefined;
  const projectId = ref.gsi1pk !== undefined && typeof ref.projectId === 'number' ? ref.projectId : undefined;
  return { workspaceId: ref.workspaceId, lanes: checkLanes({ checkMode: ref.checkMode, projectId }) };
}

/** The lanes a listed ref with this mode and project is counted in. */
export const checkLanes = (ref: { checkMode: string; projectId?: number | undefined }): string[] => [
  laneOf(undefined, ref.checkMode),
  ...(ref.projectId === undefined ? [] : [laneOf(ref.projectId, ref.checkMode)]),
];

/** The lanes to move when a ref goes from `before` to `after` (-1 for each lane it leaves, +1 for each it joins). */
function deltasOf(before: Membership | undefined, after: Membership | undefined): Record<string, number> {
  const deltas: Record<string, number> = {};
  for (const lane of before?.lanes ?? []) deltas[lane] = (deltas[lane] ?? 0) - 1;
  for (const lane of after?.lanes ?? []) deltas[lane] = (deltas[lane] ?? 0) + 1;
  return Object.fromEntries(Object.entries(deltas).filter(([, n]) => n !== 0));
}

/** One `ADD` on the run item of the check (a ref never changes workspace, so every lane it moves is on that item). */
async function moveRanks(store: Store, checkId: number, before: Membership | undefined, after: Membership | undefined): Promise<void> {
  const workspaceId = after?.workspaceId ?? before?.workspaceId;
  const deltas = deltasOf(before, after);
  if (workspaceId === undefined || Object.keys(deltas).length === 0) return;
  await addToRank(store, checkRankList(workspaceId), checkId, deltas);
}

export type CheckRefInput = { checkId: number; token: string; workspaceId: number; projectId?: number | undefined; checkMode: Mode };

/**
 * Writes a check's ref (create, move, mode change, new token) and moves the rank counts by what
 * the write changed: the put returns the ref it replaced, so the counts follow the ref exactly,
 * whatever else writes it at the same time.
 */
export async function writeCheckRef(store: Store, ref: CheckRefInput): Promise<void> {
  const params = refPut(store, ref);
  const old = (await store.client.send(new PutCommand({ ...params, ReturnValues: 'ALL_OLD' }))).Attributes;
  await moveRanks(store, ref.checkId, memberships(old), memberships(params.Item));
}

const refPut = (store: Store, ref: CheckRefInput) => {
  const { projectId, ...rest } = ref;
  return store.entities.checkRef.put({ ...rest, ...(projectId !== undefined ? { projectId } : {}) }).params<{ TableName: string; Item: Record<string, unknown> }>();
};

/**
 * The ref of a check id just handed out (nothing can have written it before): the put, on the
 * condition that no ref exists, and the rank counts in parallel. If any of them fails, what
 * succeeded is undone (counts given back, the ref taken out of the lists) and the error thrown.
 */
export async function createCheckRef(store: Store, ref: CheckRefInput): Promise<void> {
  const params = refPut(store, ref);
  const listed = memberships(params.Item);
  const [put, counted] = await Promise.allSettled([
    store.client.send(new PutCommand({ ...params, ConditionExpression: 'attribute_not_exists(pk)' })),
    moveRanks(store, ref.checkId, undefined, listed),
  ]);
  if (put.status === 'fulfilled' && counted.status === 'fulfilled') return;
  if (counted.status === 'fulfilled') await moveRanks(store, ref.checkId, listed, undefined);
  if (put.status === 'fulfilled') await removeFromIndexes(store, ref.checkId);
  throw put.status === 'rejected' ? put.reason : (counted as PromiseRejectedResult).reason;
}

const removeFromIndexes = (store: Store, checkId: number) => {
  const { Key } = store.entities.checkRef.get({ checkId }).params<{ Key: Record<string, string> }>();
  return store.client.send(
    new UpdateCommand({
      TableName: store.table,
      Key,
      UpdateExpression: 'REMOVE gsi1pk, gsi1sk, gsi3pk, gsi3sk',
      ConditionExpression: 'attribute_exists(pk)',
      ReturnValues: 'ALL_OLD',
    }),
  );
};

/** Takes a deleted check's ref out of the list indexes and counts (it still maps id -> token for readers of deleted checks). */
export async function unlistCheckRef(store: Store, checkId: number): Promise<void> {
  try {
    const old = await removeFromIndexes(store, checkId);
    await moveRanks(store, checkId, memberships(old.Attributes), undefined);
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** The live checks the refs point to, in id order (one BatchGetItem per 100). */
async function checksOf(store: Store, refs: readonly Pick<CheckRefItem, 'token'>[]): Promise<CheckItem[]> {
  const found = await getAll(
    store,
    refs.map((ref) => ({ token: ref.token })),
    (keys) => store.entities.check.get(keys).go({ consistent: true }),
    'checks',
  );
  return found.filter((check) => check.deletedAt === undefined).sort((a, b) => a.checkId - b.checkId);
}

/** The live checks of these ids, in id order (missing and deleted ones left out): two BatchGetItems per 100. No authorisation. */
export async function checksByIds(deps: { store: Store }, ids: readonly number[]): Promise<CheckItem[]> {
  const refs = await getAll(
    deps.store,
    [...new Set(ids)].map((checkId) => ({ checkId })),
    (keys) => deps.store.entities.checkRef.get(keys).go({ consistent: true }),
    'check refs',
  );
  return checksOf(deps.store, refs);
}

/** Counts refs written in bulk outside writeCheckRef (seeds of tests and the bench): one `ADD` per run. */
export async function countBulkRefs(store: Store, refs: readonly CheckRefInput[]): Promise<void> {
  const runs = new Map<string, { workspaceId: number; checkId: number; deltas: Record<string, number> }>();
  for (const ref of refs) {
    const key = `${ref.workspaceId} ${runOf(ref.checkId)}`;
    const found = runs.get(key) ?? { workspaceId: ref.workspaceId, checkId: ref.checkId, deltas: {} };
    runs.set(key, found);
    for (const [lane, n] of Object.entries(deltasOf(undefined, memberships({ ...ref, gsi3pk: 'listed', gsi1pk: 'listed' })))) found.deltas[lane] = (found.deltas[lane] ?? 0) + n;
  }
  for (const run of runs.values()) await addToRank(store, checkRankList(run.workspaceId), run.checkId, run.deltas);
}
