import type { UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { StatusChanges } from '../checks/status.js';
import { checkKey } from '../store/checkKeys.js';
import type { SignalItem } from '../store/entities/signal.js';
import { marshallItem } from '../store/flatItems.js';

/**
 * The two writes of the ping path as plain requests, in exactly the form ElectroDB writes them
 * (keys and identity attributes; rawItems.test.ts holds the two to each other). Building them
 * through ElectroDB's chains costs more CPU than everything else the ping does, so the hot path
 * builds them here; every other read and write goes through the entities.
 */

/** A check's own due-index keys (the check entity's byDue index). */
export const checkDueKeys = (dueShard: string, dueAt: string): { gsi2pk: string; gsi2sk: string } => ({
  gsi2pk: `$vigil#dueshard_${dueShard.toLowerCase()}`,
  gsi2sk: `$check_1#dueat_${dueAt.toLowerCase()}`,
});
/** A wake entry's index keys (the signal entity's byWake index). */
const wakeKeys = (wakeShard: string, wakeAt: string) => ({
  gsi2pk: `$vigil#wakeshard_${wakeShard.toLowerCase()}`,
  gsi2sk: `$signal_1#wakeat_${wakeAt.toLowerCase()}`,
});

/** A run's missed-run entry keys (the signal entity's byRunDue index). */
export const runDueKeys = (runDueShard: string, runDueAt: string) => ({
  gsi5pk: `$vigil#rundueshard_${runDueShard.toLowerCase()}`,
  gsi5sk: `$signal_1#rundueat_${runDueAt.toLowerCase()}`,
});

export type Guard = { expression: string; names: Record<string, string>; values: Record<string, unknown> };

/** Fields a ping writes besides its status changes (its dedup marker; on a move, the outbox), by table field name. */
export type PingExtras = {
  set?: Record<string, unknown>;
  append?: Record<string, unknown[]>;
  /** Attributes whose names are no placeholders (`run_<rid>`): `#placeholder` -> value to set, or removed; the guard holds the names. */
  setNamed?: Record<string, string>;
  removeNamed?: string[];
};

/**
 * One UpdateItem of the check addressed by `token`: `changes` plus the rate-limit `counters` and
 * `extras`, on the condition `guard` (which must imply that the item exists), returning the
 * previous item. An appended list starts empty where the item has none (as ElectroDB's append).
 */
export function checkUpdateInput(
  table: string,
  token: string,
  changes: StatusChanges,
  guard: Guard,
  counters: { set?: Record<string, number>; add?: Record<string, number> },
  returnValues: 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' = 'ALL_OLD',
  extras: PingExtras = {},
): UpdateCommandInput {
  // Copied with Object.assign, not spread: V8 gives a spread copy a map that shares no
  // transitions, so each of the ~20 keys added below made a new hidden class (50 us of CPU and
  // most of the garbage of a ping's planning, against 3 us this way).
  const names: Record<string, string> = Object.assign({}, guard.names);
  const values: Record<string, unknown> = Object.assign({}, guard.values);
  const sets: string[] = [];
  const removes: string[] = [];
  const adds: string[] = [];
  const set = (name: string, value: unknown) => {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  };
  for (const [name, value] of Object.entries(changes.set)) if (value !== undefined) set(name, value);
  for (const [name, value] of Object.entries(counters.set ?? {})) set(name, value);
  for (const [name, value] of Object.entries(extras.set ?? {})) set(name, value);
  for (const [name, items] of Object.entries(extras.append ?? {})) {
    names[`#${name}`] = name;
    values[`:${name}_none`] = [];
    values[`:${name}_append`] = items;
    sets.push(`#${name} = list_append(if_not_exists(#${name}, :${name}_none), :${name}_append)`);
  }
  for (const [placeholder, value] of Object.entries(extras.setNamed ?? {})) {
    values[`:${placeholder.slice(1)}_value`] = value;
    sets.push(`${placeholder} = :${placeholder.slice(1)}_value`);
  }
  // A due time set here moves the check's own due-index entry in the same write.
  const { dueAt, dueShard } = changes.set;
  if (dueAt !== undefined && dueShard !== undefined) for (const [name, value] of Object.entries(checkDueKeys(dueShard, dueAt))) set(name, value);
  const removed = changes.remove.filter((name) => !(name in changes.set));
  if (removed.includes('dueAt') || removed.includes('dueShard')) removed.push('gsi2pk' as never, 'gsi2sk' as never);
  for (const name of removed) {
    names[`#${name}`] = name;
    removes.push(`#${name}`);
  }
  removes.push(...(extras.removeNamed ?? []));
  for (const [name, value] of Object.entries(counters.add ?? {})) {
    names[`#${name}`] = name;
    values[`:${name}_add`] = value;
    adds.push(`#${name} :${name}_add`);
  }
  const clauses = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : '', adds.length ? `ADD ${adds.join(', ')}` : ''];
  return {
    TableName: table,
    Key: checkKey(token),
    UpdateExpression: clauses.filter(Boolean).join(' '),
    ConditionExpression: guard.expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValues: returnValues,
  };
}

