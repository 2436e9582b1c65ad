import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { statusChangeOwed } from '../checks/events.js';
import { missedRunTransition, RUN_DUE_SHARDS, runAllowanceMs, runAttribute } from '../checks/runs.js';
import type { Deps } from '../deps.js';
import { handOffAfterWrite, outboxFields } from '../outbox/index.js';
import { readCheckWithRuns } from '../signals/pingStore.js';
import { checkKey } from '../store/checkKeys.js';
import { checkUpdateInput, lowLevelUpdate, runDueKeys, signalKey } from '../signals/rawItems.js';
import { putSignal, signalItem } from '../signals/record.js';
import { broadcast, checkEvent, signalEvent, type StreamEvent } from '../signals/streamEvents.js';
import type { CheckItem } from '../store/entities/check.js';
import type { SignalItem } from '../store/entities/signal.js';
import type { OutboxEntry } from '../store/outbox.js';
import { isConditionalFailure } from '../store/conditional.js';
import { getItems, keyOf } from '../store/batch.js';
import { windowEffects } from '../windows/holds.js';

export type MissedRunReport = { read: number; missed: number; ended: number; rearmed: number; held: number; conflicts: number };

const PAGE_SIZE = 100;
const CONCURRENCY = 16;

/**
 * Missed runs (core/checks/runs.ts): a `/start?rid=` whose end has not arrived within its
 * allowance. Each run's START signal carries its due time in the sparse `byRunDue` index, so this
 * step reads only the runs that fell due, never every check or signal. For each it reads the job
 * (consistently: the open runs are attributes of the check item) and then:
 * - the run is closed (its end came, or a newer start of the same id replaced it): the entry goes;
 * - the run is open but its allowance grew since it started: the entry moves to the new bound;
 * - a deployment window, or a maintenance window suppressing incidents, covers the job's project:
 *   the entry stays and the next sweep looks again (as a missed heartbeat is held);
 * - otherwise the run is missed: one conditional write removes it and makes the `/fail`
 *   transition with the message it owes (DOWN, the incident and its alerts through the outbox),
 *   then a FAIL signal (reason MISSED_RUN) is recorded and the entry goes.
 * The write holds only while the check still holds this run's start and the status read, so an
 * end arriving at the same moment and this sweep never both count: whichever writes first wins,
 * and the other finds the run gone. The entry is removed last: a crash before leaves it for the
 * next sweep, which then finds the run gone (the owed messages are already in the outbox).
 */
export async function sweepMissedRuns(deps: Deps, now: Date): Promise<MissedRunReport> {
  const report: MissedRunReport = { read: 0, missed: 0, ended: 0, rearmed: 0, held: 0, conflicts: 0 };
  const holds = new Map<string, Promise<boolean>>();
  const isHeld = (check: CheckItem): Promise<boolean> => {
    const key = `${check.workspaceId}:${check.projectId ?? '-'}`;
    let held = holds.get(key);
    if (!held) {
      held = windowEffects(deps, { workspaceId: check.workspaceId, projectId: check.projectId ?? null }, now).then(
        (effects) => effects.deploymentActive || effects.suppressIncidents,
      );
      holds.set(key, held);
    }
    return held;
  };
  for (const runDueShard of RUN_DUE_SHARDS) {
    let cursor: string | null = null;
    do {
      const page: { data: SignalItem[]; cursor: string | null } = await deps.store.entities.signal.query
        .byRunDue({ runDueShard })
        .lte({ runDueAt: now.toISOString() })
        .go({ cursor, limit: PAGE_SIZE });
      report.read += page.data.length;
      const tokens = await tokensOf(deps, page.data);
      for (let i = 0; i < page.data.length; i += CONCURRENCY) {
        await Promise.all(
          page.data.slice(i, i + CONCURRENCY).map(async (start) => {
            const result = await lookAtRun(deps, start, tokens.get(start.checkId), now, isHeld);
            report[result]++;
          }),
        );
      }
      cursor = page.cursor;
    } while (cursor);
  }
  return report;
}

/** Each due start's check token, by id (one batch of checkRef reads a page). */
async function tokensOf(deps: Deps, starts: readonly SignalItem[]): Promise<Map<number, string>> {
  const ids = [...new Set(starts.map((start) => start.checkId))];
  const refs = await getItems(
    deps.store,
    ids.map((checkId) => keyOf(deps.store.entities.checkRef.get({ checkId }))),
  );
  const tokens = new Map<number, string>();
  refs.forEach((ref, i) => {
    const id = ids[i];
    if (id !== undefined && typeof ref?.token === 'string') tokens.set(id, ref.token);
  });
  return tokens;
}

