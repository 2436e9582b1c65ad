import type { LambdaEvent } from 'hono/aws-lambda';
import { ulid } from 'ulid';

/** What `handle(app)` answers an API Gateway event with. */
export type LambdaHandler = (event: LambdaEvent) => Promise<{ statusCode: number; body: string; headers?: Record<string, string> }>;

export type HttpApiEventOptions = { body?: unknown; rawBody?: string; query?: string; routeKey?: string; headers?: Record<string, string> };

/**
 * An API Gateway HTTP API (payload 2.0) event, as a route such as `ANY /api/{proxy+}` delivers it
 * (test support for the entry points). `body` is sent as JSON, `rawBody` as it is.
 */
export function httpApiEvent(method: string, path: string, options: HttpApiEventOptions = {}): LambdaEvent {
  const body = options.rawBody ?? (options.body === undefined ? null : JSON.stringify(options.body));
  const routeKey = options.routeKey ?? 'ANY /api/{proxy+}';
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: options.query ?? '',
    headers: {
      host: 'abc123.execute-api.us-east-1.amazonaws.com',
      'user-agent': 'vitest',
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authentication: null,
      authorizer: {},
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'vitest' },
      requestId: ulid(),
      routeKey,
      stage: '$default',
      time: '01/Mar/2026:12:00:00 +0000',
      timeEpoch: Date.parse('2026-03-01T12:00:00Z'),
    },
    body,
    isBase64Encoded: false,
  };
}
