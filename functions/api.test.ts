import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoClient, ensureTable } from '../core/store/client.js';
import { httpApiEvent, type LambdaHandler as Handler } from '../test/support/httpApiEvent.js';

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
