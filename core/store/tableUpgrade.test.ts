import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { describe, expect, inject, it } from 'vitest';
import { createDynamoClient, ensureTable } from './client.js';
import { createTableInput } from './table.js';
import { missingIndexes } from './tableUpgrade.js';

const client = createDynamoClient({ endpoint: inject('dynamoEndpoint') });
const indexesOf = async (table: string) => (await client.send(new DescribeTableCommand({ TableName: table }))).Table;

async function active(table: string): Promise<void> {
  while ((await indexesOf(table))?.TableStatus !== 'ACTIVE') await new Promise((resolve) => setTimeout(resolve, 20));
}

/** A table as created before the outbox-due index existed (gsi1-gsi3 only), with a few items. */
async function tableBeforeGsi4(items: number): Promise<string> {
  const table = `t_${ulid()}`;
  const input = createTableInput(table);
  const old = input.GlobalSecondaryIndexes.filter((index) => index.IndexName !== 'gsi4');
  const keys = new Set(['pk', 'sk', ...old.flatMap((index) => index.KeySchema.map((key) => key.AttributeName))]);
  await client.send(new CreateTableCommand({ ...input, GlobalSecondaryIndexes: old, AttributeDefinitions: input.AttributeDefinitions.filter((d) => keys.has(d.AttributeName)) }));
  await active(table);
  for (let i = 0; i < items; i++) await client.send(new PutCommand({ TableName: table, Item: { pk: `item#${i}`, sk: 'x', gsi1pk: 'all', gsi1sk: `k${String(i).padStart(3, '0')}`, n: i } }));
  return table;
}

describe('adding an index to a table made before it', () => {
  it('rebuilds the table with every index and every item, and then leaves it alone', async () => {
    const table = await tableBeforeGsi4(60);
    expect(missingIndexes(await indexesOf(table))).toEqual(['gsi4']);
    await ensureTable(client, table);
    expect(missingIndexes(await indexesOf(table))).toEqual([]);
    const listed = await client.send(new QueryCommand({ TableName: table, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :all', ExpressionAttributeValues: { ':all': 'all' } }));
    expect(listed.Items?.map((item) => item.n)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // The new index works on the rebuilt table.
    await client.send(new PutCommand({ TableName: table, Item: { pk: 'owes', sk: 'x', gsi4pk: 'outbox#0', gsi4sk: '2026' } }));
    const owing = await client.send(new QueryCommand({ TableName: table, IndexName: 'gsi4', KeyConditionExpression: 'gsi4pk = :s', ExpressionAttributeValues: { ':s': 'outbox#0' } }));
    expect(owing.Items?.map((item) => item.pk)).toEqual(['owes']);
    await ensureTable(client, table);
    expect((await client.send(new GetCommand({ TableName: table, Key: { pk: 'item#59', sk: 'x' } }))).Item?.n).toBe(59);
  });

  it('resumes a rebuild cut short after the copy was complete and the table dropped', async () => {
    const table = await tableBeforeGsi4(3);
    // As a crash would leave it: the complete copy exists, the table itself is gone.
    const spare = `${table}-upgrade`;
    await client.send(new CreateTableCommand(createTableInput(spare)));
    await active(spare);
    for (let i = 0; i < 3; i++) await client.send(new PutCommand({ TableName: spare, Item: { pk: `item#${i}`, sk: 'x', n: i } }));
    await client.send(new PutCommand({ TableName: spare, Item: { pk: 'upgrade#copy', sk: 'complete' } }));
    await client.send(new DeleteTableCommand({ TableName: table }));
    await ensureTable(client, table);
    expect(missingIndexes(await indexesOf(table))).toEqual([]);
    for (let i = 0; i < 3; i++) expect((await client.send(new GetCommand({ TableName: table, Key: { pk: `item#${i}`, sk: 'x' } }))).Item?.n).toBe(i);
    expect((await client.send(new GetCommand({ TableName: table, Key: { pk: 'upgrade#copy', sk: 'complete' } }))).Item).toBeUndefined();
    await expect(indexesOf(spare)).rejects.toThrow();
  });
});
