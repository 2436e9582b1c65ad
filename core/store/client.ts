import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTableInput } from './table.js';

export type DynamoOptions = { endpoint?: string; region?: string };

/**
 * A DynamoDB client for AWS (no endpoint) or for a DynamoDB-compatible endpoint such as the
 * embedded dynalite store. The same ElectroDB code runs against both.
 */
export function createDynamoClient(options: DynamoOptions = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(options.endpoint
      ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 3,
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** Creates the table when it is missing (local runtime and tests; AWS gets it from `stacks/`). */
export async function ensureTable(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException) && (err as { name?: string }).name !== 'ResourceNotFoundException') {
      throw err;
    }
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  for (let attempt = 0; attempt < 100; attempt++) {
    const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (described.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`table ${tableName} did not become active`);
}
