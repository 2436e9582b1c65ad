import { ulid } from 'ulid';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoClient, ensureTable } from '../core/store/client.js';
import { httpApiEvent, type LambdaHandler as Handler } from '../test/support/httpApiEvent.js';

/**
 * On AWS the assistant surface rides the API Lambda: `/api/mcp` arrives on `ANY /api/{proxy+}`
 * and `/mcp` on `$default` (stacks/ApiStack.ts), both into the same createApp.
 */
describe('MCP on the API Lambda', () => {
  let handler: Handler;
  let key: string;

  beforeAll(async () => {
    const table = `t_${ulid()}`;
    process.env.VIGIL_TABLE_NAME = table;
    process.env.VIGIL_DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
    await ensureTable(createDynamoClient({ endpoint: inject('dynamoEndpoint') }), table);
    handler = (await import('./api.js')).handler as Handler;
    const email = `mcp-${ulid().toLowerCase()}@example.com`;
    const signup = JSON.parse((await handler(httpApiEvent('POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } }))).body) as {
      access_token: string;
      workspace: { id: number };
    };
    const created = await handler(
      httpApiEvent('POST', '/api/api-keys', {
        body: { workspaceId: signup.workspace.id, name: 'assistant', permission: 'read_only' },
        headers: { authorization: `Bearer ${signup.access_token}` },
      }),
    );
    key = (JSON.parse(created.body) as { key: string }).key;
  });

  const rpc = (path: string, routeKey: string, body: unknown, token = key) =>
    handler(httpApiEvent('POST', path, { routeKey, body, headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` } }));

  it('initializes and lists tools at /api/mcp and at /mcp', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lambda-test', version: '1' } },
    };
    for (const [path, routeKey] of [
      ['/api/mcp', 'ANY /api/{proxy+}'],
      ['/mcp', '$default'],
    ] as const) {
      const init = await rpc(path, routeKey, initialize);
      expect(init.statusCode).toBe(200);
      expect(JSON.parse(init.body)).toMatchObject({ id: 1, result: { serverInfo: { name: 'vigil' } } });
      const list = await rpc(path, routeKey, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const names = (JSON.parse(list.body) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
      expect(names).toContain('explain_check');
      expect(names).not.toContain('create_job');
    }
  });

  it('refuses a missing key with 401 before any MCP exchange', async () => {
    const res = await handler(httpApiEvent('POST', '/mcp', { routeKey: '$default', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });
});
