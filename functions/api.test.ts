import type { LambdaEvent } from 'hono/aws-lambda';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoClient, ensureTable } from '../core/store/client.js';

type Handler = (event: LambdaEvent) => Promise<{ statusCode: number; body: string; headers?: Record<string, string> }>;

/** An API Gateway HTTP API (payload 2.0) event, as the `ANY /api/{proxy+}` route delivers it. */
function httpApiEvent(method: string, path: string, options: { body?: unknown; query?: string; routeKey?: string } = {}): LambdaEvent {
  const body = options.body === undefined ? null : JSON.stringify(options.body);
  return {
    version: '2.0',
    routeKey: options.routeKey ?? 'ANY /api/{proxy+}',
    rawPath: path,
    rawQueryString: options.query ?? '',
    headers: {
      host: 'abc123.execute-api.us-east-1.amazonaws.com',
      'user-agent': 'vitest',
      ...(body !== null ? { 'content-type': 'application/json' } : {}),
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
      routeKey: options.routeKey ?? 'ANY /api/{proxy+}',
      stage: '$default',
      time: '01/Mar/2026:12:00:00 +0000',
      timeEpoch: Date.parse('2026-03-01T12:00:00Z'),
    },
    body,
    isBase64Encoded: false,
  };
}

describe('functions/api.ts behind API Gateway', () => {
  let handler: Handler;
  let signalsHandler: Handler;

  beforeAll(async () => {
    // The entry points build their Deps from the environment at import, as on a cold start.
    const table = `t_${ulid()}`;
    process.env.VIGIL_TABLE_NAME = table;
    process.env.VIGIL_DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
    await ensureTable(createDynamoClient({ endpoint: inject('dynamoEndpoint') }), table);
    handler = (await import('./api.js')).handler as Handler;
    signalsHandler = (await import('./signals.js')).handler as Handler;
  });

  it('answers /api/health with 200', async () => {
    const res = await handler(httpApiEvent('GET', '/api/health'));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
  });

  it('answers an unknown path with the spec error body', async () => {
    const res = await handler(httpApiEvent('GET', '/api/no-such-thing', { query: 'a=1' }));
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'NOT_FOUND' });
  });

  it('carries a JSON body through to a write (sign-up) and validation to a 400', async () => {
    const email = `lambda-${ulid().toLowerCase()}@example.com`;
    const created = await handler(httpApiEvent('POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } }));
    expect(created.statusCode).toBe(201);
    expect(JSON.parse(created.body)).toMatchObject({ user: { email }, token_type: 'Bearer' });

    const invalid = await handler(httpApiEvent('POST', '/api/auth/signup', { body: { email: 'not-an-email', password: 'x', extra: 1 } }));
    expect(invalid.statusCode).toBe(400);
    expect(JSON.parse(invalid.body)).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR' });
  });

  it('serves the signal routes from functions/signals.ts with the same error shape', async () => {
    const res = await signalsHandler(httpApiEvent('GET', '/api/signals/no-such-route', { routeKey: 'ANY /api/signals/{proxy+}' }));
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 404 });
  });
});
