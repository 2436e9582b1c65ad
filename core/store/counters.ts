import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Integer ids from a per-entity atomic counter: one conditional-free ADD, never a collision. */
export async function nextId(client: DynamoDBDocumentClient, table: string, entity: string): Promise<number> {
  const result = await client.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: `counter#${entity}`, sk: 'counter' },
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const value = result.Attributes?.value;
  if (typeof value !== 'number') throw new Error(`counter ${entity} returned no value`);
  return value;
}

/** The last id handed out for an entity (0 before the first): ids 1..n name every item, no Scan needed. */
export async function currentId(client: DynamoDBDocumentClient, table: string, entity: string): Promise<number> {
  const found = await client.send(new GetCommand({ TableName: table, Key: { pk: `counter#${entity}`, sk: 'counter' }, ConsistentRead: true }));
  const value: unknown = found.Item?.value;
  return typeof value === 'number' ? value : 0;
}

/** How many ids one counter update reserves for `idBlocks`. */
const BLOCK_SIZE = 64;

/**
 * Ids handed out from blocks this process reserves with one ADD of `BLOCK_SIZE`, for items whose id
 * only has to be unique (an incident's timeline entries: their order is their time, the id only
 * breaks ties). A flip writes several entries, and one counter update each was a tenth of a flip's
 * store requests. The cost: ids are not dense (a process that stops leaves the rest of its block
 * unused) and, across processes, not in the order they were taken. Not for ids anything sorts by
 * age (incidents list newest first by id) or enumerates 1..n (`currentId`).
 */
export function idBlocks(client: DynamoDBDocumentClient, table: string): (entity: string) => Promise<number> {
  const blocks = new Map<string, { next: number; last: number }>();
  // One reservation at a time per entity: callers that arrive meanwhile wait for it instead of reserving their own.
  const reserving = new Map<string, Promise<void>>();
  const reserve = async (entity: string): Promise<void> => {
    const result = await client.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: `counter#${entity}`, sk: 'counter' },
        UpdateExpression: 'ADD #value :n',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':n': BLOCK_SIZE },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const last = result.Attributes?.value;
    if (typeof last !== 'number') throw new Error(`counter ${entity} returned no value`);
    blocks.set(entity, { next: last - BLOCK_SIZE + 1, last });
  };
  return async (entity) => {
    for (;;) {
      const block = blocks.get(entity);
      if (block && block.next <= block.last) return block.next++;
      let pending = reserving.get(entity);
      if (!pending) {
        pending = reserve(entity).finally(() => reserving.delete(entity));
        reserving.set(entity, pending);
      }
      await pending;
    }
  };
}
