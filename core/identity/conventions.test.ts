import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';

/** The API's conventions through the real app: error shape, OpenAPI documents, rate limits (docs/guide/access.md). */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

/** Moves the clock to `offsetSeconds` after the start of the next fixed window. */
function startOfNextWindow(windowSeconds: number, offsetSeconds = 1): void {
  const windowMs = windowSeconds * 1000;
  const next = Math.floor(t.clock.now().getTime() / windowMs) * windowMs + windowMs;
  t.clock.set(new Date(next + offsetSeconds * 1000));
}

describe('error shape on every failure', () => {
  it('unknown routes are 404 and wrong methods 405 with Allow', async () => {
    const user = await t.signup('conv-routes');
    const unknown = expectError(await t.request('GET', '/no-such-thing', { token: user.token }), 404, 'NOT_FOUND');
    expect(unknown.message).toContain('/api/no-such-thing');
    expectError(await t.request('GET', '/no-such-thing'), 404, 'NOT_FOUND');
    const wrong = await t.request('PUT', `/workspaces/${user.workspaceId}`, { token: user.token, body: { name: 'x' } });
    expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
    expect(wrong.headers.get('allow')).toContain('PATCH');
    expectError(await t.request('DELETE', '/workspaces', { token: user.token }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await t.request('PUT', `/alert-channels/1/test`, { token: user.token }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('a body that is not JSON is 415, malformed JSON is 400, validation is 400 with field details', async () => {
    const user = await t.signup('conv-bodies');
    expectError(
      await t.request('POST', '/projects', { token: user.token, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(await t.request('PATCH', `/workspaces/${user.workspaceId}`, { token: user.token, rawBody: '{"name":"x"}', headers: { 'content-type': 'text/plain' } }), 415);
    expectError(await t.request('POST', '/alert-channels', { token: user.token, rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    expectError(await t.request('POST', '/workspaces', { token: user.token, rawBody: '[1,2', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    expectError(await t.request('POST', '/oauth/token', { rawBody: '{"grant_type":', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    expectError(await t.request('POST', '/workspaces', { token: user.token, body: ['not', 'an', 'object'] }), 400, 'VALIDATION_ERROR');
    const res = await t.request('POST', `/workspaces/${user.workspaceId}/members`, { token: user.token, body: { email: 'nope', role: 'KING', extra: true } });
    const err = expectError(res, 400, 'VALIDATION_ERROR') as { details?: { path: string; message: string }[] };
    expect(err.details?.map((d) => d.path)).toEqual(expect.arrayContaining(['email', 'role']));
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
    const projects = await t.request<unknown[]>('GET', '/projects', { token: user.token });
    expect(projects.body).toHaveLength(1);
  });

  it('lists HEAD in Allow wherever GET is served', async () => {
    const wrong = await t.request('PUT', '/signals/ping/some-token');
    expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
    expect(wrong.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST']));
  });

  it('refuses to delete a project that still has checks (409), then deletes it once they are gone', async () => {
    const user = await t.signup('conv-project');
    const project = await t.request<{ id: number }>('POST', '/projects', { token: user.token, body: { name: 'doomed' } });
    const check = await t.request<{ id: number }>('POST', '/checks', {
      token: user.token,
      body: { name: 'job', projectId: project.body.id, intervalSeconds: 300, graceSeconds: 60 },
    });
    expect(check.status).toBe(201);
    expectError(await t.request('DELETE', `/projects/${project.body.id}`, { token: user.token }), 409);
    expect((await t.request('GET', `/projects/${project.body.id}`, { token: user.token })).status).toBe(200);
    expect((await t.request('DELETE', `/checks/${check.body.id}`, { token: user.token })).status).toBe(204);
    expect((await t.request('DELETE', `/projects/${project.body.id}`, { token: user.token })).status).toBe(204);
  });

  it('a body over 1 MiB is 413 in the error shape and creates nothing', async () => {
    const user = await t.signup('conv-huge');
    const huge = JSON.stringify({ name: 'big', description: 'x'.repeat(1024 * 1024) });
    const res = await t.request('POST', '/projects', { token: user.token, rawBody: huge, headers: { 'content-type': 'application/json' } });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    const projects = await t.request<unknown[]>('GET', '/projects', { token: user.token });
    expect(projects.body).toHaveLength(1);
  });

  it('a missing or garbage credential is 401 in the error shape', async () => {
    expectError(await t.request('GET', '/workspaces'), 401, 'UNAUTHORIZED');
    expectError(await t.request('GET', '/alert-channels', { token: 'not-a-token' }), 401);
    expectError(await t.request('GET', '/workspaces', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401);
    expectError(await t.request('GET', '/v1/whoami'), 401);
  });
});

describe('OpenAPI documents generated from the zod schemas', () => {
  it('serves the dashboard document at /api/openapi.json', async () => {
    const res = await t.request<{ openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } }>('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body.openapi).toBe('3.1.0');
    const paths = Object.keys(res.body.paths);
    for (const path of [
      '/projects',
      '/projects/{id}',
      '/api-keys',
      '/workspaces',
      '/workspaces/{id}',
      '/workspaces/{id}/members',
      '/workspaces/{id}/members/{userId}',
      '/alert-channels',
      '/alert-channels/{id}/test',
      '/auth/signup',
      '/oauth/token',
      '/auth/password',
      '/auth/logout',
      '/me',
    ]) {
      expect(paths, path).toContain(path);
    }
    expect(Object.keys(res.body.paths['/workspaces/{id}'] ?? {})).toEqual(expect.arrayContaining(['get', 'patch']));
    expect(Object.keys(res.body.components.schemas)).toEqual(expect.arrayContaining(['WorkspaceDetail', 'Member', 'AlertChannelCreate', 'PlanLimits', 'ApiKeyCreated']));
  });

  it('serves the integration document at /api/v1/openapi.json without a key', async () => {
    const res = await t.request<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/whoami', '/projects', '/projects/{id}']));
  });
});

describe('rate limits (fixed window in the table)', () => {
  it('allows 100 dashboard requests per 60 s per user, then 429 with Retry-After, then recovers', async () => {
    const user = await t.signup('conv-limit');
    startOfNextWindow(60, 10);
    for (let i = 1; i <= 100; i++) {
      const res = await t.request('GET', '/workspaces', { token: user.token });
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('100');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(100 - i));
      expect(res.headers.get('ratelimit-reset')).toBe('50');
    }
    const limited = await t.request('GET', `/workspaces/${user.workspaceId}`, { token: user.token });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('50');
    expect(limited.headers.get('ratelimit-limit')).toBe('100');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toBe('50');
    // Another user is counted separately.
    const other = await t.signup('conv-limit-other');
    expect((await t.request('GET', '/workspaces', { token: other.token })).status).toBe(200);
    t.clock.advanceSeconds(50);
    const recovered = await t.request('GET', '/workspaces', { token: user.token });
    expect(recovered.status).toBe(200);
    expect(recovered.headers.get('ratelimit-remaining')).toBe('99');
  });

  it('limits sign-up and token requests per client address', async () => {
    startOfNextWindow(60);
    const ip = '203.0.113.9';
    for (let i = 0; i < 20; i++) {
      const res = await t.request('POST', '/oauth/token', { headers: { 'x-test-ip': ip }, body: { grant_type: 'refresh_token', refresh_token: 'nope' } });
      expect(res.status).toBe(401);
    }
    const limited = await t.request('POST', '/auth/signup', { headers: { 'x-test-ip': ip }, body: { email: 'limited@example.com', password: 'long enough password' } });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Nothing was created by the refused sign-up.
    t.clock.advanceSeconds(60);
    const later = await t.request('POST', '/auth/signup', { headers: { 'x-test-ip': ip }, body: { email: 'limited@example.com', password: 'long enough password' } });
    expect(later.status).toBe(201);
  });
});
