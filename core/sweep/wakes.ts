import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { awaitsTiming, dueShardFor } from '../checks/timing.js';
import type { Deps } from '../deps.js';
import { checkFromItem } from '../signals/pingStore.js';
import { checkKey } from '../store/checkKeys.js';
import { checkDueKeys, signalKey } from '../signals/rawItems.js';
import type { CheckItem } from '../store/entities/check.js';
import { getItems, keyOf } from '../store/batch.js';
import { isConditionalFailure } from '../store/conditional.js';

/*
 * Legacy since 2026-11-26 (docs/adr/0001-check-due-index.md): pings write no wake entries any
 * more; every ping moves the check's own due entry instead, so the sweep's reads follow the checks
 * actually due, not the pings. What follows is kept so that the wakes written before still bring
 * their checks to the sweep, and read as the record of what was done then.
 *
 * Why a steady ping's due time rode on its signal, and why that was withdrawn:
 * docs/adr/0001-check-due-index.md.
 *
 * On AWS a GSI whose sort key an update changes is billed as a delete plus a put of the entry, so
 * a check whose own due-index entry every ping moved cost four write units a ping: the check, the
 * two index writes, the signal. A steady ping (OK stays OK) now leaves the check's index keys alone
 * and writes its new due time on the signal it puts anyway, as that signal's entry in the sparse
 * `byWake` index: one put, no delete. The ping costs three units and the check sits in no index.
 *
 * The sweep then finds due checks two ways: the checks' own entries (set by every write other
 * than a steady ping: a ping that moves the check, an edit, a resume, the sweep's own LATE) and
 * the wake entries that fell due since the last sweep. A wake entry only says "look at this check
 * now"; the check item still holds the truth (`dueAt`), so an entry that a later ping superseded
 * costs a read and changes nothing.
 *
 * Nothing is lost to a crash between a ping's update and its signal: the update names the signal
 * (`wakeSignalId`), and whenever the sweep finds a check whose due time lies ahead of the entry
 * that brought it (`settleSuperseded`), it checks that the entry for that due time exists (the
 * check's own, or that signal's wake) and arms the check's own entry when it does not. Every
 * pending due time thus has an entry at or before it: the one that brought the sweep, or the
 * previous ping's.
 */

/**
 * A wake entry the sweep has passed is not read again: the sweep keeps, per shard, the instant up
 * to which it has read. An entry can become visible after a sweep passed its time only if its ping
 * was still being written then: a ping's time is taken when its request starts, and its signal is
 * written before the request ends, well within the longest ping Lambda's timeout (29 s, the API
 * function's; stacks/home.test.ts holds the two apart). So each sweep reads back this far behind
 * its mark, and takes from there only the entries whose pings were that recent.
 */
export const WAKE_MARGIN_MS = 60_000;
const markName = (shard: string): string => `sweep:wakes:${shard}`;

/** The checks whose wake entries fell due in this sweep, and how to record that they were looked at. */
export type DueWakes = { checkIds: number[]; commit(): Promise<void> };

/** The wake entries of `shard` due at `now` and not yet seen by an earlier sweep. */
export async function dueWakes(deps: Deps, shard: string, now: Date): Promise<DueWakes> {
  const { setting, signal } = deps.store.entities;
  const nowIso = now.toISOString();
  const mark = (await setting.get({ name: markName(shard) }).go({ consistent: true })).data?.value;
  const query = signal.query.byWake({ wakeShard: shard });
  const from = mark === undefined ? undefined : new Date(Date.parse(mark) - WAKE_MARGIN_MS).toISOString();
  // A sweep whose clock ran ahead already read this far: nothing here is new (and a key range
  // may not end before it starts).
  if (from !== undefined && from > nowIso) return { checkIds: [], commit: async () => undefined };
  // Up to and including now. The bound is the next millisecond because wake entries written for a
  // while ended their sort key in the signal's id after the instant (a work-around for the
  // embedded store's index key collisions, since fixed in the store: patches/dynalite+4.0.0.patch);
  // an entry at that very next millisecond is read early by that much, and again by the next sweep.
  const justAfter = new Date(now.getTime() + 1).toISOString();
  const entries = (
    await (from === undefined ? query.lt({ wakeAt: justAfter }) : query.between({ wakeAt: from }, { wakeAt: justAfter })).go({
      pages: 'all',
      attributes: ['checkId', 'wakeAt', 'receivedAt'],
    })
  ).data;
  // Behind the mark, only entries whose pings may still have been in flight when it was set.
  const fresh = mark === undefined || from === undefined ? entries : entries.filter((entry) => (entry.wakeAt ?? '') > mark || entry.receivedAt > from);
  return {
    checkIds: [...new Set(fresh.map((entry) => entry.checkId))],
    async commit() {
      if (mark !== undefined && mark >= nowIso) return;
      await setting.put({ name: markName(shard), value: nowIso, createdAt: nowIso }).go();
    },
  };
}

