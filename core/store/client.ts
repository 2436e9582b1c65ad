import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AGAIN, retry } from '../retry.js';
import { baseClient, type DynamoOptions } from './plainClient.js';
import { createTableInput } from './table.js';

export type { DynamoOptions } from './plainClient.js';

const hotClients = new WeakMap<DynamoDBDocumentClient, DynamoDBClient>();

/**
 * A DynamoDB client for AWS (no endpoint) or for a DynamoDB-compatible endpoint such as the
 * embedded dynalite store. The same ElectroDB code runs against both. Alongside it, a plain
 * client for the ping path (hotPathClient).
 */
export function createDynamoClient(options: DynamoOptions = {}): DynamoDBDocumentClient {
  const document = DynamoDBDocumentClient.from(baseClient(options, false), { marshallOptions: { removeUndefinedValues: true } });
  hotClients.set(document, baseClient(options, options.cacheHotPath ?? true));
  return document;
}

/**
 * The low-level client made with `document`, for the requests every ping makes (its UpdateItem,
 * the signal puts). It takes marshalled items and caches its resolved middleware per command
 * class, which the document client cannot (lib-dynamodb refuses `cacheMiddleware`): measured, an
 * UpdateItem costs about 90 us of SDK CPU this way against 160 us through the document client.
 */
export function hotPathClient(document: DynamoDBDocumentClient): DynamoDBClient {
  const hot = hotClients.get(document);
  if (!hot) throw new Error('hotPathClient: the client was not made by createDynamoClient');
  return hot;
}

/**
 * Creates the table with every index when it is missing (local runtime and tests; AWS gets it
 * from `stacks/`). A table that exists is taken as it is: version 0.1 starts from a clean schema.
 */
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
  await retry<undefined>(
    async () => ((await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.TableStatus === 'ACTIVE' ? undefined : AGAIN),
    { attempts: 100, delayMs: () => 50 },
    () => {
      throw new Error(`table ${tableName} did not become active`);
    },
  );
}
