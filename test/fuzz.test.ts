import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './harness.js';

/**
 * "No 500 from user input, ever": random JSON bodies and odd path ids against the write routes of
 * every surface. Whatever the input, the answer is a 2xx or a 4xx in the error shape.
 */
let t: TestContext;
let session: string;
let key: string;

beforeAll(async () => {
  t = await createTestContext();
  const user = await t.signup('fuzz');
  session = user.token;
  key = await t.apiKey(user);
  // Real resources behind id 1 (and 2), so random bodies reach the update logic, not only 404s.
  const seeded = [
    await t.request('POST', '/checks', { token: session, body: { name: 'job', projectId: user.projectId, intervalSeconds: 300, graceSeconds: 60 } }),
    await t.request('POST', '/v1/checks', { token: key, body: { name: 'web', projectId: user.projectId, config: { url: 'https://example.com/' } } }),
    await t.request('POST', '/v1/incidents', { token: key, body: { title: 'seeded', jobId: 1 } }),
    await t.request('POST', '/deployments', { token: session, body: { projectId: user.projectId, name: 'seeded' } }),
    await t.request('POST', '/maintenance-windows', {
      token: session,
      body: { workspaceId: user.workspaceId, name: 'seeded', startAt: '2030-01-01T00:00:00Z', endAt: '2030-01-01T01:00:00Z', projectIds: [user.projectId] },
    }),
    await t.request('POST', '/dependencies', { token: session, body: { workspaceId: user.workspaceId, name: 'seeded' } }),
  ];
  expect(seeded.map((res) => res.status)).toEqual([201, 201, 201, 201, 201, 201]);
});

const DASHBOARD_WRITES: [string, string][] = [
  ['POST', '/projects'],
  ['POST', '/checks'],
  ['PATCH', '/checks/{id}'],
  ['PATCH', '/checks/{id}/transfer'],
  ['PATCH', '/checks/{id}/outbound'],
  ['POST', '/workspaces'],
  ['POST', '/workspaces/{id}/members'],
  ['POST', '/api-keys'],
  ['POST', '/alert-channels'],
  ['POST', '/dependencies'],
  ['POST', '/incident-notes/{id}'],
  ['POST', '/deployments'],
  ['PUT', '/deployments/{id}/end'],
  ['POST', '/maintenance-windows'],
  ['PUT', '/maintenance-windows/{id}'],
  ['POST', '/auth/password'],
];
const V1_WRITES: [string, string][] = [
  ['POST', '/v1/projects'],
  ['POST', '/v1/checks'],
  ['PATCH', '/v1/checks/{id}'],
  ['POST', '/v1/jobs'],
  ['PATCH', '/v1/jobs/{id}'],
  ['POST', '/v1/incidents'],
  ['POST', '/v1/deployments'],
  ['POST', '/v1/maintenance-windows'],
];
const ODD_IDS = ['1', '0', '-1', 'abc', '1e309', '9007199254740993', 'slug:', 'slug:%00', '%2e%2e', 'x'.repeat(300)];

const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom('name', 'projectId', 'workspaceId', 'intervalSeconds', 'graceSeconds', 'url', 'checkMode', 'checkType', 'config', 'slug', 'endAt', 'startAt', 'projectIds', 'checkIds', 'ttlMinutes', 'email', 'role', 'type', 'title', 'severity', 'jobId', 'checkId', 'recurringCron', 'timezone', 'body', 'permission'),
    fc.jsonValue({ maxDepth: 2 }),
  ),
);

function expectClientAnswer(status: number, text: string, what: string): void {
  if (status >= 500) throw new Error(`${what} answered ${status}: ${text}`);
  if (status >= 400) expect(JSON.parse(text)).toMatchObject({ statusCode: status, message: expect.any(String), error: expect.any(String) });
}

describe('no 5xx from user input', () => {
  it('random bodies on every write route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DASHBOARD_WRITES, ...V1_WRITES), fc.constantFrom(...ODD_IDS), jsonish, async ([method, template], id, body) => {
        const path = template.replace('{id}', encodeURIComponent(id).replace(/%25/g, '%'));
        // Keep clear of the per-user rate limit: each run starts in a fresh window.
        t.clock.advanceSeconds(61);
        const token = path.startsWith('/v1/') ? key : session;
        const res = await t.request(method, path, { token, body });
        expectClientAnswer(res.status, res.text, `${method} ${path} ${JSON.stringify(body).slice(0, 200)}`);
      }),
      { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? 20261121) },
    );
  });

  it('odd ids on reads and actions', async () => {
    const templates = ['/checks/{id}', '/checks/{id}/runs', '/checks/{id}/outbound-stats?window=1y', '/incidents/{id}', '/incident-events/{id}', '/dependencies/{id}', '/maintenance-windows/{id}', '/v1/checks/{id}', '/v1/jobs/{id}', '/v1/incidents/{id}', '/signals/token/{id}', '/signals/ping/{id}'];
    for (const template of templates) {
      for (const id of ODD_IDS) {
        t.clock.advanceSeconds(61);
        const path = template.replace('{id}', encodeURIComponent(id));
        const res = await t.request('GET', path, { token: path.startsWith('/v1/') ? key : session });
        expectClientAnswer(res.status, res.text, `GET ${path}`);
      }
    }
  });
});
