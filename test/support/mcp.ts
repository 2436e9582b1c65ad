import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestContext } from '../harness.js';

/** The test context's app over real HTTP on an ephemeral loopback port (not a test file itself). */
export async function serveApp(t: TestContext): Promise<{ origin: string; close(): Promise<void> }> {
  const server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/** The SDK's own client, connected (initialize + initialized) with a bearer credential. */
export async function connect(origin: string, token: string | undefined, path = '/api/mcp'): Promise<Client> {
  const client = new Client({ name: 'vigil-test', version: '1.0.0' });
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}${path}`), { requestInit: { headers } }));
  return client;
}

export type ToolResult<T> = { isError: boolean; text: string; data: T };

/** Calls a tool and returns its text and structured content, typed as the test expects. */
export async function callTool<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return { isError: result.isError === true, text: first?.type === 'text' ? first.text : '', data: result.structuredContent as T };
}

/** Asserts a tool result carried data, else fails with its message. */
export async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult<T>> {
  const result = await callTool<T>(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.text}`);
  return result;
}
