/** core/mcp: the assistant surface (MCP), tools over the same verbs as `/v1`. */
export { mcpRoutes } from './routes.js';
export { ALL_TOOLS, selectTools } from './catalog.js';
export { OPENAPI_DOCUMENTS, type DocumentReader } from './server.js';
