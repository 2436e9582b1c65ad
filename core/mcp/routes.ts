import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { apiKeyAuth } from '../auth/middleware.js';
import { requestCtx } from '../context.js';
import type { AppEnv } from '../http/env.js';
import { badRequest, errorBody, HttpError } from '../http/errors.js';
import { readOnlyRefusal, selectTools } from './catalog.js';
import { keyOf } from './key.js';
import { createMcpServer, type DocumentReader } from './server.js';

/** A JSON-RPC message with tool arguments is a few KB; `/mcp` sits outside the app's `/api` body cap. */
export const MAX_MCP_BODY_BYTES = 256 * 1024;
/**
 * Messages in one JSON-RPC batch. MCP clients send one message per request (batches left the
 * protocol in 2025-06-18); a batch is served for older clients, each message counted in the key's
 * rate limit, and a larger one is refused before any of it runs.
 */
export const MAX_MCP_BATCH = 10;

/** The request's JSON body, read from a copy (the transport reads the request itself); undefined when it is not JSON. */
const bodyOf = (c: Context<AppEnv>): Promise<unknown> =>
  c.req.raw
    .clone()
    .json()
    .catch(() => undefined);

/** Each message of a batch is a unit of the key's rate limit; an oversized batch costs one (it is refused unread). */
async function messagesIn(c: Context<AppEnv>): Promise<number> {
  const body = await bodyOf(c);
  return Array.isArray(body) && body.length > 1 && body.length <= MAX_MCP_BATCH ? body.length : 1;
}

const limitBody = bodyLimit({
  maxSize: MAX_MCP_BODY_BYTES,
  onError: () => {
    throw new HttpError('PAYLOAD_TOO_LARGE', `Request body exceeds ${MAX_MCP_BODY_BYTES} bytes`);
  },
});

/**
 * The assistant surface (spec: `{base_url}/mcp` and `{mcp_url}`), mounted at `/api/mcp` and
 * `/mcp`. Streamable HTTP, stateless, JSON responses: each POST builds a server for
 * the key, answers, and is gone, which is what a Lambda can hold. The key is checked before any
 * MCP exchange (a session token or no key is a 401, a ping key a 403, the key's rate limit a
 * 429, all in the API's error shape), exactly as on `/v1`.
 */
export function mcpRoutes(options: { readDocument: DocumentReader }): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  // No server-to-client stream and no session to delete in a stateless server: the transport
  // would hold a GET open forever. Clients take 405 here as "no stream" (MCP spec).
  r.on(['GET', 'DELETE'], '/', (c) => {
    c.header('Allow', 'POST');
    return c.json(errorBody(405, `Method ${c.req.method} not allowed on ${c.req.path}; MCP here is stateless, POST only`, 'METHOD_NOT_ALLOWED'), 405);
  });
  // The body limit comes first: the key's rate limit reads the body to count its messages.
  r.post('/', limitBody, apiKeyAuth({ units: messagesIn }), async (c) => {
    const ctx = requestCtx(c);
    const key = keyOf(ctx);
    const tools = selectTools(c.req.query('tools'), key);
    if (tools.length === 0) throw badRequest('No tool this API key may use matches ?tools=', [{ path: 'tools', message: 'selects no tool' }]);
    const body = await bodyOf(c);
    if (Array.isArray(body) && body.length > MAX_MCP_BATCH) {
      throw badRequest(`A JSON-RPC batch holds at most ${MAX_MCP_BATCH} messages`, [{ path: 'body', message: `${body.length} messages` }]);
    }
    if (key.permission === 'read_only') {
      const refusal = readOnlyRefusal(body);
      if (refusal) return c.json(refusal);
    }
    const server = createMcpServer(ctx, tools, options.readDocument);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
  return r;
}
