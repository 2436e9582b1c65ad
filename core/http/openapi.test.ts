import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { STANDARD_ERROR_RESPONSES } from './openapi.js';

type Operation = { responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { required?: string[] }> } };

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

const STATUSES = Object.keys(STANDARD_ERROR_RESPONSES);
const errorRef = '#/components/schemas/ErrorBody';

async function documentAt(path: string): Promise<Document> {
  const res = await t.request<Document>('GET', path);
  expect(res.status).toBe(200);
  return res.body;
}

function expectErrorsDocumented(doc: Document, path: string, method: string) {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method} ${path}`).toBeDefined();
  for (const status of STATUSES) {
    const response = operation?.responses[status];
    expect(response?.description, `${method} ${path} ${status}`).toBeTruthy();
    expect(response?.content?.['application/json']?.schema.$ref, `${method} ${path} ${status}`).toBe(errorRef);
  }
}

describe('error responses in the OpenAPI documents', () => {
  it('the dashboard document lists 400/401/403/404/409/413/429 as ErrorBody on its routes', async () => {
    const doc = await documentAt('/openapi.json');
    expect(doc.components.schemas.ErrorBody?.required).toEqual(expect.arrayContaining(['statusCode', 'message', 'error']));
    const sample: [string, string][] = [
      ['/projects', 'get'],
      ['/workspaces/{id}/members', 'post'],
      ['/checks/{id}', 'patch'],
      ['/checks/{id}/outbound', 'get'],
      ['/incidents/{id}/acknowledge', 'post'],
      ['/dependencies/{id}', 'delete'],
      ['/signals/ping/{token}', 'get'],
      ['/deployments', 'post'],
      ['/maintenance-windows/{id}', 'put'],
      ['/auth/signup', 'post'],
      ['/me', 'get'],
    ];
    for (const [path, method] of sample) expectErrorsDocumented(doc, path, method);
  });

  it('the integration document lists them too', async () => {
    const doc = await documentAt('/v1/openapi.json');
    expect(doc.components.schemas.ErrorBody).toBeDefined();
    const sample: [string, string][] = [
      ['/whoami', 'get'],
      ['/projects/{id}', 'get'],
      ['/checks', 'post'],
      ['/jobs/{id}', 'patch'],
      ['/incidents/{id}/resolve', 'post'],
      ['/maintenance-windows', 'get'],
    ];
    for (const [path, method] of sample) expectErrorsDocumented(doc, path, method);
  });

  it('every operation of both documents has them, and a route keeps its own description', async () => {
    for (const location of ['/openapi.json', '/v1/openapi.json']) {
      const doc = await documentAt(location);
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const method of Object.keys(operations)) expectErrorsDocumented(doc, path, method);
      }
    }
    const dashboard = await documentAt('/openapi.json');
    expect(dashboard.paths['/signals/ping/{token}']?.get?.responses['404']?.description).toBe('Unknown check (code CHECK_NOT_FOUND)');
  });
});
