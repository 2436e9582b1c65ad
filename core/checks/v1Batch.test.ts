import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../auth/plans.js';
import { createTestContext, expectError, type TestContext } from '../../test/harness.js';
import type { CheckV1 } from './schema.js';
import { LONG_SESSIONS, expectStatus, freshRateWindow, type User } from '../../test/support/checks.js';

type Result = { index: number; status: number; check?: CheckV1; error?: { statusCode: number; message: string; error: string; code?: string } };
type Batch = { results: Result[] };

// The FREE plan, so the plan's outbound-check limit is within reach of a small batch.
const FREE = PLAN_LIMITS.FREE;

let t: TestContext;
let user: User;
let key: string;
beforeAll(async () => {
  t = await createTestContext({ ...LONG_SESSIONS, VIGIL_DEFAULT_PLAN: 'FREE' });
  user = await t.signup('batcher');
  key = await t.apiKey(user);
});
beforeEach(() => freshRateWindow(t));

const item = (owner: User, name: string, extra: Record<string, unknown> = {}) => ({ name, projectId: owner.projectId, config: { url: `https://example.com/${name}` }, ...extra });
const batch = (items: unknown[], token = key) => t.request<Batch>('POST', '/v1/checks/batch', { token, body: { items } });
const total = async (token = key) => expectStatus(await t.request<{ total: number }>('GET', '/v1/checks', { token }), 200).total;

describe('POST /v1/checks/batch', () => {
  it('creates each item in order; a bad item in the middle is its own 400, exactly what POST /v1/checks answers, and the others are 201', async () => {
    const bad = item(user, 'bad', { intervalSeconds: 5 });
    const single = expectError(await t.request('POST', '/v1/checks', { token: key, body: bad }), 400, 'VALIDATION_ERROR');
    const res = expectStatus(await batch([item(user, 'first'), bad, item(user, 'third')]), 200);
    expect(res.results.map((r) => [r.index, r.status])).toEqual([
      [0, 201],
      [1, 400],
      [2, 201],
    ]);
    expect(res.results[1]?.error).toEqual(single);
    expect(res.results[0]?.check?.name).toBe('first');
    const third = res.results[2]?.check;
    if (!third) throw new Error('third not created');
    expect(expectStatus(await t.request<CheckV1>('GET', `/v1/checks/${third.id}`, { token: key }), 200)).toEqual(third);
  });

  it('refuses 101 items with one 400 and creates nothing', async () => {
    const before = await total();
    expectError(await batch(Array.from({ length: 101 }, (_, i) => item(user, `many-${i}`))), 400, 'VALIDATION_ERROR');
    expectError(await batch([]), 400, 'VALIDATION_ERROR');
    expect(await total()).toBe(before);
  });

  it('is 403 for a read-only key and creates nothing', async () => {
    const before = await total();
    const readOnly = await t.apiKey(user, { permission: 'read_only' });
    expectError(await batch([item(user, 'ro')], readOnly), 403);
    expect(await total()).toBe(before);
  });

  it("answers an item naming another workspace's project with that item's 404", async () => {
    const other = await t.signup('batch-stranger');
    const res = expectStatus(await batch([item(other, 'foreign'), item(user, 'own')]), 200);
    expect(res.results[0]).toMatchObject({ index: 0, status: 404, error: { statusCode: 404, code: 'NOT_FOUND' } });
    expect(res.results[1]).toMatchObject({ index: 1, status: 201 });
    const otherKey = await t.apiKey(other);
    expect(await total(otherKey)).toBe(0);
  });

  it(`applies the plan's outbound-check limit per item, as single creates do (${FREE.outboundChecks} on FREE)`, async () => {
    const fresh = await t.signup('batch-quota');
    const freshKey = await t.apiKey(fresh);
    const res = expectStatus(
      await batch(
        Array.from({ length: FREE.outboundChecks + 2 }, (_, i) => item(fresh, `q-${i}`)),
        freshKey,
      ),
      200,
    );
    expect(res.results.map((r) => r.status)).toEqual([...Array<number>(FREE.outboundChecks).fill(201), 403, 403]);
    expect(res.results.at(-1)?.error?.code).toBe('PLAN_LIMIT_EXCEEDED');
    expect(await total(freshKey)).toBe(FREE.outboundChecks);
  });

  it("costs ceil(items / 10) of the key's 100 a minute, and a batch that does not fit is 429 before anything is created", async () => {
    const fresh = await t.signup('batch-rate');
    const freshKey = await t.apiKey(fresh);
    // Items the schema refuses: cheap, and they cost what any item costs.
    const hundred = Array.from({ length: 100 }, () => ({ name: 'x' }));
    const first = await batch(hundred, freshKey);
    expect(first.status).toBe(200);
    expect(first.headers.get('RateLimit-Remaining')).toBe('90');
    const eleven = await batch(hundred.slice(0, 11), freshKey);
    expect(eleven.headers.get('RateLimit-Remaining')).toBe('88');
    for (let i = 0; i < 8; i++) expect((await batch(hundred, freshKey)).status).toBe(200);
    // 8 units left: six more plain requests leave 2, and a batch of 30 needs 3.
    for (let i = 0; i < 6; i++) await total(freshKey);
    const refused = await batch(
      Array.from({ length: 30 }, (_, i) => item(fresh, `late-${i}`)),
      freshKey,
    );
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('Retry-After')).not.toBeNull();
    freshRateWindow(t);
    expect(await total(freshKey)).toBe(0);
  });

  it('is in the integration OpenAPI document, its items documented as CheckV1Create', async () => {
    type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    const doc = expectStatus(await t.request<Doc>('GET', '/v1/openapi.json'), 200);
    expect(doc.paths['/checks/batch']?.post).toBeDefined();
    expect(doc.components.schemas.CheckV1BatchCreate?.properties?.items).toMatchObject({
      maxItems: 100,
      minItems: 1,
      items: { allOf: [{ $ref: '#/components/schemas/CheckV1Create' }] },
    });
    expect(doc.components.schemas.CheckV1BatchResult).toBeDefined();
  });
});
