import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../clock.js';
import { createTableInput } from './table.js';

export type DynamoOptions = { endpoint?: string; region?: string };

/**
 * A DynamoDB client for AWS (no endpoint) or for a DynamoDB-compatible endpoint such as the
 * embedded dynalite store. The same ElectroDB code runs against both.
 */
export function createDynamoClient(options: DynamoOptions = {}): DynamoDBDocumentClient {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const client = new DynamoDBClient({
    region,
    ...(options.endpoint
      ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, signer: unverifiedSigner(region) }
      : {}),
    maxAttempts: 3,
  });
  // No logger is ever configured, yet the SDK's logger step runs the sensitive-data filter over
  // every request and response to hand the result to a no-op: a few percent of a ping's CPU.
  client.middlewareStack.remove('loggerMiddleware');
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * Local stores (dynalite, DynamoDB Local) read the SigV4 headers' shape and credential scope but
 * never check the signature, and an endpoint client signs with fixed `local` credentials that AWS
 * would refuse anyway: the HMACs and body hash of a real signature buy nothing there.
 */
function unverifiedSigner(region: string): NonNullable<DynamoDBClientConfig['signer']> {
  return {
    sign: async (request) => {
      // The wall clock, as the SDK's own signer uses: a transport header, not a unit of work's time.
      const stamp = systemClock.now().toISOString().replace(/[-:]|\.\d{3}/g, '');
      request.headers['x-amz-date'] = stamp;
      request.headers.authorization = `AWS4-HMAC-SHA256 Credential=local/${stamp.slice(0, 8)}/${region}/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=unverified`;
      return request;
    },
  };
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
