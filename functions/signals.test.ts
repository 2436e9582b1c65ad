import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { awsPingDeps } from '../core/adapters/aws/pingDeps.js';
import { createApp } from '../core/app.js';
import { createSignalApp, SIGNAL_APP_PREFIX } from '../core/signalApp.js';
import { createJob } from '../test/support/signals.js';
import { createTestContext, type TestContext } from '../test/harness.js';
import { httpApiEvent, type LambdaHandler } from '../test/support/httpApiEvent.js';
import { signalsHandler } from './signals.js';

const SIGNALS_ROUTE = 'ANY /api/signals/ping/{proxy+}';

describe('functions/signals.ts: the signal app behind API Gateway', () => {
  let t: TestContext;
  let lambda: LambdaHandler;

  beforeAll(async () => {
    // The dashboard and v1 writes go through createApp (t.request); pings through the Lambda, on the same Deps.
    t = await createTestContext();
    lambda = signalsHandler(t.deps) as LambdaHandler;
  });

  it('answers a ping to an unknown token with 404 CHECK_NOT_FOUND in the error shape', async () => {
    const res = await lambda(httpApiEvent('GET', '/api/signals/ping/no-such-token', { routeKey: SIGNALS_ROUTE }));
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ statusCode: 404, message: expect.any(String), error: 'Not Found', code: 'CHECK_NOT_FOUND' });
  });

  it('records pings to a real check (GET, and a POST with a text body) and answers 200 OK', async () => {
    const user = await t.signup();
    const key = await t.apiKey(user);
    const job = await createJob(t, user, key);

    const get = await lambda(httpApiEvent('GET', `/api/signals/ping/${job.token}`, { routeKey: SIGNALS_ROUTE }));
    expect(get.statusCode).toBe(200);
    expect(JSON.parse(get.body)).toEqual({ message: 'OK' });
    t.clock.advanceSeconds(2); // past the ping dedup window
    const post = await lambda(
      httpApiEvent('POST', `/api/signals/ping/${job.token}/fail`, { routeKey: SIGNALS_ROUTE, rawBody: 'disk full', headers: { 'content-type': 'text/plain' } }),
    );
    expect(post.statusCode).toBe(200);

    const history = await t.request<{ items: { type: string; sourceIp: string }[] }>('GET', `/signals/token/${job.token}`, { token: user.token });
    expect(history.status).toBe(200);
    expect(history.body.items.map((signal) => signal.type)).toEqual(['FAIL', 'SUCCESS']);
    expect(history.body.items[0]?.sourceIp).toBe('203.0.113.9');
    expect((await t.request<{ status: string }>('GET', `/v1/jobs/${job.id}`, { token: key })).body.status).toBe('DOWN');
  });

  it('leaves slug pings to the API Lambda, which serves them with the API key in the header', async () => {
    // A slug ping authenticates a key, finds the check by slug and
    // may create the job, i.e. the full app's modules; in the ping Lambda they tripled its cold
    // start. stacks/ApiStack.ts routes only /api/signals/ping here, the rest of /api to the API Lambda.
    const user = await t.signup();
    const key = await t.apiKey(user);
    await createJob(t, user, key, { slug: 'nightly-backup' });
    const here = await lambda(httpApiEvent('POST', '/api/signals/s/nightly-backup', { headers: { authorization: `Bearer ${key}` } }));
    expect(here.statusCode).toBe(404);
    expect(JSON.parse(here.body)).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    const api = await t.request('POST', '/signals/s/nightly-backup', { token: key });
    expect(api.status).toBe(200);
    expect(api.body).toEqual({ message: 'OK' });
  });

  it('serves the same token ping forms as the full app: exit codes, /log and ?rid (slug forms on the API app)', async () => {
    const user = await t.signup();
    const key = await t.apiKey(user);
    const job = await createJob(t, user, key, { slug: 'lambda-exit-codes' });
    const rid = '3f2c1d9e-8b7a-4c6d-9e0f-1a2b3c4d5e6f';
    const sent: [string, string, number][] = [
      ['POST', `/api/signals/ping/${job.token}/start?rid=${rid}`, 200],
      ['POST', `/api/signals/ping/${job.token}/log`, 200],
      ['POST', `/api/signals/ping/${job.token}/3?rid=${rid}`, 200],
      ['POST', `/api/signals/ping/${job.token}/256`, 400],
      ['POST', `/api/signals/ping/${job.token}/restart`, 404],
      ['POST', `/api/signals/s/lambda-exit-codes/0`, 200],
      ['POST', `/api/signals/s/lambda-exit-codes/log`, 200],
      ['POST', `/api/signals/s/lambda-exit-codes/300`, 400],
    ];
    for (const [method, path, status] of sent) {
      const [pathname, query] = path.split('?');
      if (pathname?.startsWith('/api/signals/s/')) {
        // Slug pings are the API Lambda's (they need the key, the job by slug, maybe a new job).
        const res = await t.request(method, pathname.slice('/api'.length), { token: key });
        expect(res.status, path).toBe(status);
      } else {
        const res = await lambda(httpApiEvent(method, pathname ?? path, { routeKey: SIGNALS_ROUTE, ...(query ? { query } : {}) }));
        expect(res.statusCode, path).toBe(status);
      }
      t.clock.advanceSeconds(2); // past the dedup window
    }
    const history = await t.request<{ items: { type: string; durationMs: number | null; details: Record<string, unknown> | null }[] }>('GET', `/signals/token/${job.token}`, {
      token: user.token,
    });
    expect(history.body.items.map((s) => [s.type, s.details?.exitCode ?? null])).toEqual([
      ['LOG', null],
      ['SUCCESS', 0],
      ['FAIL', 3],
      ['LOG', null],
      ['START', null],
    ]);
    expect(history.body.items[2]?.durationMs).toBe(4000);
  });

  it('serves nothing but token pings (and health), with the same 404 and 405', async () => {
    const user = await t.signup();
    for (const path of ['/api/me', '/api/v1/jobs', '/api/incidents', '/api/openapi.json', '/api/signals/token/abc', '/api/signals/sse', '/api/signals/p/key/slug']) {
      const res = await lambda(httpApiEvent('GET', path, { headers: { authorization: `Bearer ${user.token}` } }));
      expect(res.statusCode, path).toBe(404);
      expect(JSON.parse(res.body)).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'NOT_FOUND' });
    }
    expect((await lambda(httpApiEvent('GET', '/api/health'))).statusCode).toBe(200);
    const wrongMethod = await lambda(httpApiEvent('DELETE', '/api/signals/ping/some-token', { routeKey: SIGNALS_ROUTE }));
    expect(wrongMethod.statusCode).toBe(405);
    expect(JSON.parse(wrongMethod.body)).toMatchObject({ statusCode: 405, code: 'METHOD_NOT_ALLOWED' });
  });
});

