import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Deps } from '../../deps.js';
import type { CheckItem } from '../../store/entities/check.js';
import { readOncePerBatch } from '../../store/batchReads.js';
import { isConditionalFailure } from '../../store/conditional.js';
import type { UptimeCursorItem } from '../../store/entities/uptimeRollup.js';
import { getStoredItem } from '../../store/storedItems.js';
import { DAY_MS, observedState, rollupDayStart, rollupDeltas, uptimeDates, type DayRollup, type MaintenanceSpan, type ObservedState } from '../uptime.js';
import { cursorKey, cursorMoveInput, cursorPutInput, dayAddInput } from './uptimeItems.js';

type CheckStatus = CheckItem['status'];
const KEEP_DAYS = 400;

/** Current maintenance holds on a project, as spans (historic windows are gone with their holds). */
export async function maintenanceSpans(deps: Deps, projectId: number | null | undefined): Promise<MaintenanceSpan[]> {
  if (projectId == null) return [];
  // The same read, under the same key, as the project's window effects (core/windows/holds.ts): a
  // message that asked whether incidents are suppressed has read these holds already.
  const holds = await readOncePerBatch(deps, `windowHolds#${projectId}`, () =>
    deps.store.entities.windowHold.query.byProject({ projectId }).go({ pages: 'all', consistent: true }),
  );
  return holds.data.filter((hold) => hold.kind === 'MAINTENANCE').map((hold) => ({ start: hold.startsAt, end: hold.endsAt ?? null }));
}

/**
 * One check moved from `from` to `to` at `at`: the interval that began at the cursor closes and
 * its seconds are added to the day rollups, then the cursor moves to `at`. A move within one
 * observed state closes nothing (a check with no cursor yet starts it at its first change of
 * observed state, not at a LATE). Idempotent under
 * redelivery: each day's `ADD` is conditional on the interval's start not being recorded there
 * yet, and a message at or before the cursor is already in.
 */
export async function recordStatusInterval(deps: Deps, change: { checkId: number; projectId: number | null; from: CheckStatus; to: CheckStatus; at: string }): Promise<boolean> {
  // Observed the same before and after (OK -> LATE, LATE -> OK: a late job still counts as up): the
  // open interval goes on and nothing closes. Closing and reopening it added the same seconds in two
  // parts, for a cursor get, a day's add and a cursor move: three requests of every LATE.
  if (observedState(change.from) === observedState(change.to)) return false;
  // Its three requests are plain ones in the entities' form (./uptimeItems.ts).
  const cursor = await getStoredItem<UptimeCursorItem>(deps.store, deps.store.entities.uptimeCursor, cursorKey(change.checkId));
  const nextState = observedState(change.to);
  if (cursor === undefined) {
    await moveCursor(deps, change.checkId, undefined, nextState, change.at);
    return true;
  }
  if (Date.parse(change.at) <= Date.parse(cursor.since)) return false;
  const deltas = rollupDeltas({ start: cursor.since, end: change.at, state: cursor.state }, await maintenanceSpans(deps, change.projectId));
  for (const delta of deltas) await addToDay(deps, change.checkId, cursor.since, delta);
  await moveCursor(deps, change.checkId, cursor, nextState, change.at);
  return true;
}

async function moveCursor(deps: Deps, checkId: number, previous: UptimeCursorItem | undefined, state: ObservedState, since: string): Promise<void> {
  const { hot, table } = deps.store;
  try {
    if (previous === undefined) await hot.send(new PutItemCommand(cursorPutInput(table, checkId, state, since)));
    else await hot.send(new UpdateItemCommand(cursorMoveInput(table, checkId, previous.since, state, since)));
  } catch (err) {
    // Another delivery of the same change (or a later one) moved it first: its interval is in.
    if (!isConditionalFailure(err)) throw err;
  }
}

async function addToDay(deps: Deps, checkId: number, intervalStart: string, delta: DayRollup): Promise<void> {
  const expiresAt = Math.floor((rollupDayStart(delta.date) + KEEP_DAYS * DAY_MS) / 1000);
  try {
    await deps.store.hot.send(new UpdateItemCommand(dayAddInput(deps.store.table, checkId, intervalStart, delta, expiresAt)));
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}

/** A check's closed days over `[first, last]` (one query) and its open interval (one get). */
export async function readCheckRollups(
  deps: Deps,
  checkId: number,
  first: string,
  last: string,
): Promise<{ days: DayRollup[]; cursor: { state: ObservedState; since: string } | null }> {
  const [items, cursor] = await Promise.all([
    deps.store.entities.uptimeRollup.query.byCheck({ checkId }).between({ date: first }, { date: last }).go({ pages: 'all' }),
    deps.store.entities.uptimeCursor.get({ checkId }).go(),
  ]);
  const days = items.data.map((item) => ({
    date: item.date,
    observedSeconds: item.observedSeconds ?? 0,
    downSeconds: item.downSeconds ?? 0,
    maintenanceSeconds: item.maintenanceSeconds ?? 0,
    maintenanceDownSeconds: item.maintenanceDownSeconds ?? 0,
  }));
  return { days, cursor: cursor.data ? { state: cursor.data.state, since: cursor.data.since } : null };
}

/** The first and last date of a bar of `days` days ending `offset` days ago. */
export function dateRange(now: Date, days: number, offset: number): { first: string; last: string } {
  const dates = uptimeDates(now, days, offset);
  return { first: dates[0] ?? '', last: dates[dates.length - 1] ?? '' };
}
