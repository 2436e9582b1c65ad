import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PLAN_LIMITS, planLimitExceeded } from '../../auth/plans.js';
import type { Deps } from '../../deps.js';
import { isConditionalFailure } from '../../store/conditional.js';

/**
 * How many subscribers (pending ones included: they cost a mail or a verification request and a
 * row) a status page holds, as one counter item per page: a new subscriber takes a slot with `ADD`
 * on the condition that the count is below the workspace plan's `statusPageSubscribers`, a removed
 * one gives it back. One conditional write per subscribe, exact under concurrent requests, where
 * counting the page's subscribers would read all of them. Seeded from the page's subscribers the
 * first time it is needed (pages from before the cap). Same shape as checks/dependencyQuota.ts.
 */
const key = (statusPageId: number) => ({ pk: `subscriberQuota#${statusPageId}`, sk: 'quota' });

async function seed(deps: Deps, statusPageId: number): Promise<void> {
  const found = await deps.store.client.send(new GetCommand({ TableName: deps.store.table, Key: key(statusPageId), ConsistentRead: true }));
  if (found.Item) return;
  const existing = await deps.store.entities.statusSubscriber.query.byPage({ statusPageId }).go({ pages: 'all', attributes: ['subscriberId', 'statusPageId'] });
  const count = existing.data.filter((s) => s.statusPageId === statusPageId).length;
  try {
    await deps.store.client.send(new PutCommand({ TableName: deps.store.table, Item: { ...key(statusPageId), count }, ConditionExpression: 'attribute_not_exists(pk)' }));
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

export async function subscriberLimitOf(deps: Deps, workspaceId: number): Promise<number> {
  const workspace = (await deps.store.entities.workspace.get({ workspaceId }).go()).data;
  return PLAN_LIMITS[workspace?.plan ?? deps.config.defaultPlan].statusPageSubscribers;
}

/** Takes a slot for a new subscriber of the page, or 403s PLAN_LIMIT_EXCEEDED when the page is full. */
export async function takeSubscriberSlot(deps: Deps, page: { id: number; workspaceId: number }): Promise<void> {
  const limit = await subscriberLimitOf(deps, page.workspaceId);
  const take = () =>
    deps.store.client.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key(page.id),
        UpdateExpression: 'ADD #count :one',
        // A missing counter fails the comparison too: seeded below, then tried once more.
        ConditionExpression: '#count < :limit',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit },
      }),
    );
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await take();
      return;
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
    }
    if (attempt === 0) await seed(deps, page.id);
  }
  throw planLimitExceeded(`This status page has reached its limit of ${limit} subscribers`);
}

/** Gives a slot back (a removed subscriber, a subscribe that failed after taking it); never below zero. */
export async function releaseSubscriberSlot(deps: Deps, statusPageId: number): Promise<void> {
  try {
    await deps.store.client.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key(statusPageId),
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

/** A deleted page leaves no counter behind. */
export async function dropSubscriberQuota(deps: Deps, statusPageId: number): Promise<void> {
  await deps.store.client.send(new DeleteCommand({ TableName: deps.store.table, Key: key(statusPageId) }));
}