describe('the ping Lambda and the API app serve the same token pings', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });

  const pingRoutes = (routes: readonly { method: string; path: string }[]) =>
    [...new Set(routes.filter((route) => route.path.startsWith(`${SIGNAL_APP_PREFIX}/`) && route.method !== 'ALL').map((route) => `${route.method} ${route.path}`))].sort();

  it('registers the same ping routes in both apps, under the one prefix the stack routes to the Lambda', () => {
    // A ping path added to one app only (an exit code, /log) fails here: add it to both, or to PING_VARIANTS.
    const api = pingRoutes(createApp(t.deps).routes);
    const lambda = pingRoutes(createSignalApp(t.deps).routes);
    expect(lambda.length).toBeGreaterThanOrEqual(6);
    expect(lambda).toEqual(api);
    // stacks/home.test.ts pins the one route the stack sends to the Lambda to this same prefix.
    expect(SIGNAL_APP_PREFIX).toBe('/api/signals/ping');
  });

  it('answers every ping route alike: unknown tokens, bad tokens, a real check (through the one ingest)', async () => {
    const user = await t.signup();
    const key = await t.apiKey(user);
    const job = await createJob(t, user, key);
    const lambda = signalsHandler(t.deps) as LambdaHandler;
    const paths = pingRoutes(createSignalApp(t.deps).routes).map((route) => route.split(' ') as [string, string]);
    for (const [method, pattern] of paths) {
      for (const token of ['no-such-token', 'bad token!', job.token]) {
        const path = pattern.replace(':token', encodeURIComponent(token)).replace(':exitCode', '3');
        t.clock.advanceSeconds(2); // past the dedup window
        const viaLambda = await lambda(
          httpApiEvent(method, path, { routeKey: 'ANY /api/signals/ping/{proxy+}', ...(method === 'POST' ? { rawBody: 'x', headers: { 'content-type': 'text/plain' } } : {}) }),
        );
        t.clock.advanceSeconds(2);
        const viaApi = await t.request(method, path.slice('/api'.length), method === 'POST' ? { rawBody: 'x', headers: { 'content-type': 'text/plain' } } : {});
        expect([viaLambda.statusCode, JSON.parse(viaLambda.body)], `${method} ${path}`).toEqual([viaApi.status, viaApi.body]);
      }
    }
    const history = await t.request<{ total: number }>('GET', `/signals/token/${job.token}`, { token: user.token });
    expect(history.body.total).toBe(paths.length * 2);
  });
});

describe('functions/signals.ts over awsPingDeps (its cold-start Deps) against the table', () => {
  let t: TestContext;
  const sqs = mockClient(SQSClient);
  beforeAll(async () => {
    t = await createTestContext();
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [{ Id: '0', MessageId: 'm', MD5OfMessageBody: 'x' }], Failed: [] });
  });
  afterAll(() => sqs.restore());

  it('records a ping, moves the check and relays its status change to the incidents queue', async () => {
    const user = await t.signup();
    const key = await t.apiKey(user);
    const job = await createJob(t, user, key);
    const deps = awsPingDeps({
      VIGIL_TABLE_NAME: t.deps.store.table,
      VIGIL_DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      VIGIL_QUEUE_URL_INCIDENTS: 'https://sqs.us-east-1.amazonaws.com/123456789012/test-vigil-incidents',
    });
    const lambda = signalsHandler(deps) as LambdaHandler;
    const res = await lambda(httpApiEvent('GET', `/api/signals/ping/${job.token}`, { routeKey: 'ANY /api/signals/ping/{proxy+}' }));
    expect(res.statusCode, res.body).toBe(200);
    expect((await t.request<{ status: string }>('GET', `/v1/jobs/${job.id}`, { token: key })).body.status).toBe('OK');
    const sent = sqs.commandCalls(SendMessageBatchCommand).flatMap((call) => call.args[0].input.Entries ?? []);
    const bodies = sent.map((entry) => JSON.parse(entry.MessageBody ?? '{}') as { type: string; checkId: number; from: string; to: string });
    expect(bodies).toContainEqual(expect.objectContaining({ type: 'check.status_changed', checkId: job.id, from: 'NEW', to: 'OK' }));
    expect((await lambda(httpApiEvent('GET', '/api/signals/ping/no-such-token'))).statusCode).toBe(404);
  });
});
