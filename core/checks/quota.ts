import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { planLimitExceeded } from '../auth/plans.js';
import type { Deps } from '../deps.js';
import { isConditionalFailure, retryOnConflict } from '../store/conditional.js';
import { listWorkspaceChecks } from './repository.js';
import type { CheckItem } from '../store/entities/check.js';

// Not rules.ts' CheckMode: rules.ts takes the slots, so it imports this file.
type CheckMode = CheckItem['checkMode'];

/**
 * How many live checks (and outbound checks) a workspace holds, as one counter item per
 * workspace: a create takes a slot with `ADD` on the condition that the count is below the plan's
 * limit, a delete gives it back. One conditional write instead of reading every check, and exact
 * under concurrent creates (the condition is judged per write). The item is seeded from the
 * workspace's checks the first time it is needed (data written before the counter existed).
 */
export type CheckCounts = { checks: number; outbound: number };
type Slot = keyof CheckCounts;

/** Tries at taking slots: each lost one reads the counts, so a full plan ends it at once. */
const TAKE_ATTEMPTS = 6;

const key = (workspaceId: number) => ({ pk: `checkQuota#${workspaceId}`, sk: 'quota' });

export async function readCheckCounts(deps: Pick<Deps, 'store'>, workspaceId: number): Promise<CheckCounts | undefined> {
  const { store } = deps;
  const found = await store.client.send(new GetCommand({ TableName: store.table, Key: key(workspaceId), ConsistentRead: true }));
  if (!found.Item) return undefined;
  return { checks: Number(found.Item.checks ?? 0), outbound: Number(found.Item.outbound ?? 0) };
}

/** The counts, seeded first if the item does not exist yet (counting refs with `Select: COUNT` is not enough: deleted checks keep theirs). */
export async function checkCounts(deps: Deps, workspaceId: number): Promise<CheckCounts> {
  const found = await readCheckCounts(deps, workspaceId);
  if (found) return found;
  const live = await listWorkspaceChecks(deps, workspaceId);
  const counts = { checks: live.length, outbound: live.filter((check) => check.checkMode === 'OUTBOUND').length };
  try {
    await deps.store.client.send(new PutCommand({ TableName: deps.store.table, Item: { ...key(workspaceId), ...counts }, ConditionExpression: 'attribute_not_exists(pk)' }));
    return counts;
  } catch (err) {
    // Another request seeded it meanwhile: its write (and any slot taken since) wins.
    if (!isConditionalFailure(err)) throw err;
    return (await readCheckCounts(deps, workspaceId)) ?? counts;
  }
}

const slotsFor = (mode: CheckMode, includeCheck: boolean): Slot[] => [...(includeCheck ? (['checks'] as const) : []), ...(mode === 'OUTBOUND' ? (['outbound'] as const) : [])];

/**
 * Takes a slot for a new check (and an outbound slot for an outbound one), or 403s
 * PLAN_LIMIT_EXCEEDED naming the limit that is full. One write, conditional on every count taken.
 */
export async function takeCheckSlots(deps: Deps, workspaceId: number, mode: CheckMode, limits: CheckCounts, includeCheck = true): Promise<void> {
  const slots = slotsFor(mode, includeCheck);
  if (slots.length === 0) return;
  const take = () =>
    deps.store.client.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key(workspaceId),
        UpdateExpression: `ADD ${slots.map((slot) => `#${slot} :one`).join(', ')}`,
        // A missing counter fails the comparison too (an absent attribute compares false): seeded below.
        ConditionExpression: slots.map((slot) => `#${slot} < :${slot}`).join(' AND '),
        ExpressionAttributeNames: Object.fromEntries(slots.map((slot) => [`#${slot}`, slot])),
        ExpressionAttributeValues: { ':one': 1, ...Object.fromEntries(slots.map((slot) => [`:${slot}`, limits[slot]])) },
      }),
    );
  // The write first, the read only when it is refused: a create costs one request here, not two.
  await retryOnConflict(
    async () => {
      try {
        await take();
      } catch (err) {
        if (!isConditionalFailure(err)) throw err;
        const counts = (await readCheckCounts(deps, workspaceId)) ?? (await checkCounts(deps, workspaceId));
        if (slots.includes('checks') && counts.checks >= limits.checks) throw planLimitExceeded(`Your plan allows ${limits.checks} checks per workspace`);
        if (slots.includes('outbound') && counts.outbound >= limits.outbound) throw planLimitExceeded(`Your plan allows ${limits.outbound} outbound checks per workspace`);
        // Room left: the write was refused before the counter existed (seeded since), or a slot was freed meanwhile.
        throw err;
      }
    },
    { attempts: TAKE_ATTEMPTS, onExhausted: () => new Error(`check slots of workspace ${workspaceId} not taken after ${TAKE_ATTEMPTS} attempts`) },
  );
}

/** Gives back what takeCheckSlots took (a deleted check, a create that failed after taking them). */
export async function releaseCheckSlots(deps: Pick<Deps, 'store'>, workspaceId: number, mode: CheckMode, includeCheck = true): Promise<void> {
  const slots = slotsFor(mode, includeCheck);
  if (slots.length === 0) return;
  try {
    await deps.store.client.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key(workspaceId),
        UpdateExpression: `ADD ${slots.map((slot) => `#${slot} :minus`).join(', ')}`,
        // Never below zero, and never creates the item: a missing item is seeded from the checks.
        ConditionExpression: slots.map((slot) => `#${slot} > :zero`).join(' AND '),
        ExpressionAttributeNames: Object.fromEntries(slots.map((slot) => [`#${slot}`, slot])),
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    );
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}
