import { createConfig, lintFromString } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});

/**
 * SDK generators and API portals read both documents by machine, and most of them run Redocly's
 * rules first: its recommended ruleset must find no error in what Vigil serves (warnings, such as
 * `/checks/token/{token}` beside `/checks/{id}/pause` being ambiguous to a reader, are allowed).
 */
describe("Redocly's recommended ruleset", () => {
  it.each(['/openapi.json', '/v1/openapi.json'])('reports no error on %s', async (location) => {
    const res = await t.request('GET', location);
    expect(res.status).toBe(200);
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: res.text, absoluteRef: `file:///vigil${location}`, config });
    const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? '?'}`);
    expect(errors).toEqual([]);
  });
});
