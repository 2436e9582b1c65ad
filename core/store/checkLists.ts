import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { CheckItem, CheckRefItem } from './entities/check.js';
import { queryProjected } from './projected.js';
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

export type CheckListScope = { workspaceId: number; projectId?: undefined } | { projectId: number; workspaceId?: undefined };

/**
 * One page of a workspace's or project's live checks in id order, optionally of one mode, and how
 * many there are. Only the refs' keys are read (the index's sort key is the id as text, so ids
 * are ordered here; refs are a few dozen bytes), and only the page's checks are read whole:
 * listing 10 of 10,000 checks reads 10. A deleted check's ref leaves the indexes (unlistCheckRef).
 */
export async function pageChecks(
  deps: { store: Store },
  scope: CheckListScope,
  query: { mode?: CheckItem['checkMode'] | undefined; page: number; limit: number },
): Promise<{ items: CheckItem[]; total: number }> {
  const { checkRef } = deps.store.entities;
  const index = scope.projectId !== undefined ? checkRef.query.byProject({ projectId: scope.projectId }) : checkRef.query.byWorkspace({ workspaceId: scope.workspaceId });
  const refs = (await queryProjected<RefKey>(deps.store, index.params<QueryCommandInput>(), ['checkId', 'token', 'checkMode']))
    // Refs written before they carried the mode are kept here and judged by their check below.
    .filter((ref) => query.mode === undefined || ref.checkMode === undefined || ref.checkMode === query.mode)
    .sort((a, b) => a.checkId - b.checkId);
  const wanted = refs.slice((query.page - 1) * query.limit, query.page * query.limit);
  const items = (await checksOf(deps.store, wanted)).filter(
    (check) =>
      (scope.projectId === undefined ? check.workspaceId === scope.workspaceId : check.projectId === scope.projectId) &&
      (query.mode === undefined || check.checkMode === query.mode),
  );
  return { items, total: refs.length };
}

type RefKey = { checkId: number; token: string; checkMode?: CheckItem['checkMode'] };

const READ_ATTEMPTS = 5;

/** The live checks the refs point to, in id order (one BatchGetItem per 100). */
async function checksOf(store: Store, refs: readonly Pick<CheckRefItem, 'token'>[]): Promise<CheckItem[]> {
  let keys = refs.map((ref) => ({ token: ref.token }));
  const found: CheckItem[] = [];
  // Not a race: BatchGetItem may leave keys unprocessed under throttling, so ask for those again.
  for (let attempt = 0; keys.length > 0; attempt++) {
    if (attempt >= READ_ATTEMPTS) throw new Error(`${keys.length} checks left unread by the store`);
    const { data, unprocessed } = await store.entities.check.get(keys).go({ consistent: true });
    found.push(...data);
    keys = unprocessed;
  }
  return found.filter((check) => check.deletedAt === undefined).sort((a, b) => a.checkId - b.checkId);
}
