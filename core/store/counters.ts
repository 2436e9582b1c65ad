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
