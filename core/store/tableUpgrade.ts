import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, UpdateTableCommand, type TableDescription } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput, TABLE_KEYS } from './table.js';

/**
 * Brings a table made before an index was added to `TABLE_KEYS` (gsi4, the outbox-due index) up
 * to date. DynamoDB and DynamoDB Local add a GSI in place (UpdateTable); the embedded dynalite
 * store cannot, so there the table is rebuilt through a copy: copy everything to `<table>-upgrade`,
 * mark the copy complete, recreate the table with every index, copy back, drop the copy. Each step
 * is safe to repeat, so a crash anywhere resumes on the next boot without losing an item. A
 * migration, so it may Scan. AWS tables get their indexes from `stacks/` instead.
 */

const COMPLETE_MARK = { pk: 'upgrade#copy', sk: 'complete' };
const BATCH = 25;

export const missingIndexes = (table: TableDescription | undefined): string[] => {
  const present = new Set((table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  return TABLE_KEYS.indexes.map((index) => index.name).filter((name) => !present.has(name));
};

async function describe(client: DynamoDBDocumentClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (err) {
    if ((err as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw err;
  }
}

/** The table and every index ACTIVE: an index added in place backfills first, and writes during that can fail (DynamoDB Local). */
async function waitActive(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const table = await describe(client, tableName);
    const indexesReady = (table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === undefined || index.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesReady) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`table ${tableName} did not become active`);
}

async function create(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitActive(client, tableName);
}

async function drop(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
  for (let attempt = 0; attempt < 100 && (await describe(client, tableName)); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Every item of `from` written to `to` (puts overwrite: repeating a copy is harmless). */
async function copy(client: DynamoDBDocumentClient, from: string, to: string): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    // A migration copies a whole table: the one place DESIGN 1 allows a Scan.
    const page = await client.send(new ScanCommand({ TableName: from, ...(start ? { ExclusiveStartKey: start } : {}) }));
    const items = (page.Items ?? []).filter((item) => !(item.pk === COMPLETE_MARK.pk && item.sk === COMPLETE_MARK.sk));
    for (let i = 0; i < items.length; i += BATCH) {
      let requests: Record<string, unknown>[] = items.slice(i, i + BATCH).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt >= 10) throw new Error(`could not copy ${requests.length} items to ${to}`);
        const result = await client.send(new BatchWriteCommand({ RequestItems: { [to]: requests } }));
        requests = (result.UnprocessedItems?.[to] ?? []) as Record<string, unknown>[];
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Adds whatever index `TABLE_KEYS` has and the existing table lacks; a no-op on an up-to-date table. */
export async function upgradeTable(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  const spare = `${tableName}-upgrade`;
  let table = await describe(client, tableName);
  const missing = missingIndexes(table);
  if (table && missing.length > 0) {
    const definitions = createTableInput(tableName);
    for (const name of missing) {
      const index = definitions.GlobalSecondaryIndexes.find((candidate) => candidate.IndexName === name);
      if (!index) continue;
      await client
        .send(new UpdateTableCommand({ TableName: tableName, AttributeDefinitions: definitions.AttributeDefinitions, GlobalSecondaryIndexUpdates: [{ Create: index }] }))
        .catch(() => undefined);
    }
    await waitActive(client, tableName);
    table = await describe(client, tableName);
  }
  let copyDone = false;
  const spareTable = await describe(client, spare);
  if (spareTable) {
    copyDone = (await client.send(new GetCommand({ TableName: spare, Key: COMPLETE_MARK, ConsistentRead: true }))).Item !== undefined;
    // A copy cut short: the table is still whole, so start the copy again.
    if (!copyDone) await drop(client, spare);
  }
  if (!copyDone) {
    if (!table || missingIndexes(table).length === 0) return;
    console.log(`store: rebuilding table ${tableName} to add ${missingIndexes(table).join(', ')}`);
    await create(client, spare);
    await copy(client, tableName, spare);
    await client.send(new PutCommand({ TableName: spare, Item: COMPLETE_MARK }));
  }
  // From here the spare holds everything: the table may be dropped and rebuilt.
  if (table && missingIndexes(table).length > 0) await drop(client, tableName);
  if (!table || missingIndexes(table).length > 0) await create(client, tableName);
  await copy(client, spare, tableName);
  await drop(client, spare);
}
