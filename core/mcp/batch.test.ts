import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/harness.js';
import { connect, ok, serveApp } from '../../test/support/mcp.js';
import { MAX_MCP_BATCH } from './routes.js';

/*
 * The SDK's client never sends a JSON-RPC batch, so batches go as raw HTTP; what a batch leaves of
 * the key's budget is then seen through the official client.
 */
let t: TestContext;
let origin: string;
let close: () => Promise<void>;
let owner: Awaited<ReturnType<TestContext['signup']>>;
beforeAll(async () => {
  t = await createTestContext();
  ({ origin, close } = await serveApp(t));
  owner = await t.signup('mcp-batch');
});
afterAll(async () => close());

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const post = (key: string, body: unknown) =>
  fetch(`${origin}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

describe('JSON-RPC batches and the rate limit', () => {
  it("counts every message of a batch in the key's limit", async () => {
    const key = await t.apiKey(owner);
    const res = await post(
      key,
      Array.from({ length: MAX_MCP_BATCH }, (_, i) => call(i + 1, 'whoami')),
    );
    expect(res.status).toBe(200);
    const answers = (await res.json()) as { id: number; result?: { isError?: boolean } }[];
    expect(answers.map((answer) => answer.id).sort((a, b) => a - b)).toEqual(Array.from({ length: MAX_MCP_BATCH }, (_, i) => i + 1));
    expect(answers.every((answer) => answer.result && !answer.result.isError)).toBe(true);
    expect(res.headers.get('ratelimit-remaining')).toBe(String(100 - MAX_MCP_BATCH));
    // Nine more batches spend the rest: the official client is then refused like any request.
    for (let i = 0; i < 100 / MAX_MCP_BATCH - 1; i++)
      expect(
        (
          await post(
            key,
            Array.from({ length: MAX_MCP_BATCH }, (_, j) => call(j + 1, 'whoami')),
          )
        ).status,
      ).toBe(200);
    await expect(connect(origin, key)).rejects.toThrow(/429|Rate limit/);
    t.clock.advanceSeconds(60);
    const client = await connect(origin, key);
    expect((await ok(client, 'whoami')).data).toMatchObject({ workspace: { id: owner.workspaceId } });
    await client.close();
  });

  it('refuses a batch that does not fit in what is left, and spends none of it', async () => {
    t.clock.advanceSeconds(60);
    const key = await t.apiKey(owner);
    const client = await connect(origin, key); // initialize and initialized: 2 requests
    for (let i = 0; i < 100 - 2 - 5; i++) await ok(client, 'whoami');
    const refused = await post(
      key,
      Array.from({ length: 6 }, (_, i) => call(i + 1, 'whoami')),
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('ratelimit-remaining')).toBe('5');
    expect(await refused.json()).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
    const fits = await post(
      key,
      Array.from({ length: 5 }, (_, i) => call(i + 1, 'whoami')),
    );
    expect(fits.status).toBe(200);
    expect(fits.headers.get('ratelimit-remaining')).toBe('0');
    await client.close();
  });

  it(`refuses a batch of more than ${MAX_MCP_BATCH} messages with 400 before any of it runs`, async () => {
    t.clock.advanceSeconds(60);
    const key = await t.apiKey(owner);
    const creates = Array.from({ length: MAX_MCP_BATCH + 1 }, (_, i) => call(i + 1, 'create_job', { name: `batched-${i}`, projectId: owner.projectId, intervalSeconds: 3600 }));
    const res = await post(key, creates);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR', message: expect.stringContaining(`at most ${MAX_MCP_BATCH}`) });
    expect(res.headers.get('ratelimit-remaining')).toBe('99');
    const client = await connect(origin, key);
    const batched = async () => (await ok<{ items: { name: string }[] }>(client, 'list_checks', { limit: 100 })).data.items.filter((check) => check.name.startsWith('batched-'));
    expect(await batched()).toEqual([]);
    // The same calls in a batch within the bound do run.
    expect((await post(key, creates.slice(0, 2))).status).toBe(200);
    expect((await batched()).map((check) => check.name).sort()).toEqual(['batched-0', 'batched-1']);
    await client.close();
  });
});
