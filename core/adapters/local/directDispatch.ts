import { HttpResponse } from '@smithy/protocol-http';

/**
 * Data-plane requests to an embedded store in this process, answered without the wire. Over the
 * in-process transport (inProcessTransport.ts) each request was still written as JSON by the SDK,
 * parsed by dynalite, answered as JSON and parsed back: measured per request (in-memory store,
 * sequential) that was 0.23 ms of CPU for a GetItem and 0.52 ms for a conditional UpdateItem,
 * against 0.05 and 0.18 ms for dynalite's own checks and action on the same objects. Here the
 * client's protocol hands the request's input to dynalite's `dispatch` (the checks and action
 * its HTTP handler runs, patches/dynalite+4.0.0.patch) as objects, and takes its answer back as
 * objects. Everything above the protocol still runs: the document client's marshalling, every
 * middleware that observes or fails requests, the retry strategy (its first attempt goes
 * straight to the store: `firstAttemptStraight`).
 *
 * What the wire did, and what stands for it here:
 * - Binary values travel as base64 strings: `toStore` encodes them as the SDK's serializer does
 *   (which is what dynalite validates), and `decodeOutput` decodes them as its deserializer does.
 * - JSON copied: dynalite deletes and rewrites keys of the object it is handed, so it gets a copy;
 *   its answer is freshly read from LevelDB and handed on, without the members JSON would drop.
 * - Errors: dynalite's error body goes through the SDK's own error deserializer, as over HTTP,
 *   so a failure is the same modeled exception with the same name, `$fault`, fields and status.
 * Control-plane operations (tables, time to live) go over the transport as before.
 */

