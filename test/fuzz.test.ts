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
let email: string;

beforeAll(async () => {
  t = await createTestContext();
  const user = await t.signup('fuzz');
  email = user.email;
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
  pingToken = String((seeded[0]?.body as { token?: unknown }).token);
  // A live intake URL: random bodies reach the Alertmanager parser, not only the 404 of a wrong secret.
  const integration = await t.request<{ secret: string }>('POST', '/integrations', {
    token: session,
    body: { workspaceId: user.workspaceId, name: 'seeded', kind: 'ALERTMANAGER' },
  });
  expect(integration.status).toBe(201);
  intakeSecret = integration.body.secret;
});
let pingToken = '';
let intakeSecret = '';

const DASHBOARD_WRITES: [string, string][] = [
  ['POST', '/projects'],
  ['POST', '/checks'],
  ['POST', '/checks/bulk'],
  ['PATCH', '/checks/{id}'],
  ['PATCH', '/checks/{id}/transfer'],
  ['PATCH', '/checks/{id}/outbound'],
  ['POST', '/workspaces'],
  ['POST', '/workspaces/{id}/members'],
  ['POST', '/api-keys'],
  ['POST', '/alert-channels'],
  ['POST', '/integrations'],
  ['PATCH', '/integrations/{id}'],
  ['POST', '/integrations/intake/{intake}'],
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
  ['POST', '/v1/integrations'],
  ['POST', '/v1/import/healthchecks'],
  ['POST', '/v1/import/uptime-kuma'],
  ['POST', '/v1/import/grafana-oncall'],
];
const ODD_IDS = ['1', '0', '-1', 'abc', '1e309', '9007199254740993', 'slug:', 'slug:%00', '%2e%2e', 'x'.repeat(300)];

const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom(
      'name',
      'projectId',
      'workspaceId',
      'intervalSeconds',
      'graceSeconds',
      'url',
      'checkMode',
      'checkType',
      'config',
      'slug',
      'endAt',
      'startAt',
      'projectIds',
      'checkIds',
      'ttlMinutes',
      'email',
      'role',
      'type',
      'title',
      'severity',
      'jobId',
      'checkId',
      'recurringCron',
      'timezone',
      'body',
      'permission',
      'checks',
      'monitorList',
      'database',
    ),
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
        const path = template.replace('{id}', encodeURIComponent(id).replace(/%25/g, '%')).replace('{intake}', intakeSecret);
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
    const templates = [
      '/checks/{id}',
      '/checks/{id}/runs',
      '/checks/{id}/outbound-stats?window=1y',
      '/incidents/{id}',
      '/incident-events/{id}',
      '/dependencies/{id}',
      '/maintenance-windows/{id}',
      '/v1/checks/{id}',
      '/v1/jobs/{id}',
      '/v1/incidents/{id}',
      '/signals/token/{id}',
      '/signals/ping/{id}',
    ];
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

const FORM_FIELDS = ['grant_type', 'username', 'password', 'refresh_token', 'scope', 'name', 'projectId', 'email', 'title', 'file', 'a[b]', ''];
const field = fc.tuple(fc.constantFrom(...FORM_FIELDS), fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('password', 'refresh_token', '%zz', '%', '\r\n', '\u0000')));

/** A part as a browser would send it, sometimes as a file. */
const part = (boundary: string, [name, value]: [string, string], asFile: boolean) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${asFile ? '; filename="x.txt"\r\nContent-Type: text/plain' : ''}\r\n\r\n${value}\r\n`;

/** Form and multipart bodies, well-formed and not: each with the content-type it claims. */
const formBody = fc.oneof(
  fc.array(field, { maxLength: 6 }).map((fields) => ({
    type: 'application/x-www-form-urlencoded',
    body: fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
  })),
  fc.string({ maxLength: 80 }).map((body) => ({ type: 'application/x-www-form-urlencoded; charset=utf-8', body })),
  fc
    .tuple(fc.stringMatching(/^[A-Za-z0-9'()+_,.\/:=?-]{1,30}$/), fc.array(fc.tuple(field, fc.boolean()), { maxLength: 5 }), fc.nat(400), fc.boolean())
    .map(([boundary, parts, cut, truncate]) => {
      const whole = `${parts.map(([f, asFile]) => part(boundary, f, asFile)).join('')}--${boundary}--\r\n`;
      return { type: `multipart/form-data; boundary=${boundary}`, body: truncate ? whole.slice(0, cut) : whole };
    }),
  fc.string({ maxLength: 120 }).map((body) => ({ type: 'multipart/form-data', body })),
  fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 120 })).map(([boundary, body]) => ({ type: `multipart/form-data; boundary="${boundary}"`, body })),
);

describe('no 5xx from form or multipart bodies', () => {
  it('on every write route, the token endpoint and the ping routes included', async () => {
    const routes: [string, string][] = [
      ...DASHBOARD_WRITES,
      ...V1_WRITES,
      ['POST', '/oauth/token'],
      ['POST', '/auth/signup'],
      ['POST', '/auth/logout'],
      ['POST', '/signals/ping/{token}'],
      ['POST', '/signals/ping/{token}/fail'],
      ['POST', '/signals/ping/{token}/start'],
      ['POST', '/push/{token}'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.constantFrom('1', 'abc'), formBody, async ([method, template], id, { type, body }) => {
        const path = template.replace('{id}', id).replace('{token}', pingToken).replace('{intake}', intakeSecret);
        t.clock.advanceSeconds(61);
        const token = path.startsWith('/v1/') ? key : session;
        const res = await t.request(method, path, { token, rawBody: body, headers: { 'content-type': type } });
        expectClientAnswer(res.status, res.text, `${method} ${path} ${type} ${JSON.stringify(body).slice(0, 200)}`);
      }),
      { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? 20261123) },
    );
  });

  it('answers a malformed multipart token request with 400 in the error shape', async () => {
    for (const [type, body] of [
      ['multipart/form-data; boundary=X', '--X\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\npassword\r\n--X'],
      ['multipart/form-data', 'grant_type=password'],
    ] as const) {
      t.clock.advanceSeconds(61);
      const res = await t.request('POST', '/oauth/token', { rawBody: body, headers: { 'content-type': type } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'BAD_REQUEST', message: expect.stringMatching(/form body/) });
    }
    // A well-formed one still signs in.
    const login = await t.request('POST', '/oauth/token', {
      rawBody: ['grant_type', 'username', 'password'].map((name, i) => part('B', [name, ['password', email, 'correct horse battery'][i] ?? ''], false)).join('') + '--B--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=B' },
    });
    expect(login.status).toBe(200);
  });
});
