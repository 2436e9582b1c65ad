import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { connect, serveApp } from '../../test/support/mcp.js';

let t: TestContext;
let origin: string;
let close: () => Promise<void>;
beforeAll(async () => {
  t = await createTestContext();
  ({ origin, close } = await serveApp(t));
});
afterAll(async () => {
  await close();
});

/** JSON pointers of every `type` that is an array, anywhere in the schema. */
function typeArrays(schema: unknown, at = '#'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => typeArrays(item, `${at}/${i}`));
  if (typeof schema !== 'object' || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => (key === 'type' && Array.isArray(value) ? [`${at}/type`] : typeArrays(value, `${at}/${key}`)));
}

describe('MCP tool schemas in a one-type dialect', () => {
  it('writes no `type` array in any input or output schema of tools/list (a nullable field is anyOf of single types)', async () => {
    const owner = await t.signup('dialect');
    const client = await connect(origin, await t.apiKey(owner));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(15);
      const found = tools.flatMap((tool) => [...typeArrays(tool.inputSchema, `${tool.name} input`), ...typeArrays(tool.outputSchema, `${tool.name} output`)]);
      expect(found).toEqual([]);
      // Nullable fields are still nullable: get_check's pingUrl may be a string or null.
      const getCheck = tools.find((tool) => tool.name === 'get_check');
      const check = (getCheck?.outputSchema?.properties as Record<string, { properties: Record<string, unknown> }> | undefined)?.check;
      expect(check?.properties.pingUrl).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }], description: expect.any(String) });
    } finally {
      await client.close();
    }
  });
});
