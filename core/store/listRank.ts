import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Store } from './service.js';

/**
 * How many items a list holds, and where page N starts, without reading the list's keys.
 *
 * DynamoDB has no offset: reaching item 9,990 of an index means reading the 9,989 before it. So a
 * list keeps, beside its index, one small counter item per run of RUN consecutive ids (ids are
 * integers; run = floor(id / RUN)), with a count per lane (for checks, per mode for the workspace
 * and per project and mode: one item counts a check in every list it is in). Summing the runs
 * gives `total`; walking them to the page's offset gives the run the page starts in and how many
 * of that run's items come before it. The page then reads its index from that run's first id on:
 * at most RUN - 1 items it skips, plus the page. Counters move with `ADD` (exact under concurrent
 * writers), in the write path of whatever lists or unlists an item.
 *
 * Items: pk `listRank#<list>#<scope>`, sk `run#<run, 16 digits>`, a number per lane.
 */
export const RUN = 64;

export type Run = { run: number; counts: Record<string, number> };

const pkOf = (list: string) => `listRank#${list}`;
const skOf = (run: number) => `run#${String(run).padStart(16, '0')}`;
export const runOf = (id: number): number => Math.floor(id / RUN);

/** Adds each lane's delta to the run holding `id` in list `list` (e.g. `check#workspace#7`): one write. */
export async function addToRank(store: Pick<Store, 'client' | 'table'>, list: string, id: number, deltas: Record<string, number>): Promise<void> {
  const lanes = Object.keys(deltas);
  if (lanes.length === 0) return;
  await store.client.send(
    new UpdateCommand({
      TableName: store.table,
      Key: { pk: pkOf(list), sk: skOf(runOf(id)) },
      UpdateExpression: `ADD ${lanes.map((_, i) => `#l${i} :d${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(lanes.map((lane, i) => [`#l${i}`, lane])),
      ExpressionAttributeValues: Object.fromEntries(lanes.map((lane, i) => [`:d${i}`, deltas[lane] ?? 0])),
    }),
  );
}

/** Every run of a list, in id order (strongly consistent: a page right after a create counts it). */
export async function readRuns(store: Pick<Store, 'client' | 'table'>, list: string): Promise<Run[]> {
  const runs: Run[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.client.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':pk': pkOf(list) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const counts: Record<string, number> = {};
      for (const [name, value] of Object.entries(item)) if (name !== 'pk' && name !== 'sk' && typeof value === 'number') counts[name] = value;
      runs.push({ run: Number(String(item.sk).slice('run#'.length)), counts });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return runs;
}

/** A run's items in the lanes asked for. */
export const countOf = (run: Run, lanes: readonly string[]): number =>
  Math.max(
    0,
    lanes.reduce((sum, lane) => sum + (run.counts[lane] ?? 0), 0),
  );

export type Span = {
  /** Items in the list (in the lanes asked for). */
  total: number;
  /** The page's first and last run, and how many items of the first run come before the page; undefined past the end. */
  from?: { run: number; skip: number; lastRun: number };
};

/** Where the items [offset, offset + limit) of a list sit, from its runs alone. */
export function locate(runs: readonly Run[], offset: number, limit: number, lanes: readonly string[]): Span {
  let total = 0;
  let from: Span['from'];
  for (const run of runs) {
    const count = countOf(run, lanes);
    if (count === 0) continue;
    if (from === undefined && total + count > offset) from = { run: run.run, skip: offset - total, lastRun: run.run };
    else if (from !== undefined && total < offset + limit) from.lastRun = run.run;
    total += count;
  }
  return from === undefined ? { total } : { total, from };
}

/** The smallest and largest id a run can hold. */
export const runBounds = (run: number): [number, number] => [run * RUN, run * RUN + RUN - 1];
