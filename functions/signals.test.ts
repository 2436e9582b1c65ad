import { beforeAll, describe, expect, it } from 'vitest';
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

  it('serves slug pings with the API key in the header', async () => {
    const user = await t.signup();
    const key = await t.apiKey(user);
    await createJob(t, user, key, { slug: 'nightly-backup' });
    const res = await lambda(
      httpApiEvent('POST', '/api/signals/s/nightly-backup', { routeKey: 'ANY /api/signals/s/{proxy+}', headers: { authorization: `Bearer ${key}` } }),
    );
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ message: 'OK' });
  });

  it('serves the same ping forms as the full app: exit codes, /log and ?rid (token and slug)', async () => {
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
      const routeKey = pathname?.startsWith('/api/signals/s/') ? 'ANY /api/signals/s/{proxy+}' : SIGNALS_ROUTE;
      const res = await lambda(httpApiEvent(method, pathname ?? path, { routeKey, ...(query ? { query } : {}), headers: { authorization: `Bearer ${key}` } }));
      expect(res.statusCode, path).toBe(status);
      t.clock.advanceSeconds(2); // past the dedup window
    }
    const history = await t.request<{ items: { type: string; durationMs: number | null; details: Record<string, unknown> | null }[] }>('GET', `/signals/token/${job.token}`, { token: user.token });
    expect(history.body.items.map((s) => [s.type, s.details?.exitCode ?? null])).toEqual([
      ['LOG', null],
      ['SUCCESS', 0],
      ['FAIL', 3],
      ['LOG', null],
      ['START', null],
    ]);
    expect(history.body.items[2]?.durationMs).toBe(4000);
  });

  it('serves nothing but the signal routes (and health), with the same 404 and 405', async () => {
    const user = await t.signup();
    for (const path of ['/api/me', '/api/v1/jobs', '/api/incidents', '/api/openapi.json']) {
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