const DIRECT = new Set(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchGetItem', 'BatchWriteItem']);

type Callback = (err: (Error & { statusCode?: number; body?: unknown }) | null, data?: Record<string, unknown>) => void;
/** dynalite's entry point beside its HTTP handler (patches/dynalite+4.0.0.patch). */
export type Dispatch = (operation: string, data: Record<string, unknown>, cb: Callback) => void;

type Coder = { base64Encoder: (bytes: Uint8Array) => string; base64Decoder: (text: string) => Uint8Array };

/** A data-plane request on its way to the transport: the operation and its input, unserialized. */
export class DirectRequest {
  constructor(
    readonly operation: string,
    readonly input: object,
    readonly coder: Coder,
  ) {}
}

/** dynalite's answer to a DirectRequest, before the protocol makes it the command's output. */
class DirectResponse {
  constructor(
    readonly output: Record<string, unknown>,
    readonly requestId: string,
    readonly coder: Coder,
  ) {}
}

type OperationSchema = { name: string };
type Protocol = {
  serializeRequest(operation: OperationSchema, input: object, context: Partial<Coder>): Promise<unknown>;
  deserializeResponse(operation: OperationSchema, context: Partial<Coder>, response: unknown): Promise<unknown>;
};

/**
 * The client's protocol, with data-plane operations turned into DirectRequests and their
 * DirectResponses into outputs; anything else (and every error) goes to the SDK's protocol.
 */
export function directProtocol<P extends object>(inner: P): P {
  const sdk = inner as unknown as Protocol;
  const overrides: Protocol = {
    serializeRequest: (operation, input, context) => {
      if (!DIRECT.has(operation.name) || !context.base64Encoder || !context.base64Decoder) return sdk.serializeRequest(operation, input, context);
      return Promise.resolve(new DirectRequest(operation.name, input, { base64Encoder: context.base64Encoder, base64Decoder: context.base64Decoder }));
    },
    deserializeResponse: (operation, context, response) => {
      if (!(response instanceof DirectResponse)) return sdk.deserializeResponse(operation, context, response);
      return Promise.resolve(directOutput(response));
    },
  };
  // The SDK's own protocol stays the prototype, so every other method (and its state) is its own.
  return Object.assign(Object.create(inner) as P, overrides);
}

function directOutput(response: DirectResponse): Record<string, unknown> {
  const output = fromStore(response.output);
  decodeOutput(output, response.coder.base64Decoder);
  output.$metadata = { httpStatusCode: 200, requestId: response.requestId, extendedRequestId: undefined, cfId: undefined };
  return output;
}

/**
 * The middleware that address, sign and frame an HTTP request: for a DirectRequest each either
 * passes it on untouched or works out what nothing reads (an endpoint from the client's whole
 * configuration, a signing identity), per request.
 */
const HTTP_ONLY = ['httpAuthSchemeMiddleware', 'endpointV2Middleware', 'contentLengthMiddleware', 'hostHeaderMiddleware', 'recursionDetectionMiddleware', 'httpSigningMiddleware'];

type Next = (args: object) => Promise<{ response: unknown; output?: unknown }>;
type Middleware = (next: Next, context: object) => (args: { input?: object }) => Promise<{ response: unknown; output?: unknown }>;
/** The part of the SDK's middleware stack used here (@smithy/core's constructStack). */
type Stack = {
  add(middleware: Middleware, options: { name: string; step: string; tags: string[]; override: boolean; priority?: string }): void;
  remove(name: string): boolean;
  applyToStack(target: object): unknown;
};

/**
 * Reshapes the stack a data-plane operation is resolved with (once per command class,
 * core/store/resolvedOnce.ts): without HTTP_ONLY, and with a serializer and a deserializer that
 * make the DirectRequest and read the DirectResponse themselves. The SDK's serde middlewares copy
 * the client's whole configuration and the request's context into one object per request, for a
 * protocol that reads two of its members here. A failure's response still goes to the SDK's own
 * deserializer. The middleware that observe and fail requests, the document client's marshalling
 * and the retry strategy stay where they were (the SDK's retry middleware behind a first attempt
 * that goes straight). Other operations are left as they are.
 */
export function directStack(stack: object, operation: string, config: object): void {
  const { base64Encoder, base64Decoder } = config as Partial<Coder>;
  if (!DIRECT.has(operation) || !base64Encoder || !base64Decoder) return;
  const coder: Coder = { base64Encoder, base64Decoder };
  const lean = stack as Stack;
  let sdkDeserializer: Middleware | undefined;
  let sdkRetry: Middleware | undefined;
  lean.applyToStack({
    add: (middleware: Middleware, options: { name?: string }) => {
      if (options.name === 'deserializerMiddleware') sdkDeserializer = middleware;
      if (options.name === 'retryMiddleware') sdkRetry = middleware;
    },
    addRelativeTo: () => {},
  });
  const fallback = sdkDeserializer;
  if (!fallback) return;
  for (const name of HTTP_ONLY) lean.remove(name);
  lean.add((next) => (args) => next({ ...args, request: new DirectRequest(operation, args.input ?? {}, coder) }), {
    name: 'serializerMiddleware',
    step: 'serialize',
    tags: ['SERIALIZER'],
    override: true,
  });
  lean.add(
    (next, context) => async (args) => {
      const answer = await next(args);
      if (answer.response instanceof DirectResponse) return { response: answer.response, output: directOutput(answer.response) };
      return fallback(() => Promise.resolve(answer), context)(args);
    },
    { name: 'deserializerMiddleware', step: 'deserialize', tags: ['DESERIALIZER'], override: true },
  );
  if (sdkRetry) lean.add(firstAttemptStraight(sdkRetry, config), { name: 'retryMiddleware', step: 'finalizeRequest', tags: ['RETRY'], priority: 'high', override: true });
}

/** The part of the SDK's standard retry strategy a first attempt needs (@smithy/util-retry). */
type RetryStrategy = { mode?: string; acquireInitialRetryToken(scope: string): Promise<unknown>; recordSuccess(token: unknown): void };

/**
 * The SDK's retry middleware, with a first attempt that goes straight to the store. Before it
 * sends anything, the SDK's middleware awaits its two providers and a retry token and builds an
 * `Error` (a stack trace) to hold the last failure: 4% of the main thread in the mass outage
 * (2026-11-28 profile), for a store in this process that fails only when its database does. Here
 * a first attempt's success is recorded with the strategy as the SDK records it (a first token's
 * success, which gives back the capacity a retried failure spent) and has the same `$metadata`;
 * a first attempt's failure is handed to the SDK's own middleware as its first attempt, so what
 * is retried, when and how often, and what the caller sees, are the SDK's. Only the standard
 * strategy goes straight: the adaptive one paces every first attempt by its rate limiter. Until
 * the strategy is known (the client's first request), every request takes the SDK's way.
 */
function firstAttemptStraight(sdkRetry: Middleware, config: object): Middleware {
  const provider = (config as { retryStrategy?: () => Promise<RetryStrategy> }).retryStrategy;
  let recordSuccess: (() => void) | undefined;
  let asked = false;
  const learn = async () => {
    const strategy = await provider?.();
    if (strategy?.mode !== 'standard') return;
    const token = await strategy.acquireInitialRetryToken('');
    recordSuccess = () => strategy.recordSuccess(token);
  };
  return (next, context) => {
    const viaSdk = sdkRetry(next, context);
    return (args) => {
      const recorded = recordSuccess;
      if (!recorded) {
        if (!asked) {
          asked = true;
          learn().catch(() => {});
        }
        return viaSdk(args);
      }
      return next(args).then(
        (answer) => {
          recorded();
          const metadata = (answer.output as { $metadata?: Record<string, unknown> } | undefined)?.$metadata;
          if (metadata) {
            metadata.attempts = 1;
            metadata.totalRetryDelay = 0;
          }
          return answer;
        },
        (failure: unknown) => {
          let replayed = false;
          return sdkRetry((again) => {
            if (replayed) return next(again);
            replayed = true;
            return Promise.reject(failure);
          }, context)(args);
        },
      );
    };
  };
}

let requests = 0;

/**
 * Answers a DirectRequest with dynalite's dispatch: a DirectResponse, or for a failure the
 * response dynalite's HTTP handler would have sent (its status and JSON body), for the SDK to read.
 */
export function answerDirect(dispatch: Dispatch, request: DirectRequest): Promise<{ response: DirectResponse | HttpResponse }> {
  return new Promise((resolve, reject) => {
    // A request id as the store's HTTP handler sets one; nothing reads it but a person debugging.
    const requestId = `direct-${++requests}`;
    const data = toStore(request.input, request.coder.base64Encoder) as Record<string, unknown>;
    try {
      dispatch(request.operation, data, (err, out) => {
        if (!err) resolve({ response: new DirectResponse(out ?? {}, requestId, request.coder) });
        else if (err.statusCode) resolve({ response: jsonResponse(err.statusCode, err.body, requestId) });
        // An internal failure (a closed or failing LevelDB), as the patched HTTP handler answers it.
        else resolve({ response: jsonResponse(500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(err.message || err) }, requestId) });
      });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

function jsonResponse(statusCode: number, body: unknown, requestId: string): HttpResponse {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  return new HttpResponse({
    statusCode,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId },
    body: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  });
}

/**
 * The input as the SDK's JSON serializer would have written it and dynalite parsed it: a copy
 * without null or undefined members, binary values (`B`, `BS`) as base64 strings.
 */
function toStore(value: unknown, encode: Coder['base64Encoder'], key?: string): unknown {
  if (value instanceof Uint8Array) return encode(value);
  if (Array.isArray(value)) {
    // An attribute value's binary set: the SDK encodes each member, bytes or a string's UTF-8.
    if (key === 'BS') return value.map((member) => (member instanceof Uint8Array ? encode(member) : encode(Buffer.from(String(member), 'utf8'))));
    return value.map((member) => toStore(member, encode));
  }
  if (value === null || typeof value !== 'object') return value;
  const scalar = scalarCopy(value as Record<string, unknown>);
  if (scalar) return scalar;
  const out: Record<string, unknown> = {};
  for (const name in value) {
    const member = (value as Record<string, unknown>)[name];
    if (member != null) out[name] = toStore(member, encode, name);
  }
  return out;
}

/**
 * dynalite's answer as JSON would have carried it: members it left undefined (an unasked-for
 * `ConsumedCapacity`, its `Table`) absent, and the last evaluated key its own objects rather than
 * the last item's attribute values.
 */
function fromStore(answer: Record<string, unknown>): Record<string, unknown> {
  const output = defined(answer);
  const capacity = output.ConsumedCapacity;
  if (Array.isArray(capacity)) output.ConsumedCapacity = capacity.map((entry: Record<string, unknown>) => defined(entry));
  else if (capacity && typeof capacity === 'object') output.ConsumedCapacity = defined(capacity as Record<string, unknown>);
  const lastKey = output.LastEvaluatedKey as Record<string, object> | undefined;
  if (lastKey) {
    const copy: Record<string, object> = {};
    for (const name in lastKey) copy[name] = { ...lastKey[name] };
    output.LastEvaluatedKey = copy;
  }
  return output;
}

function defined(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name in object) if (object[name] !== undefined) out[name] = object[name];
  return out;
}

type Item = Record<string, AttributeValue>;
type AttributeValue = { B?: unknown; BS?: unknown; L?: unknown; M?: unknown; S?: string; N?: string; BOOL?: boolean; NULL?: boolean };
type Decode = Coder['base64Decoder'];

/**
 * Wherever an output holds items or keys: binary values back to bytes, as the SDK's deserializer
 * does, and plain objects where dynalite built items without Object's prototype (its projections
 * and an update's new item), as JSON would have given them.
 */
function decodeOutput(output: Record<string, unknown>, decode: Decode): void {
  const list = (items: unknown) => (Array.isArray(items) ? items.map((item: Item) => plainItem(item, decode)) : items);
  const { Item, Attributes, Items, LastEvaluatedKey, Responses, UnprocessedKeys, UnprocessedItems } = output as Record<string, Record<string, unknown> | undefined>;
  if (Item) output.Item = plainItem(Item as Item, decode);
  if (Attributes) output.Attributes = plainItem(Attributes as Item, decode);
  if (LastEvaluatedKey) output.LastEvaluatedKey = plainItem(LastEvaluatedKey as Item, decode);
  if (Items) output.Items = list(Items);
  for (const table in Responses) Responses[table] = list(Responses[table]);
  for (const table in UnprocessedKeys) {
    const request = UnprocessedKeys[table] as { Keys?: unknown };
    request.Keys = list(request.Keys);
  }
  for (const table in UnprocessedItems) {
    for (const request of UnprocessedItems[table] as { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]) {
      if (request.PutRequest) request.PutRequest.Item = plainItem(request.PutRequest.Item, decode);
      if (request.DeleteRequest) request.DeleteRequest.Key = plainItem(request.DeleteRequest.Key, decode);
    }
  }
}

function plainItem(item: Item, decode: Decode): Item {
  const out = notPlain(item) ? { ...item } : item;
  for (const name in out) out[name] = plainValue(out[name] as AttributeValue, decode);
  return out;
}

function plainValue(value: AttributeValue, decode: Decode): AttributeValue {
  const copy = notPlain(value);
  const scalar = copy ? scalarCopy(value as Record<string, unknown>) : undefined;
  if (scalar) return scalar;
  const out = copy ? { ...value } : value;
  if (typeof out.B === 'string') out.B = decode(out.B);
  if (Array.isArray(out.BS)) out.BS = out.BS.map((member: string) => decode(member));
  if (Array.isArray(out.L)) out.L = out.L.map((member: AttributeValue) => plainValue(member, decode));
  if (out.M && typeof out.M === 'object') out.M = plainItem(out.M as Item, decode);
  return out;
}

/**
 * Whether dynalite built this object itself rather than parsing it from JSON: without a prototype
 * (its projections) or on an empty one of its own (an update's new item, patches/dynalite+4.0.0.patch).
 */
const notPlain = (object: object): boolean => Object.getPrototypeOf(object) !== Object.prototype;

/**
 * A copy of an attribute value whose one member is a string or a boolean (`S`, `N`, `BOOL`,
 * `NULL`: nearly every value of every item), made as a literal; undefined for anything else. The
 * generic copies above add each member by name, which for the ~30 values of an item cost more
 * than the copy itself (measured: .scratch/storeLoop.ts, docs/adr/0010-embedded-store-patch.md).
 */
function scalarCopy(value: Record<string, unknown>): AttributeValue | undefined {
  let name: string | undefined;
  for (const key in value) {
    if (name !== undefined) return undefined;
    name = key;
  }
  if (name === undefined) return undefined;
  const member = value[name];
  switch (name) {
    case 'S':
      return typeof member === 'string' ? { S: member } : undefined;
    case 'N':
      return typeof member === 'string' ? { N: member } : undefined;
    case 'BOOL':
      return typeof member === 'boolean' ? { BOOL: member } : undefined;
    case 'NULL':
      return typeof member === 'boolean' ? { NULL: member } : undefined;
  }
  return undefined;
}
