import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** One conditional-free ADD of `n` to an entity's counter: the last of the `n` ids it reserves. */
async function add(client: DynamoDBDocumentClient, table: string, entity: string, n: number): Promise<number> {
  const result = await client.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: `counter#${entity}`, sk: 'counter' },
      UpdateExpression: 'ADD #value :n',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':n': n },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const value = result.Attributes?.value;
  if (typeof value !== 'number') throw new Error(`counter ${entity} returned no value`);
  return value;
}

/**
 * Integer ids from a per-entity atomic counter, never a collision. Callers that ask while this
 * process's update of the same counter is in flight share the next one: it adds their number and
 * hands its ids out in the order they asked. A queue batch that opens 25 incidents at once (a mass
 * outage) took 25 counter updates, now two. Each id is still reserved when asked for and used at
 * once, never held for later, so ids keep increasing in the order things are created, across
 * processes as well as one counter update each did (incident lists sort newest first by id).
 */
export function sequentialIds(client: DynamoDBDocumentClient, table: string): (entity: string) => Promise<number> {
  type Taker = { resolve(id: number): void; reject(err: unknown): void };
  const waiting = new Map<string, Taker[]>();
  const serve = async (entity: string, takers: Taker[]): Promise<void> => {
    for (let batch = takers; batch.length > 0; batch = waiting.get(entity)?.splice(0) ?? []) {
      try {
        const last = await add(client, table, entity, batch.length);
        batch.forEach((taker, i) => taker.resolve(last - batch.length + 1 + i));
      } catch (err) {
        for (const taker of batch) taker.reject(err);
      }
    }
    waiting.delete(entity);
  };
  return (entity) =>
    new Promise<number>((resolve, reject) => {
      const queued = waiting.get(entity);
      if (queued) {
        queued.push({ resolve, reject });
        return;
      }
      // This caller's update goes now; whoever asks meanwhile waits in `queued` for the next one.
      waiting.set(entity, []);
      void serve(entity, [{ resolve, reject }]);
    });
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
    const last = await add(client, table, entity, BLOCK_SIZE);
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
