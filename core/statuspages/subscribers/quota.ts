import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { planLimitExceeded } from '../../auth/plans.js';
import { planLimitsOf } from '../../checks/rules.js';
import type { Deps } from '../../deps.js';
import { quotaKey, releaseQuotaSlot, seedQuota, takeQuotaSlot } from '../../store/quotaCounter.js';

/**
 * How many subscribers (pending ones included: they cost a mail or a verification request and a
 * row) a status page holds, as one counter item per page: a new subscriber takes a slot with `ADD`
 * on the condition that the count is below the workspace plan's `statusPageSubscribers`, a removed
 * one gives it back. One conditional write per subscribe, exact under concurrent requests, where
 * counting the page's subscribers would read all of them. Seeded from the page's subscribers the
 * first time it is needed (pages from before the cap). The counter is core/store/quotaCounter.ts, as checks/dependencyQuota.ts uses it.
 */
const key = (statusPageId: number) => quotaKey('subscriberQuota', statusPageId);

/** Takes a slot for a new subscriber of the page, or 403s PLAN_LIMIT_EXCEEDED when the page is full. */
export async function takeSubscriberSlot(deps: Deps, page: { id: number; workspaceId: number }): Promise<void> {
  const limit = (await planLimitsOf(deps, page.workspaceId)).statusPageSubscribers;
  if (await takeQuotaSlot(deps.store, key(page.id), limit)) return;
  // A missing counter fails the take too: seed it from the page's subscribers, then try once more.
  await seedQuota(deps.store, key(page.id), async () => {
    const existing = await deps.store.entities.statusSubscriber.query.byPage({ statusPageId: page.id }).go({ pages: 'all', attributes: ['subscriberId', 'statusPageId'] });
    return existing.data.filter((s) => s.statusPageId === page.id).length;
  });
  if (await takeQuotaSlot(deps.store, key(page.id), limit)) return;
  throw planLimitExceeded(`This status page has reached its limit of ${limit} subscribers`);
}

/** Gives a slot back (a removed subscriber, a subscribe that failed after taking it); never below zero. */
export async function releaseSubscriberSlot(deps: Deps, statusPageId: number): Promise<void> {
  await releaseQuotaSlot(deps.store, key(statusPageId));
}

/** A deleted page leaves no counter behind. */
export async function dropSubscriberQuota(deps: Deps, statusPageId: number): Promise<void> {
  await deps.store.client.send(new DeleteCommand({ TableName: deps.store.table, Key: key(statusPageId) }));
}
