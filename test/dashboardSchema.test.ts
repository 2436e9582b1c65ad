import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_FILE, schemaTypes } from '../web/scripts/schema.js';
import { createTestContext, type TestContext } from './harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

/**
 * The dashboard speaks only the documented session API, through types generated from it. A route
 * changed without `npm run gen:api` would leave the client typed against an API that no longer
 * exists: this fails until the committed file is regenerated.
 */
describe('the dashboard client types', () => {
  it('match what openapi-typescript makes of the served /api/openapi.json', async () => {
    const res = await t.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const expected = await schemaTypes(res.body);
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    // Not toBe: a 19,000-line diff would bury the hint.
    expect(committed === expected, `${SCHEMA_FILE} drifted from the served document: run \`npm run gen:api\``).toBe(true);
  });
});
