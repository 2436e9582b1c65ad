import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import { checkOf, createJob, signalsOf } from '../../test/support/signals.js';

let t: TestContext;
let user: Awaited<ReturnType<TestContext['signup']>>;
let service: string;
let ping: string;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.signup('slugger');
  service = await t.apiKey(user);
  ping = await t.apiKey(user, { kind: 'ping' });
});

const SUNSET = 'Sun, 11 Apr 2027 00:00:00 GMT';

describe('slug pings (API key header)', () => {
  it('pings the job with that slug with a service or a ping key, including /start and /fail', async () => {
    const { id, token } = await createJob(t, user, service, { slug: 'nightly-backup' });
    expect(await t.request('POST', '/signals/s/nightly-backup', { token: service })).toMatchObject({ status: 200, body: { message: 'OK' } });
    t.clock.advanceSeconds(2);
    expect((await t.request('GET', '/signals/s/nightly-backup/start', { token: ping })).status).toBe(200);
    t.clock.advanceSeconds(2);
    expect((await t.request('POST', '/signals/s/nightly-backup/fail', { token: ping, rawBody: 'exit 3' })).status).toBe(200);
    expect((await signalsOf(t, id)).map((s) => [s.type, s.durationMs, s.payload])).toEqual([
      ['SUCCESS', undefined, undefined],
      ['START', undefined, undefined],
      ['FAIL', 2000, 'exit 3'],
    ]);
    expect((await checkOf(t, token)).status).toBe('DOWN');
  });

  it('401s a missing, malformed, unknown or disabled key and 403s a read_only key', async () => {
    await createJob(t, user, service, { slug: 'guarded' });
    expectError(await t.request('POST', '/signals/s/guarded'), 401);
    expectError(await t.request('POST', '/signals/s/guarded', { token: 'garbage' }), 401);
    expectError(await t.request('POST', '/signals/s/guarded', { token: `${service.slice(0, -4)}abcd` }), 401);
    expectError(await t.request('POST', '/signals/s/guarded', { token: user.token }), 401);
    const readOnly = await t.apiKey(user, { permission: 'read_only' });
    expectError(await t.request('POST', '/signals/s/guarded', { token: readOnly }), 403);
    const disabled = await t.apiKey(user);
    expect((await t.request('POST', '/signals/s/guarded', { token: disabled })).status).toBe(200);
    const keys = await t.request<{ id: number; lastFour: string }[]>('GET', `/api-keys?workspaceId=${user.workspaceId}`, { token: user.token });
    const entry = keys.body.find((k) => disabled.endsWith(k.lastFour));
    expect((await t.request('PATCH', `/api-keys/${entry?.id}`, { token: user.token, body: { enabled: false } })).status).toBe(200);
    expectError(await t.request('POST', '/signals/s/guarded', { token: disabled }), 401);
  });

  it('404s an unknown slug, and a slug of another workspace', async () => {
    expectError(await t.request('POST', '/signals/s/no-such-job', { token: service }), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('POST', '/signals/s/Not%20A%20Slug', { token: service }), 404, 'CHECK_NOT_FOUND');
    const other = await t.signup('other');
    const otherKey = await t.apiKey(other);
    await createJob(t, other, otherKey, { slug: 'theirs' });
    expectError(await t.request('POST', '/signals/s/theirs', { token: service }), 404, 'CHECK_NOT_FOUND');
  });

  it('does not ping an outbound check by its slug: 404, and 409 SLUG_TAKEN with create=1', async () => {
    const made = await t.request('POST', '/v1/checks', {
      token: service,
      body: { name: 'web', projectId: user.projectId, slug: 'web-check', config: { url: 'https://example.com/' } },
    });
    expect(made.status).toBe(201);
    expectError(await t.request('POST', '/signals/s/web-check', { token: service }), 404, 'CHECK_NOT_FOUND');
    expectError(await t.request('POST', '/signals/s/web-check?create=1', { token: service }), 409, 'SLUG_TAKEN');
  });

  it("counts slug pings against the key's request budget (100 per 60 s), unknown slugs included", async () => {
    const key = await t.apiKey(user);
    t.clock.advanceSeconds(60);
    for (let i = 0; i < 100; i++) expectError(await t.request('POST', `/signals/s/missing-${i}`, { token: key }), 404);
    const refused = await t.request('POST', '/signals/s/missing-last', { token: key });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('Retry-After')).not.toBeNull();
  });

  it('create=1 creates the job on its first ping (201), then pings it (200)', async () => {
    const first = await t.request('POST', '/signals/s/auto-made?create=1', { token: service });
    expect(first.status).toBe(201);
    const made = await t.request<{ id: number; status: string; projectId: number; token: string }>('GET', '/v1/jobs/slug:auto-made', { token: service });
    expect(made.body).toMatchObject({ status: 'OK', projectId: user.projectId });
    t.clock.advanceSeconds(2);
    expect((await t.request('POST', '/signals/s/auto-made?create=1', { token: service })).status).toBe(200);
    expect(await signalsOf(t, made.body.id)).toHaveLength(2);
  });

  it('create=1 honours project=<id>, 404s a foreign project, 400s junk, creates nothing on 413', async () => {
    const project = await t.request<{ id: number }>('POST', '/projects', { token: user.token, body: { name: 'second', workspaceId: user.workspaceId } });
    expect((await t.request('POST', `/signals/s/in-second?create=1&project=${project.body.id}`, { token: service })).status).toBe(201);
    expect((await t.request<{ projectId: number }>('GET', '/v1/jobs/slug:in-second', { token: service })).body.projectId).toBe(project.body.id);
    const other = await t.signup('stranger');
    expectError(await t.request('POST', `/signals/s/sneaky?create=1&project=${other.projectId}`, { token: service }), 404);
    expectError(await t.request('POST', '/signals/s/sneaky?create=1&project=abc', { token: service }), 400);
    expectError(await t.request('POST', '/signals/s/Bad%20Slug?create=1', { token: service }), 400);
    expectError(await t.request('POST', '/signals/s/too-big?create=1', { token: service, rawBody: 'x'.repeat(10_241) }), 413);
    expectError(await t.request('GET', '/v1/jobs/slug:too-big', { token: service }), 404);
    expectError(await t.request('GET', '/v1/jobs/slug:sneaky', { token: service }), 404);
  });
});

describe('deprecated key-in-URL slug pings', () => {
  it('accept only ping keys and always say Deprecation and Sunset', async () => {
    const { id } = await createJob(t, user, service, { slug: 'legacy' });
    const ok = await t.request('GET', `/signals/p/${ping}/legacy`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('deprecation')).toBe('true');
    expect(ok.headers.get('sunset')).toBe(SUNSET);
    t.clock.advanceSeconds(2);
    expect((await t.request('POST', `/signals/p/${ping}/legacy/fail`)).status).toBe(200);
    const refused = await t.request('GET', `/signals/p/${service}/legacy`);
    expectError(refused, 403);
    expect(refused.headers.get('sunset')).toBe(SUNSET);
    const unknown = await t.request('GET', '/signals/p/vigil_nope/legacy');
    expectError(unknown, 401);
    expect(unknown.headers.get('deprecation')).toBe('true');
    expectError(await t.request('GET', `/signals/p/${ping}/nothing-here`), 404, 'CHECK_NOT_FOUND');
    expect((await signalsOf(t, id)).map((s) => s.type)).toEqual(['SUCCESS', 'FAIL']);
  });
});
