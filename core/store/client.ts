import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../clock.js';
import { createTableInput } from './table.js';
import { upgradeTable } from './tableUpgrade.js';

export type DynamoOptions = {
  endpoint?: string;
  region?: string;
  /**
   * Whether the hot-path client caches its resolved middleware per command (default true). Tests
   * that add observers or faults to it mid-file turn it off: the cache pins the list at first use.
   */
  cacheHotPath?: boolean;
};

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

function baseClient(options: DynamoOptions, cacheMiddleware: boolean): DynamoDBClient {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const client = new DynamoDBClient({
    region,
    ...(options.endpoint ? localEndpoint(options.endpoint, region) : {}),
    maxAttempts: 3,
    ...(cacheMiddleware ? { cacheMiddleware: true } : {}),
  });
  // No logger is ever configured, yet the SDK's logger step runs the sensitive-data filter over
  // every request and response to hand the result to a no-op: a few percent of a ping's CPU.
  client.middlewareStack.remove('loggerMiddleware');
  // A local store has no use for the SDK's user-agent string, which is rebuilt per request.
  if (options.endpoint) client.middlewareStack.remove('getUserAgentMiddleware');
  return client;
}

/**
 * A DynamoDB-compatible endpoint: fixed `local` credentials, and the endpoint itself handed over
 * as is (the SDK otherwise walks its endpoint rule set on every request to arrive at the same URL).
 */
function localEndpoint(endpoint: string, region: string): Pick<DynamoDBClientConfig, 'endpoint' | 'endpointProvider' | 'credentials' | 'signer'> {
  return {
    endpoint,
    endpointProvider: () => ({ url: new URL(endpoint) }),
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    signer: unverifiedSigner(region),
  };
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

/**
 * Creates the table when it is missing, and adds an index a newer `TABLE_KEYS` has to one made
 * before it (local runtime and tests; AWS gets both from `stacks/`).
 */
export async function ensureTable(client: DynamoDBDocumentClient, tableName: string): Promise<void> {
  await upgradeTable(client, tableName);
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
