import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Clock } from '../clock.js';
import type { Broadcaster, Queue } from '../ports/index.js';
import type { CheckItem } from '../store/entities/check.js';
import { OUTBOX_FIELDS } from '../store/outbox.js';
import type { Store } from '../store/service.js';
import { isConditionalFailure } from '../store/conditional.js';
import { checkKey } from '../store/checkKeys.js';

/**
 * What the ping path needs from the outside world, and nothing more: the clock, the table through
 * its plain DynamoDB client, the incidents queue and the stream broadcaster. `Deps` fits it as is
 * (the API app and the local server pass theirs); the ping Lambda builds only this
 * (core/adapters/aws/pingDeps.ts), so its cold start loads no ElectroDB, zod or OpenAPI.
 * Every read and write of the ping path goes through the functions below as plain requests, in
 * exactly the form ElectroDB reads and writes them (pingStore.test.ts holds the two together).
 */
export type PingTable = Pick<Store, 'hot' | 'table'>;
export type PingDeps = {
  clock: Clock;
  store: PingTable;
  queue: Queue;
  broadcaster: Pick<Broadcaster, 'publish'>;
};

/** The table fields of a check that are keys, not attributes; the outbox index fields map back to their names. */
const KEY_FIELDS = new Set(['pk', 'sk', 'gsi2pk', 'gsi2sk', '__edb_e__', '__edb_v__']);

/**
 * A check as ElectroDB returns it, from the item as the table stores it (a GetItem, or what an
 * update returned as ALL_OLD): keys dropped, the outbox index fields under their attribute names.
 */
export function checkFromItem(item: Record<string, unknown>): CheckItem | undefined {
  if (item.__edb_e__ !== undefined && item.__edb_e__ !== 'check') return undefined;
  if (typeof item.checkId !== 'number') return undefined;
  const check: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    if (KEY_FIELDS.has(name)) continue;
    if (name === OUTBOX_FIELDS.due) check.outboxDue = value;
    else if (name === OUTBOX_FIELDS.dueAt) check.outboxDueAt = value;
    else check[name] = value;
  }
  return check as CheckItem;
}

/** The check behind a token, read consistently (the ping path's fallback after a failed guess). */
export async function readCheck(store: PingTable, token: string): Promise<CheckItem | undefined> {
  return (await readCheckWithRuns(store, token)).current;
}

/**
 * The same read, with the item as stored too: open runs live in `run_<rid>` attributes that are
 * no field of the entity (core/checks/runs.ts reads them from `raw`).
 */
export async function readCheckWithRuns(store: PingTable, token: string): Promise<{ current: CheckItem | undefined; raw: Record<string, unknown> }> {
  const read = await store.hot.send(new GetItemCommand({ TableName: store.table, Key: marshall(checkKey(token)), ConsistentRead: true }));
  const raw = read.Item ? unmarshall(read.Item) : {};
  return { current: read.Item ? checkFromItem(raw) : undefined, raw };
}

/**
 * Gives a ping's dedup marker back (`field` to `old`, or removed), on the condition that it is
 * still the one the ping wrote (`written`).
 */
export async function restoreField(store: PingTable, token: string, field: string, old: string | undefined, written: string): Promise<void> {
  await store.hot.send(
    new UpdateItemCommand({
      TableName: store.table,
      Key: marshall(checkKey(token)),
      UpdateExpression: old === undefined ? 'REMOVE #f' : 'SET #f = :old',
      ConditionExpression: 'attribute_exists(#pk) AND #f = :written',
      ExpressionAttributeNames: { '#f': field, '#pk': 'pk' },
      ExpressionAttributeValues: marshall(old === undefined ? { ':written': written } : { ':old': old, ':written': written }),
    }),
  );
}

/**
 * Puts back a value a ping removed (`field` to `value`), unless something has set it since: the
 * condition keeps whatever a later ping wrote. A check that is gone meanwhile is left alone.
 */
export async function restoreIfAbsent(store: PingTable, token: string, field: string, value: string): Promise<void> {
  try {
    await store.hot.send(
      new UpdateItemCommand({
        TableName: store.table,
        Key: marshall(checkKey(token)),
        UpdateExpression: 'SET #f = :value',
        ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#f)',
        ExpressionAttributeNames: { '#f': field, '#pk': 'pk' },
        ExpressionAttributeValues: marshall({ ':value': value }),
      }),
    );
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
  }
}
