import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { systemClock } from '../clock.js';
import { localTransport } from './localTransports.js';
import { reshapedResolve, resolveCommand, resolveMiddlewareOnce, type Resolve } from './resolvedOnce.js';

export type DynamoOptions = {
  endpoint?: string;
  region?: string;
};

/**
 * A plain DynamoDB client (marshalled items, no document client) for AWS or for a
 * DynamoDB-compatible endpoint: the ping path's client (createDynamoClient's `hot` one, and the
 * ping Lambda's only one). Kept apart from client.ts so the ping Lambda does not bundle
 * lib-dynamodb or the table upgrade. It resolves its middleware once per command class until its
 * stack changes (resolvedOnce.ts).
 */
export function baseClient(options: DynamoOptions): DynamoDBClient {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const client = new DynamoDBClient({
    region,
    ...(options.endpoint ? localEndpoint(options.endpoint, region) : {}),
    maxAttempts: 3,
  });
  // No logger is ever configured, yet the SDK's logger step runs the sensitive-data filter over
  // every request and response to hand the result to a no-op: a few percent of a ping's CPU.
  client.middlewareStack.remove('loggerMiddleware');
  // An embedded store in this process takes data-plane requests as objects, with no JSON either
  // way (core/adapters/local/directDispatch.ts); the protocol is the one place that sees both the
  // typed input, after the document client's marshalling, and the output, before its unmarshalling.
  const direct = options.endpoint ? localTransport(options.endpoint)?.directProtocol : undefined;
  if (direct) client.config.protocol = direct(client.config.protocol);
  // A local store has no use for the SDK's user-agent string, which is rebuilt per request.
  if (options.endpoint) client.middlewareStack.remove('getUserAgentMiddleware');
  return resolveMiddlewareOnce(client, commandResolve(options));
}

/**
 * How a client for `options` resolves a low-level command: for an embedded store in this
 * process, data-plane operations without the middleware that only serve HTTP (its `directStack`).
 */
export function commandResolve(options: DynamoOptions): Resolve {
  const reshape = options.endpoint ? localTransport(options.endpoint)?.directStack : undefined;
  return reshape ? reshapedResolve(reshape) : resolveCommand;
}

/**
 * A DynamoDB-compatible endpoint: fixed `local` credentials, and the endpoint itself handed over
 * as is (the SDK otherwise walks its endpoint rule set on every request to arrive at the same URL).
 */
function localEndpoint(endpoint: string, region: string): Pick<DynamoDBClientConfig, 'endpoint' | 'endpointProvider' | 'credentials' | 'signer' | 'requestHandler'> {
  const inProcess = localTransport(endpoint);
  return {
    ...(inProcess ? { requestHandler: inProcess } : {}),
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
      const stamp = systemClock
        .now()
        .toISOString()
        .replace(/[-:]|\.\d{3}/g, '');
      request.headers['x-amz-date'] = stamp;
      request.headers.authorization = `AWS4-HMAC-SHA256 Credential=local/${stamp.slice(0, 8)}/${region}/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=unverified`;
      return request;
    },
  };
}
