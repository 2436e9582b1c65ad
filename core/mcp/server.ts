import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Ctx } from '../context.js';
import type { Tool } from './tool.js';

/** Reads one of the app's own documents (the OpenAPI JSON), as the app would answer a GET for it. */
export type DocumentReader = (path: string) => Response | Promise<Response>;

/** The API descriptions an assistant can read, so it knows the API it is driving. */
export const OPENAPI_DOCUMENTS = [
  { name: 'integration-api', path: '/api/v1/openapi.json', title: 'Vigil Integration API (OpenAPI 3.1)', description: 'The /v1 API the tools wrap (API key).' },
  { name: 'dashboard-api', path: '/api/openapi.json', title: 'Vigil dashboard API (OpenAPI 3.1)', description: 'Every other path under /api (session token).' },
] as const;

const INSTRUCTIONS = [
  'Vigil monitors heartbeat jobs and HTTP endpoints, opens incidents when they fail, and holds them during deployments and maintenance.',
  'Start with whoami or workspace_overview. To answer "why is X down?", call explain_check once: it returns the status, since when, the last pings or probe runs, the open incident, dependencies and windows.',
  "Lists are paginated (page, limit <= 100) and say how many items remain. Every tool acts in the API key's own workspace.",
].join(' ');

/**
 * One McpServer per HTTP request (stateless): it carries the tools this key may use,
 * bound to the key's Ctx, and the OpenAPI documents as resources.
 */
export function createMcpServer(ctx: Ctx, tools: readonly Tool[], readDocument: DocumentReader): McpServer {
  const server = new McpServer({ name: 'vigil', version: '1.0.0' }, { instructions: INSTRUCTIONS, capabilities: { tools: {}, resources: {} } });
  for (const tool of tools) tool.register(server, ctx);
  // tools/list from the catalog rather than the SDK's own listing, for schemas every client can
  // read (jsonSchema.ts). Calls still go through the SDK, which validates against the zod schemas.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.listing()) }));
  for (const doc of OPENAPI_DOCUMENTS) {
    const uri = `${ctx.deps.config.publicUrl}${doc.path}`;
    server.registerResource(doc.name, uri, { title: doc.title, description: doc.description, mimeType: 'application/json' }, async () => {
      const response = await readDocument(doc.path);
      return { contents: [{ uri, mimeType: 'application/json', text: await response.text() }] };
    });
  }
  return server;
}