/**
 * A check as the table holds it, and where its own due-index entry is: none, at its due time, or
 * elsewhere (a stale entry a steady ping left behind).
 */
export type IndexedCheck = { check: CheckItem; own: 'none' | 'at-due' | 'elsewhere' };

const ownEntryOf = (item: Record<string, unknown>, check: CheckItem): IndexedCheck['own'] => {
  if (typeof item.gsi2sk !== 'string') return 'none';
  const atDue = check.dueAt !== undefined && item.gsi2sk === checkDueKeys(check.dueShard ?? dueShardFor(check.checkId), check.dueAt).gsi2sk;
  return atDue ? 'at-due' : 'elsewhere';
};

/** Checks by id, read as stored (ref, then check, each a batch): missing or deleted ones are left out. */
export async function readChecksById(deps: Deps, checkIds: readonly number[]): Promise<IndexedCheck[]> {
  if (checkIds.length === 0) return [];
  const refs = await getItems(
    deps.store,
    checkIds.map((checkId) => keyOf(deps.store.entities.checkRef.get({ checkId }))),
  );
  const tokens = refs.flatMap((ref) => (typeof ref?.token === 'string' ? [ref.token] : []));
  const items = await getItems(
    deps.store,
    tokens.map((token) => checkKey(token)),
  );
  return items.flatMap((item) => {
    const check = item ? checkFromItem(item) : undefined;
    if (!item || !check || check.deletedAt !== undefined) return [];
    return [{ check, own: ownEntryOf(item, check) }];
  });
}

/** A check whose due time is still ahead: the entry that brought the sweep here was superseded. */
export const isSuperseded = (check: CheckItem, now: Date): boolean => awaitsTiming(check) && check.dueAt !== undefined && check.dueAt > now.toISOString();

export type SettleReport = { dropped: number; armed: number };

/**
 * Checks whose due time lies ahead of the entry that brought the sweep: each must keep an entry
 * at that due time. Held by its own entry: nothing to do. Held by the wake of the ping that set
 * it (read back by `wakeSignalId`): an own entry left behind is removed, so it is not read again.
 * Held by neither (the ping's signal never landed): the check's own entry is armed at its due time.
 * Each write is conditional on the due time read, so a ping meanwhile wins.
 */
export async function settleSuperseded(deps: Deps, checks: readonly IndexedCheck[]): Promise<SettleReport> {
  const report: SettleReport = { dropped: 0, armed: 0 };
  const open = checks.filter(({ check, own }) => own !== 'at-due' && check.dueAt !== undefined);
  const wakeKey = (check: CheckItem) => (check.wakeSignalId && check.lastPingAt ? signalKey(check.checkId, check.lastPingAt, check.wakeSignalId) : undefined);
  const keys = open.flatMap(({ check }) => wakeKey(check) ?? []);
  const found = await getItems(deps.store, keys);
  const wakes = new Map(keys.map((key, i) => [`${key.pk}/${key.sk}`, found[i]]));
  for (const { check, own } of open) {
    const key = wakeKey(check);
    const held = key !== undefined && wakes.get(`${key.pk}/${key.sk}`)?.wakeAt === check.dueAt;
    if (held && own === 'none') continue;
    if (await indexUpdate(deps, check, held ? 'drop' : 'arm')) report[held ? 'dropped' : 'armed']++;
  }
  return report;
}

/** Arms the check's own due-index entry at its due time, or removes it; false if the check moved meanwhile. */
async function indexUpdate(deps: Deps, check: CheckItem, action: 'arm' | 'drop'): Promise<boolean> {
  const dueAt = check.dueAt;
  if (dueAt === undefined) return false;
  const keys = checkDueKeys(check.dueShard ?? dueShardFor(check.checkId), dueAt);
  try {
    await deps.store.hot.send(
      new UpdateItemCommand({
        TableName: deps.store.table,
        Key: marshall(checkKey(check.token)),
        UpdateExpression: action === 'arm' ? 'SET #gpk = :gpk, #gsk = :gsk' : 'REMOVE #gpk, #gsk',
        ConditionExpression: '#dueAt = :dueAt AND attribute_not_exists(#deletedAt)',
        ExpressionAttributeNames: { '#gpk': 'gsi2pk', '#gsk': 'gsi2sk', '#dueAt': 'dueAt', '#deletedAt': 'deletedAt' },
        ExpressionAttributeValues: marshall(action === 'arm' ? { ':gpk': keys.gsi2pk, ':gsk': keys.gsi2sk, ':dueAt': dueAt } : { ':dueAt': dueAt }),
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}