type Look = 'missed' | 'ended' | 'rearmed' | 'held' | 'conflicts';

async function lookAtRun(deps: Deps, start: SignalItem, token: string | undefined, now: Date, isHeld: (check: CheckItem) => Promise<boolean>): Promise<Look> {
  const rid = typeof (start.details as { rid?: unknown } | undefined)?.rid === 'string' ? (start.details as { rid: string }).rid : undefined;
  const found = token !== undefined && rid !== undefined ? await readCheckWithRuns(deps.store, token) : undefined;
  const check = found?.current;
  // The run is still open exactly when the check holds this start's instant under its id.
  if (!found || !check || check.deletedAt !== undefined || rid === undefined || found.raw[runAttribute(rid)] !== start.receivedAt) {
    await moveEntry(deps, start, undefined);
    return 'ended';
  }
  const bound = new Date(Date.parse(start.receivedAt) + runAllowanceMs(check)).toISOString();
  if (bound > now.toISOString()) {
    await moveEntry(deps, start, bound);
    return 'rearmed';
  }
  const { changes, statusChange } = missedRunTransition(check, now);
  if (statusChange && (await isHeld(check))) return 'held';
  const owed = statusChange ? statusChangeOwed(check, statusChange, 'SWEEP', now) : undefined;
  const pending = await removeMissedRun(deps, check, rid, start.receivedAt, changes, owed);
  // Someone wrote first (the run's end, a ping that moved the check): the next sweep looks again.
  if (pending === null) return 'conflicts';
  if (owed) await handOffAfterWrite(deps, checkKey(check.token), pending);
  const signal = signalItem(check, { type: 'FAIL', source: 'SYSTEM', details: { reason: 'MISSED_RUN', rid, startedAt: start.receivedAt } }, now);
  await putSignal(deps, signal);
  const events: StreamEvent[] = [signalEvent(signal)];
  if (statusChange) events.push(checkEvent({ ...check, status: statusChange.to }));
  await broadcast(deps, events);
  await moveEntry(deps, start, undefined);
  return 'missed';
}

/**
 * The missed run's one write: the run removed, the `/fail` transition and the messages it owes, on
 * the condition that the run still holds its start and the status is the one read. Returns the
 * outbox to relay (what was pending plus this write's), or null when the condition failed.
 */
async function removeMissedRun(
  deps: Deps,
  check: CheckItem,
  rid: string,
  startedAt: string,
  changes: ReturnType<typeof missedRunTransition>['changes'],
  owed: ReturnType<typeof statusChangeOwed> | undefined,
): Promise<OutboxEntry[] | null> {
  const fields = owed ? outboxFields(owed) : undefined;
  const guard = {
    expression: '#run = :start AND #status = :statusWas AND attribute_not_exists(#deletedAt)',
    names: { '#run': runAttribute(rid), '#status': 'status', '#deletedAt': 'deletedAt' },
    values: { ':start': startedAt, ':statusWas': check.status },
  };
  const input = checkUpdateInput(deps.store.table, check.token, changes, guard, {}, 'ALL_OLD', { ...fields, removeNamed: ['#run'] });
  try {
    const result = await deps.store.hot.send(new UpdateItemCommand(lowLevelUpdate(input)));
    const old = result.Attributes ? unmarshall(result.Attributes) : {};
    return owed ? [...((old.outbox as OutboxEntry[] | undefined) ?? []), ...owed.entries] : [];
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

/** The START's entry moved to `to`, or removed (undefined). Unconditional: the entry is only a reminder, the check holds the truth. */
async function moveEntry(deps: Deps, start: SignalItem, to: string | undefined): Promise<void> {
  const key = marshall(signalKey(start.checkId, start.receivedAt, start.signalId));
  const keys = to === undefined ? undefined : runDueKeys(start.runDueShard ?? '0', to);
  await deps.store.hot
    .send(
      new UpdateItemCommand({
        TableName: deps.store.table,
        Key: key,
        UpdateExpression: keys ? 'SET #at = :at, #gsk = :gsk' : 'REMOVE #at, #shard, #gpk, #gsk',
        // The signal may have expired meanwhile: never recreate it.
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: keys
          ? { '#at': 'runDueAt', '#gsk': 'gsi5sk', '#pk': 'pk' }
          : { '#at': 'runDueAt', '#shard': 'runDueShard', '#gpk': 'gsi5pk', '#gsk': 'gsi5sk', '#pk': 'pk' },
        ...(keys ? { ExpressionAttributeValues: marshall({ ':at': to, ':gsk': keys.gsi5sk }) } : {}),
      }),
    )
    .catch((err: unknown) => {
      if (!isConditionalFailure(err)) throw err;
    });
}
