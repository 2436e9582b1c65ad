import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';

type Operation = { operationId?: string; summary?: string; security?: unknown[] };
type Document = { info: { license?: { name: string } }; paths: Record<string, Record<string, Operation>> };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

const DOCUMENTS = ['/openapi.json', '/v1/openapi.json'];

async function documentAt(path: string): Promise<Document> {
  const res = await t.request<Document>('GET', path);
  expect(res.status).toBe(200);
  return res.body;
}

/** Every operation as `METHOD /path` -> its operationId. */
async function operationIds(location: string): Promise<Map<string, string | undefined>> {
  const doc = await documentAt(location);
  return new Map(Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.operationId] as const)));
}

describe('operation names in the OpenAPI documents (SDK generators name methods after them)', () => {
  it('gives every operation of both documents an operationId and a summary, no id twice in a document', async () => {
    for (const location of DOCUMENTS) {
      const doc = await documentAt(location);
      const seen = new Map<string, string>();
      let count = 0;
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const where = `${location}: ${method.toUpperCase()} ${path}`;
          count++;
          expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
          expect(operation.summary?.trim(), where).toBeTruthy();
          expect(operation.security, `${where}: security declared, [] when public`).toBeInstanceOf(Array);
          const id = operation.operationId ?? '';
          expect(seen.get(id), `${where} repeats the operationId ${id}`).toBeUndefined();
          seen.set(id, where);
        }
      }
      expect(count, location).toBeGreaterThan(30);
    }
  });

  it('names operations like SDK methods, the same way in both documents', async () => {
    const v1 = await operationIds('/v1/openapi.json');
    expect(
      Object.fromEntries(
        [
          'GET /checks',
          'GET /checks/{id}',
          'POST /checks',
          'PATCH /checks/{id}',
          'DELETE /checks/{id}',
          'POST /jobs/{id}/pause',
          'POST /incidents/{id}/acknowledge',
          'GET /whoami',
          'POST /deployments/{id}/end',
          'GET /status-pages/{id}/announcements',
        ].map((k) => [k, v1.get(k)]),
      ),
    ).toEqual({
      'GET /checks': 'listChecks',
      'GET /checks/{id}': 'getCheck',
      'POST /checks': 'createCheck',
      'PATCH /checks/{id}': 'updateCheck',
      'DELETE /checks/{id}': 'deleteCheck',
      'POST /jobs/{id}/pause': 'pauseJob',
      'POST /incidents/{id}/acknowledge': 'acknowledgeIncident',
      'GET /whoami': 'whoAmI',
      'POST /deployments/{id}/end': 'endDeployment',
      'GET /status-pages/{id}/announcements': 'listStatusPageAnnouncements',
    });
    const dashboard = await operationIds('/openapi.json');
    expect(dashboard.get('GET /escalation-policies/{id}')).toBe('getEscalationPolicy');
    expect(dashboard.get('POST /checks/{id}/rotate-token')).toBe('rotateCheckToken');
    expect(dashboard.get('GET /signals/s/{slug}/fail')).toBe('pingFailBySlug');
    expect(dashboard.get('GET /public/status/{slug}/history')).toBe('getPublicStatusPageHistory');
  });

  it('gives the Integration API document a license', async () => {
    expect((await documentAt('/v1/openapi.json')).info.license?.name).toBeTruthy();
  });
});