const PLACEHOLDER = /[#:][A-Za-z0-9_]+/g;

/** A request shape's renamed expressions and, by position, the short names of its placeholders. */
type Compaction = { update: string | undefined; condition: string | undefined; names: string[]; values: string[] };
/** Compactions by request shape: a ping path makes a few dozen shapes (kinds, runs, moves), never more than this. */
const compactions = new Map<string, Compaction>();
const MAX_SHAPES = 512;

function compaction(input: Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression'>, nameKeys: string[], valueKeys: string[]): Compaction {
  const renamed = new Map<string, string>();
  for (const from of nameKeys) renamed.set(from, `#${renamed.size.toString(36)}`);
  for (const from of valueKeys) renamed.set(from, `:${renamed.size.toString(36)}`);
  const rename = (expression: string | undefined) => expression?.replace(PLACEHOLDER, (placeholder) => renamed.get(placeholder) ?? placeholder);
  return {
    update: rename(input.UpdateExpression),
    condition: rename(input.ConditionExpression),
    names: nameKeys.map((from) => renamed.get(from) ?? from),
    values: valueKeys.map((from) => renamed.get(from) ?? from),
  };
}

/**
 * The same request with every placeholder renamed to a short one (`#pingWindowStart` -> `#c`).
 * The embedded store parses each expression character by character on every request, and the
 * ping's readable names cost it more than its whole update; DynamoDB itself does not care. The
 * renaming depends only on the expressions and the placeholders' order, which repeat from ping to
 * ping, so it is worked out once per shape (a regular expression over both expressions was about
 * 10 us of every ping).
 */
export function compactPlaceholders<T extends Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>>(
  input: T,
): T {
  const fromNames = input.ExpressionAttributeNames ?? {};
  const fromValues = input.ExpressionAttributeValues ?? {};
  const nameKeys = Object.keys(fromNames);
  const valueKeys = Object.keys(fromValues);
  const shape = `${input.UpdateExpression ?? ''}\n${input.ConditionExpression ?? ''}\n${nameKeys.join(' ')}\n${valueKeys.join(' ')}`;
  let found = compactions.get(shape);
  if (!found) {
    if (compactions.size >= MAX_SHAPES) compactions.clear();
    found = compaction(input, nameKeys, valueKeys);
    compactions.set(shape, found);
  }
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (let i = 0; i < nameKeys.length; i++) names[found.names[i] as string] = fromNames[nameKeys[i] as string] as string;
  for (let i = 0; i < valueKeys.length; i++) values[found.values[i] as string] = fromValues[valueKeys[i] as string];
  return Object.assign({}, input, {
    UpdateExpression: found.update,
    ConditionExpression: found.condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/** A signal as the table stores it (what the signal entity's put writes). */
export function storedSignal(item: SignalItem): Record<string, unknown> {
  // Object.assign rather than spread: see checkUpdateInput.
  const stored: Record<string, unknown> = Object.assign({}, item, signalKey(item.checkId, item.receivedAt, item.signalId));
  if (item.wakeAt !== undefined && item.wakeShard !== undefined) Object.assign(stored, wakeKeys(item.wakeShard, item.wakeAt));
  if (item.runDueAt !== undefined && item.runDueShard !== undefined) Object.assign(stored, runDueKeys(item.runDueShard, item.runDueAt));
  stored.__edb_e__ = 'signal';
  stored.__edb_v__ = '1';
  return stored;
}

/** A signal's table key, from its check, time and id (what the signal entity's byCheck index writes). */
export const signalKey = (checkId: number, receivedAt: string, signalId: string): { pk: string; sk: string } => ({
  pk: `$vigil#checkid_${checkId}`,
  sk: signalSortKey(receivedAt, signalId),
});
const signalSortKey = (receivedAt: string, signalId: string) => `$signal_1#receivedat_${receivedAt.toLowerCase()}#signalid_${signalId.toLowerCase()}`;

/** The request for the plain client (store.hot): the key and values marshalled as the table stores them. */
export function lowLevelUpdate(input: UpdateCommandInput): UpdateItemCommandInput {
  const output: UpdateItemCommandInput = { TableName: input.TableName, Key: marshallItem(input.Key ?? {}) };
  if (input.UpdateExpression) output.UpdateExpression = input.UpdateExpression;
  if (input.ConditionExpression) output.ConditionExpression = input.ConditionExpression;
  if (input.ExpressionAttributeNames) output.ExpressionAttributeNames = input.ExpressionAttributeNames;
  if (input.ExpressionAttributeValues) output.ExpressionAttributeValues = marshallItem(input.ExpressionAttributeValues);
  if (input.ReturnValues) output.ReturnValues = input.ReturnValues;
  return output;
}
