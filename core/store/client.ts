import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AGAIN, retry } from '../retry.js';
import { baseClient, commandResolve, type DynamoOptions } from './plainClient.js';
import { resolveMiddlewareOnce, type Resolve, type Resolved } from './resolvedOnce.js';
import { createTableInput } from './table.js';

export type { DynamoOptions } from './plainClient.js';

const hotClients = new WeakMap<DynamoDBDocumentClient, DynamoDBClient>();

/**
 * A DynamoDB client for AWS (no endpoint) or for a DynamoDB-compatible endpoint such as the
 * embedded dynalite store. The same ElectroDB code runs against both. Alongside it, a plain
 * client for the ping path (hotPathClient). Both resolve their middleware once per command class
 * until their stack changes (resolvedOnce.ts).
 */
export function createDynamoClient(options: DynamoOptions = {}): DynamoDBDocumentClient {
  const document = DynamoDBDocumentClient.from(baseClient(options), { marshallOptions: { removeUndefinedValues: true } });
  hotClients.set(document, baseClient(options));
  return resolveMiddlewareOnce(document, resolveDocumentCommand(commandResolve(options)));
}

/** What lib-dynamodb's commands keep for their own `resolveMiddleware` (its dist-cjs/index.js). */
type DocumentCommand = {
  clientCommand: object;
  addMarshallingMiddleware(config: object): void;
};

/**
 * lib-dynamodb refuses the SDK's `cacheMiddleware` because a document command's resolved handler
 * ignores the command it is called with: it sends the low-level command (`clientCommand`) of the
 * instance it was resolved for, so a cached handler would send the first request's input again.
 * Its marshalling middleware, though, reads nothing of that instance but the key nodes every
 * instance of the class shares. So the low-level command is resolved once per document command
 * class, with that marshalling in its stack, and each request calls it with its own low-level
 * command: the marshalling, the unmarshalling and every middleware run per request as before.
 */
const resolveDocumentCommand =
  (resolveCommand: Resolve): Resolve =>
  (command, stack, config): Resolved | undefined => {
    const document = command as Partial<DocumentCommand>;
    // A low-level command sent through the document client (ensureTable's).
    if (document.clientCommand === undefined) return resolveCommand(command, stack, config);
    if (typeof document.addMarshallingMiddleware !== 'function') return undefined;
    document.addMarshallingMiddleware(config);
    const resolved = resolveCommand(document.clientCommand, stack, config);
    return resolved && { handler: resolved.handler, target: (sent) => (sent as DocumentCommand).clientCommand };
  };

/**
 * The low-level client made with `document`, for the requests every ping makes (its UpdateItem,
 * the signal puts). It takes marshalled items, so it skips the document client's marshalling.
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
