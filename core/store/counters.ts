import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
