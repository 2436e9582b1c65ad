import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PLAN_LIMITS, planLimitExceeded } from '../auth/plans.js';
import type { Deps } from '../deps.js';
import { isConditionalFailure } from '../store/conditional.js';

/**
 * How many dependencies a workspace holds, as one counter item: a new dependency (manual or
 * reported by a ping payload) takes a slot with `ADD` on the condition that the count is below
 * the plan's limit, a delete gives it back. Exact under concurrent reports, one write each. The
 * item is seeded from the workspace's dependencies the first time it is needed. It lives beside
 * the dependency registry (reports take slots) in checks, below the dependencies resource.
 */
const key = (workspaceId: number) => ({ pk: `dependencyQuota#${workspaceId}`, sk: 'quota' });

async function readCount(deps: Deps, workspaceId: number): Promise<number | undefined> {
  const found = await deps.store.client.send(new GetCommand({ TableName: deps.store.table, Key: key(workspaceId), ConsistentRead: true }));
  return found.Item ? Number(found.Item.count ?? 0) : undefined;
}

async function seed(deps: Deps, workspaceId: number): Promise<void> {
  if ((await readCount(deps, workspaceId)) !== undefined) return;
  const existing = await deps.store.entities.dependency.query.byWorkspace({ workspaceId }).go({ pages: 'all', attributes: ['dependencyId'] });
  try {
    await deps.store.client.send(
      new PutCommand({ TableName: deps.store.table, Item: { ...key(workspaceId), count: existing.data.length }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

export async function dependencyLimitOf(deps: Deps, workspaceId: number): Promise<number> {
  const workspace = (await deps.store.entities.workspace.get({ workspaceId }).go()).data;
  return PLAN_LIMITS[workspace?.plan ?? deps.config.defaultPlan].dependencies;
}

/** Takes a slot for a new dependency; false when the workspace is at its plan's limit. */
export async function tryTakeDependencySlot(deps: Deps, workspaceId: number): Promise<boolean> {
  const limit = await dependencyLimitOf(deps, workspaceId);
  await seed(deps, workspaceId);
  try {
    await deps.store.client.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key(workspaceId),
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: '#count < :limit',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit },
      }),
    );
    return true;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return false;
  }
}

/** Takes a slot or 403s PLAN_LIMIT_EXCEEDED (a dependency created by hand). */
export async function takeDependencySlot(deps: Deps, workspaceId: number): Promise<void> {
  if (!(await tryTakeDependencySlot(deps, workspaceId))) {
    throw planLimitExceeded(`Your plan allows ${await dependencyLimitOf(deps, workspaceId)} dependencies per workspace`);
  }
}

/** Gives a slot back (a deleted dependency, a create that failed after taking it); never below zero. */
export async function releaseDependencySlot(deps: Deps, workspaceId: number): Promise<void> {
  try {
    await deps.store.client.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key(workspaceId),
        UpdateExpression: 'ADD #count :minus',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    );
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}
